import { WORKSPACE_EVENT_TYPES, type WorkspaceEvent } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { WorkspaceEntry } from '#lib/workspaces/port';
import { conditionParams, itemIsNew } from './conditions.ts';
import { ttlAfter } from './items.ts';

/**
 * The workspace side of the keys table (contract §12), written once:
 *
 * | item                          | pk                     | sk                               |
 * |-------------------------------|------------------------|----------------------------------|
 * | index entry (a key reaches it)| `WORKSPACE#<ws id>`    | `KEY#<created_at>#<key id>`      |
 * | the workspace's policy        | `WORKSPACE#<ws id>`    | `POLICY`                         |
 * | governance event              | `WORKSPACE#<ws id>`    | `EVENT#<occurred_at>#<event id>` |
 *
 * One partition per workspace: its keys are one Query, newest first, whatever the size of the
 * table. An entry is written in the same transaction as its key (create, rotate), or for a key
 * stored before the index by the one-off backfill (workspace-backfill.ts), and never
 * carries a secret, a digest or the key's other workspaces. What changes about a key (revoked,
 * last use) is read from the key item itself when a page is shown; what an entry keeps is
 * immutable, except `workspace_access`, which a cut-off sets to `removed` in its transaction.
 */
export const WORKSPACE_PREFIX = 'WORKSPACE#';
export const workspacePk = (workspaceId: string): string => `${WORKSPACE_PREFIX}${workspaceId}`;
export const ENTRY_PREFIX = 'KEY#';
export const entrySk = (createdAt: string, keyId: string): string => `${ENTRY_PREFIX}${createdAt}#${keyId}`;
export const POLICY_SK = 'POLICY';

/** What an index entry copies of its key: what never changes (never the digest). */
export type EntryKey = Pick<
  KeyRecord,
  'id' | 'user_id' | 'lineage_id' | 'created_at' | 'expires_at' | 'scopes'
>;

/** The index entry of `record` in one of its workspaces; kept as long as the key could be. */
export function entryItem(record: EntryKey, workspaceId: string, retentionDays: number) {
  const entry: WorkspaceEntry = {
    workspace_id: workspaceId,
    key_id: record.id,
    user_id: record.user_id,
    lineage_id: record.lineage_id,
    created_at: record.created_at,
    expires_at: record.expires_at,
    scopes: record.scopes,
    workspace_access: 'active',
  };
  return {
    ...entry,
    pk: workspacePk(workspaceId),
    sk: entrySk(record.created_at, record.id),
    ttl: ttlAfter(record.expires_at, retentionDays),
  };
}

/** The transaction actions that put a new key's index entries, one per workspace it reaches. */
export function entryPuts(tableName: string, record: KeyRecord, retentionDays: number) {
  return record.workspace_ids.map((workspaceId) => ({
    Put: {
      TableName: tableName,
      Item: entryItem(record, workspaceId, retentionDays),
      ...conditionParams(itemIsNew),
    },
  }));
}

/** An entry from its stored item. */
export function fromEntryItem(item: Record<string, unknown>): WorkspaceEntry {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...entry } = item;
  return entry as unknown as WorkspaceEntry;
}

const WORKSPACE_EVENT_SK = 'EVENT#';

/**
 * Whether a stream image is a workspace event to publish. The workspace's history also holds
 * copies of `key.workspace_removed` (published from the key's lineage): those are not.
 */
export function isWorkspaceEvent(image: Record<string, unknown> | undefined): boolean {
  const text = (name: string) => (image?.[name] as { S?: unknown } | undefined)?.S;
  const pk = text('pk');
  const sk = text('sk');
  return (
    typeof pk === 'string' &&
    pk.startsWith(WORKSPACE_PREFIX) &&
    typeof sk === 'string' &&
    sk.startsWith(WORKSPACE_EVENT_SK) &&
    (WORKSPACE_EVENT_TYPES as readonly unknown[]).includes(text('type'))
  );
}

/** A workspace event from its stored item; undefined for anything else. */
export function fromWorkspaceEventItem(
  item: Record<string, unknown> | undefined,
): WorkspaceEvent | undefined {
  if (!item || !(WORKSPACE_EVENT_TYPES as readonly unknown[]).includes(item.type)) return undefined;
  if (typeof item.pk !== 'string' || !item.pk.startsWith(WORKSPACE_PREFIX)) return undefined;
  const { pk: _pk, sk: _sk, ttl: _ttl, ...event } = item;
  return event as unknown as WorkspaceEvent;
}
