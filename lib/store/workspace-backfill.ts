import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyRecord } from '#lib/keys/model';
import { DAY_MS } from '#lib/limits';
import { conditionParams, itemIsNew } from './conditions.ts';
import { KEY_SK, keyPk } from './items.ts';
import { failedCondition, transact, unexpected } from './transactions.ts';
import { type EntryKey, entryItem } from './workspace-items.ts';

/**
 * The workspace index for keys stored before it existed (contract §12). A deployment upgraded
 * from a version without workspace governance holds keys with no index entries: administrators
 * cannot list them or cut them off, and a workspace policy does not reach them. This writes the
 * entries those keys should have, one per workspace each key still reaches, exactly as create
 * and rotate write them; it is idempotent and safe beside live traffic.
 */

/** What an entry needs of its key, and the workspaces it is due in. */
export type EntrySource = EntryKey & Pick<KeyRecord, 'workspace_ids'>;

/** A key item as the scan reads it: what its entries need, and what its own TTL was set from. */
type ScannedKey = EntrySource & Pick<KeyRecord, 'revoked_at'> & { ttl?: unknown };

const SCANNED: readonly (keyof ScannedKey)[] = [
  'id',
  'user_id',
  'lineage_id',
  'created_at',
  'expires_at',
  'scopes',
  'workspace_ids',
  'revoked_at',
  'ttl',
];

/**
 * The retention the key was stored with. Every version of the store set a key item's `ttl` to
 * `retentionDays` after its revocation or else its expiry (`keyItem`, items.ts), rounded down to
 * the second, so its entries get the TTL create gave them, whatever the setting was then.
 */
function retentionOf(key: ScannedKey, fallback: number): number {
  if (typeof key.ttl !== 'number') return fallback;
  const days = Math.round((key.ttl * 1000 - Date.parse(key.revoked_at ?? key.expires_at)) / DAY_MS);
  return days >= 1 ? days : fallback;
}

/** `written`: the entry was missing and is now stored; `present`: it was there already; `changed`: the key no longer reaches the workspace (or is gone), so no entry is due. */
export type EntryOutcome = 'written' | 'present' | 'changed';

export interface BackfillSummary {
  /** Key items read. */
  keys: number;
  written: number;
  present: number;
  changed: number;
  /**
   * The workspaces the keys reach (an entry written or already present): their stored policies
   * are to be applied, also after an earlier run that wrote entries and stopped before that.
   */
  workspaces: Set<string>;
}

export interface BackfillOptions {
  tableName: string;
  /** The retention for a key item without a `ttl` (none written by this service lacks one). */
  retentionDays: number;
  /** Parallel scan segments. @default 4 */
  segments?: number;
  /** Entry writes in flight per segment. @default 4 */
  concurrency?: number;
}

/**
 * Writes one key's entry in one workspace, in one transaction: on condition that the key still
 * holds the workspace (a cut-off since the key was read leaves it out) and that no entry exists
 * (an entry written by create, rotate or a cut-off is never overwritten).
 */
export async function backfillEntry(
  doc: DynamoDBDocumentClient,
  { tableName, retentionDays }: Pick<BackfillOptions, 'tableName' | 'retentionDays'>,
  key: EntrySource,
  workspaceId: string,
): Promise<EntryOutcome> {
  const outcome = await transact(doc, {
    TransactItems: [
      {
        ConditionCheck: {
          TableName: tableName,
          Key: { pk: keyPk(key.id), sk: KEY_SK },
          ConditionExpression: 'contains(workspace_ids, :ws)',
          ExpressionAttributeValues: { ':ws': workspaceId },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: entryItem(key, workspaceId, retentionDays),
          ...conditionParams(itemIsNew),
        },
      },
    ],
  });
  if (outcome.ok) return 'written';
  const [keyCheck, entryPut] = outcome.reasons;
  if (failedCondition(entryPut)) return 'present';
  if (failedCondition(keyCheck)) return 'changed';
  throw unexpected('workspace index backfill', outcome.reasons);
}

/** Every key item of the table, one scan segment's pages at a time, without the digest. */
async function* keyItems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  segment: number,
  segments: number,
): AsyncGenerator<ScannedKey[]> {
  const names = Object.fromEntries(SCANNED.map((name, i) => [`#a${i}`, name]));
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        Segment: segment,
        TotalSegments: segments,
        FilterExpression: 'sk = :key AND begins_with(pk, :prefix)',
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':key': KEY_SK, ':prefix': keyPk('') },
        ExclusiveStartKey: start,
      }),
    );
    yield (page.Items ?? []) as ScannedKey[];
    start = page.LastEvaluatedKey;
  } while (start);
}

/**
 * Writes the missing entries of every key in the table; run again, it writes nothing. The first
 * error stops every segment and worker before it is thrown, so nothing is written after it.
 */
export async function backfillWorkspaceIndex(
  doc: DynamoDBDocumentClient,
  options: BackfillOptions,
): Promise<BackfillSummary> {
  const { segments = 4, concurrency = 4 } = options;
  const summary: BackfillSummary = { keys: 0, written: 0, present: 0, changed: 0, workspaces: new Set() };
  let failure: { error: unknown } | undefined;
  const scanSegment = async (segment: number) => {
    for await (const keys of keyItems(doc, options.tableName, segment, segments)) {
      summary.keys += keys.length;
      const pending = keys.flatMap((key) => key.workspace_ids.map((workspaceId) => ({ key, workspaceId })));
      const worker = async () => {
        for (let next = pending.shift(); next && !failure; next = pending.shift()) {
          const retentionDays = retentionOf(next.key, options.retentionDays);
          const outcome = await backfillEntry(doc, { ...options, retentionDays }, next.key, next.workspaceId);
          summary[outcome]++;
          if (outcome !== 'changed') summary.workspaces.add(next.workspaceId);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, () => worker().catch(stop)));
      if (failure) return;
    }
  };
  const stop = (error: unknown) => {
    failure ??= { error };
  };
  await Promise.all(Array.from({ length: segments }, (_, segment) => scanSegment(segment).catch(stop)));
  if (failure) throw failure.error;
  return summary;
}
