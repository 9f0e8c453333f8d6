import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { InsertOutcome } from '#lib/keys/port';
import type { EnterpriseRenewal, EnterpriseStore, UsedAssertion } from '#lib/oauth/port';
import { conditionParams, itemIsNew } from './conditions.ts';
import { SLOTS_SK, slotsPk } from './items.ts';
import type { DynamoKeyStore } from './keys-store.ts';
import { failedCondition, transact, unexpected } from './transactions.ts';
import { entryItem, entrySk, workspacePk } from './workspace-items.ts';

/**
 * Enterprise grants' writes (contract §17) on the keys table. A grant is a key item like any other
 * (written by the key store's insert); what is added here:
 *
 * | item          | pk                            | sk    | kept                        |
 * |---------------|-------------------------------|-------|-----------------------------|
 * | used ID-JAG   | `ASSERTION#<sha256(iss, jti)>`| `JTI` | until its `exp`, then TTL   |
 * | acted-on SET  | `SIGNAL#<sha256(iss, jti)>`   | `JTI` | 8 days after its `iat`      |
 *
 * The ID-JAG's item is put (new only) in the transaction that writes the grant, so a replay
 * cancels it and writes nothing.
 */
const jtiKey = (prefix: string, { issuer, jti }: UsedAssertion) => ({
  pk: `${prefix}${createHash('sha256').update(`${issuer}\0${jti}`).digest('base64url')}`,
  sk: 'JTI',
});
const assertionKey = (assertion: UsedAssertion) => jtiKey('ASSERTION#', assertion);
const signalKey = (signal: UsedAssertion) => jtiKey('SIGNAL#', signal);
const ttlOf = (until: string) => Math.floor(Date.parse(until) / 1000) + 60;

export class DynamoEnterpriseStore implements EnterpriseStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly keys: DynamoKeyStore,
    private readonly retentionDays: number,
  ) {}

  /** The put of a used ID-JAG, failing when it was used before. */
  private assertionPut(assertion: UsedAssertion) {
    return {
      Put: {
        TableName: this.tableName,
        Item: { ...assertionKey(assertion), ttl: ttlOf(assertion.until) },
        ...conditionParams(itemIsNew),
      },
    };
  }

  insert(
    grant: KeyRecord,
    maxSlots: number,
    events: readonly KeyEvent[],
    assertion: UsedAssertion,
  ): Promise<InsertOutcome | { kind: 'replayed' }> {
    return this.keys.insertWith(grant, maxSlots, events, [this.assertionPut(assertion)], () => ({
      kind: 'replayed' as const,
    }));
  }

  async renew(
    grant: KeyRecord,
    renewal: EnterpriseRenewal,
    events: readonly KeyEvent[],
    assertion: UsedAssertion,
  ): Promise<'renewed' | 'replayed' | 'grant_changed'> {
    const details = grant.grant;
    if (!details) return 'grant_changed';
    const next: KeyRecord = {
      ...grant,
      workspace_ids: renewal.workspace_ids,
      scopes: renewal.scopes,
      expires_at: renewal.expires_at,
      grant: { ...details, access: renewal.access, previous_access: renewal.previous_access },
    };
    if (!renewal.previous_access) delete next.grant?.previous_access;
    const removed = grant.removed_workspace_ids ?? [];
    const reached = next.workspace_ids.filter((id) => !removed.includes(id));
    const dropped = grant.workspace_ids.filter((id) => !next.workspace_ids.includes(id));
    const outcome = await transact(this.doc, {
      TransactItems: [
        {
          Put: {
            TableName: this.tableName,
            Item: this.keys.toItem(next),
            // Unrevoked and as it was read: a concurrent exchange, cut-off or revocation is decided again.
            ConditionExpression: [
              'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
              'expires_at = :expires AND scopes = :scopes AND workspace_ids = :workspaces',
              removed.length > 0
                ? 'removed_workspace_ids = :removed'
                : 'attribute_not_exists(removed_workspace_ids)',
            ].join(' AND '),
            ExpressionAttributeValues: {
              ':expires': grant.expires_at,
              ':scopes': grant.scopes,
              ':workspaces': grant.workspace_ids,
              ...(removed.length > 0 && { ':removed': removed }),
            },
          },
        },
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: slotsPk(grant.user_id), sk: SLOTS_SK },
            UpdateExpression: 'SET active.#lineage = :expires',
            ExpressionAttributeNames: { '#lineage': grant.lineage_id },
            ExpressionAttributeValues: { ':expires': next.expires_at },
          },
        },
        this.assertionPut(assertion),
        // The workspace index: an entry per workspace the grant reaches, none for those it no longer does.
        ...reached.map((workspaceId) => ({
          Put: { TableName: this.tableName, Item: entryItem(next, workspaceId, this.retentionDays) },
        })),
        ...dropped.map((workspaceId) => ({
          Delete: {
            TableName: this.tableName,
            Key: { pk: workspacePk(workspaceId), sk: entrySk(grant.created_at, grant.id) },
          },
        })),
        ...this.keys.eventPuts(events, next),
      ],
    });
    if (outcome.ok) return 'renewed';
    const [grantReason, , assertionReason] = outcome.reasons;
    if (failedCondition(assertionReason)) return 'replayed';
    if (failedCondition(grantReason)) return 'grant_changed';
    throw unexpected('renew', outcome.reasons);
  }

  async signalSeen(signal: UsedAssertion): Promise<boolean> {
    const found = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: signalKey(signal), ConsistentRead: true }),
    );
    return found.Item !== undefined;
  }

  async recordSignal(signal: UsedAssertion): Promise<void> {
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: { ...signalKey(signal), ttl: ttlOf(signal.until) } }),
    );
  }
}
