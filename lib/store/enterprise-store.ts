import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { AccountDisabledOutcome, InsertOutcome, PersonDisabled } from '#lib/keys/port';
import type { LineageSlots } from '#lib/keys/rules';
import type { EnterpriseGrantKey, EnterpriseRenewal, EnterpriseStore, UsedAssertion } from '#lib/oauth/port';
import { conditionParams, itemIsNew, personEnabled } from './conditions.ts';
import { disabledOf, SLOTS_SK, slotsPk, ttlAfter } from './items.ts';
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
 * | current grant | `ENTERPRISE_GRANT#<sha256(person, app, MCP server, IdP)>` | `CURRENT` | as long as its grant |
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
const currentKey = ({ userId, clientId, resource, idp }: EnterpriseGrantKey) => ({
  pk: `ENTERPRISE_GRANT#${createHash('sha256').update([userId, clientId, resource, idp].join('\0')).digest('base64url')}`,
  sk: 'CURRENT',
});

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

  async currentGrantId(key: EnterpriseGrantKey): Promise<string | undefined> {
    const found = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: currentKey(key), ConsistentRead: true }),
    );
    return typeof found.Item?.grant_id === 'string' ? found.Item.grant_id : undefined;
  }

  /** The put naming `grant` the current one of `key`, kept as long as the grant is. */
  private currentPut(key: EnterpriseGrantKey, grant: KeyRecord) {
    return {
      TableName: this.tableName,
      Item: { ...currentKey(key), grant_id: grant.id, ttl: ttlAfter(grant.expires_at, this.retentionDays) },
    };
  }

  insert(
    grant: KeyRecord,
    maxSlots: number,
    events: readonly KeyEvent[],
    assertion: UsedAssertion,
    current: { key: EnterpriseGrantKey; replacing: string | undefined },
  ): Promise<InsertOutcome | { kind: 'replayed' } | { kind: 'raced' }> {
    const pointer = {
      Put: {
        ...this.currentPut(current.key, grant),
        ConditionExpression:
          current.replacing === undefined ? 'attribute_not_exists(pk)' : 'grant_id = :replacing',
        ...(current.replacing !== undefined && {
          ExpressionAttributeValues: { ':replacing': current.replacing },
        }),
      },
    };
    return this.keys.insertWith(
      grant,
      maxSlots,
      events,
      [this.assertionPut(assertion), pointer],
      (reasons) => (failedCondition(reasons[0]) ? { kind: 'replayed' as const } : { kind: 'raced' as const }),
    );
  }

  /**
   * The renewed grant's update: what a renewal changes, not a put, so a use recorded meanwhile
   * (`last_used_at`) stays; on condition the grant is unrevoked and as it was read (a concurrent
   * exchange, cut-off or revocation is decided again).
   */
  private renewedGrant(grant: KeyRecord, next: KeyRecord) {
    const removed = grant.removed_workspace_ids ?? [];
    const item = this.keys.toItem(next);
    const renewed = [
      'workspace_ids',
      'scopes',
      'workspace_rules',
      'expires_at',
      'grant',
      'gsi2pk',
      'gsi2sk',
      'ttl',
    ];
    return {
      Update: {
        TableName: this.tableName,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: `SET ${renewed.map((_, i) => `#r${i} = :r${i}`).join(', ')}`,
        ConditionExpression: [
          'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
          'expires_at = :expires AND scopes = :scopes AND workspace_ids = :workspaces',
          removed.length > 0
            ? 'removed_workspace_ids = :removed'
            : 'attribute_not_exists(removed_workspace_ids)',
        ].join(' AND '),
        ExpressionAttributeNames: Object.fromEntries(renewed.map((name, i) => [`#r${i}`, name])),
        ExpressionAttributeValues: {
          ...Object.fromEntries(renewed.map((name, i) => [`:r${i}`, item[name]])),
          ':expires': grant.expires_at,
          ':scopes': grant.scopes,
          ':workspaces': grant.workspace_ids,
          ...(removed.length > 0 && { ':removed': removed }),
        },
      },
    };
  }

  async renew(
    grant: KeyRecord,
    renewal: EnterpriseRenewal,
    assertion: UsedAssertion,
    key: EnterpriseGrantKey,
  ): Promise<'renewed' | 'replayed' | 'grant_changed' | AccountDisabledOutcome> {
    if (!grant.grant) return 'grant_changed';
    const { previous_access: _replaced, ...details } = grant.grant;
    const next: KeyRecord = {
      ...grant,
      workspace_ids: renewal.workspace_ids,
      scopes: renewal.scopes,
      workspace_rules: renewal.workspace_rules ?? {},
      expires_at: renewal.expires_at,
      grant: {
        ...details,
        access: renewal.access,
        ...(renewal.previous_access && { previous_access: renewal.previous_access }),
      },
    };
    // Stryker disable next-line ArrayDeclaration: equivalent, no workspace id is a made-up one
    const removed = grant.removed_workspace_ids ?? [];
    const reached = next.workspace_ids.filter((id) => !removed.includes(id));
    const dropped = grant.workspace_ids.filter((id) => !next.workspace_ids.includes(id));
    const outcome = await transact(this.doc, {
      TransactItems: [
        this.renewedGrant(grant, next),
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: slotsPk(grant.user_id), sk: SLOTS_SK },
            UpdateExpression: 'SET active.#lineage = :expires',
            ConditionExpression: personEnabled.expression,
            ExpressionAttributeNames: { '#lineage': grant.lineage_id },
            ExpressionAttributeValues: { ':expires': next.expires_at, ...personEnabled.values },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        this.assertionPut(assertion),
        // Still the current grant, kept as long as it now is.
        { Put: this.currentPut(key, next) },
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
      ],
    });
    if (outcome.ok) return 'renewed';
    const [grantReason, personReason, assertionReason] = outcome.reasons;
    // Stryker disable next-line OptionalChaining: equivalent, a reason whose condition failed is there
    const disabled = failedCondition(personReason) ? disabledOf(personReason?.item) : undefined;
    // Stryker disable next-line StringLiteral: equivalent, the exchange tells this outcome by its being an object (lib/oauth/enterprise-grants.ts)
    if (disabled) return { kind: 'account_disabled', disabled };
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

  disablePerson(userId: string, mark: PersonDisabled): Promise<void> {
    return this.keys.slotItems.disable(userId, mark);
  }

  enablePerson(userId: string, issuer: string): Promise<boolean> {
    return this.keys.slotItems.enable(userId, issuer);
  }

  heldSlots(userId: string): Promise<LineageSlots> {
    return this.keys.slotItems.held(userId);
  }

  async recordSignal(signal: UsedAssertion): Promise<void> {
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: { ...signalKey(signal), ttl: ttlOf(signal.until) } }),
    );
  }
}
