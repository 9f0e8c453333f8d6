import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkspaceRules } from '#lib/access/tools';
import type { KeyEvent, WorkspaceEvent } from '#lib/events/model';
import { type KeyRecord, keyStatus } from '#lib/keys/model';
import type { WorkspacePolicy } from '#lib/workspace-policy/rules';
import type {
  CutOff,
  CutOffOutcome,
  CutOffStep,
  EventPosition,
  GovernanceEvent,
  StoredPolicy,
  WorkspaceKey,
  WorkspaceKeysQuery,
  WorkspaceStore,
} from '#lib/workspaces/port';
import { batchGet, chunks } from './batch.ts';
import { conditionParams, itemIsNew, slotItemExists } from './conditions.ts';
import { EVENT_PREFIX, eventItem, fromKeyItem, KEY_SK, keyPk, SLOTS_SK, slotsPk, ttlAfter } from './items.ts';
import { failedCondition, transact } from './transactions.ts';
import { ENTRY_PREFIX, entryItem, entrySk, fromEntryItem, workspacePk } from './workspace-items.ts';
import { readPolicies, readPolicy, workspaceEventItem, writePolicy } from './workspace-policies.ts';
import { writeWorkspaceRules } from './workspace-rules.ts';

/** What a page shows of a key: never its digest (nor a grant's token digests: only its app and IdP). */
const VIEW_FIELDS = [
  'kind',
  'id',
  'user_id',
  'lineage_id',
  'name',
  'key_hint',
  'scopes',
  'workspace_ids',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
  'rotated_from',
  'replaced_by',
  // What the policy fan-out compares (contract §19) and the usage view's unused tools read.
  'tools',
  'workspace_rules',
];
const VIEW_PROJECTION = {
  ProjectionExpression: [...VIEW_FIELDS.map((_, i) => `#v${i}`), '#grant.#client', '#grant.#idp'].join(', '),
  ExpressionAttributeNames: {
    ...Object.fromEntries(VIEW_FIELDS.map((field, i) => [`#v${i}`, field])),
    '#grant': 'grant',
    '#client': 'client',
    '#idp': 'idp',
  },
};

/** A page read to fill a filtered page takes at least this many entries per Query. */
const FILTERED_QUERY_LIMIT = 100;

/**
 * The workspace side of the keys table (`WorkspaceStore`): the index of a workspace's keys, the
 * cut-off's transaction and the governance events. Like the key store, it reports DynamoDB's
 * outcomes as the port's and holds no rule of its own.
 */
export class DynamoWorkspaceStore implements WorkspaceStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly retentionDays: number,
  ) {}

  async entry(workspaceId: string, key: Pick<KeyRecord, 'id' | 'created_at'>) {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: workspacePk(workspaceId), sk: entrySk(key.created_at, key.id) },
        ConsistentRead: true,
      }),
    );
    return out.Item ? fromEntryItem(out.Item) : undefined;
  }

  /** The keys of entries, consistently, by id; a key deleted by TTL is simply absent. */
  private async keysOf(ids: string[]): Promise<Map<string, KeyRecord>> {
    const found = new Map<string, KeyRecord>();
    const reads = await Promise.all(
      chunks([...new Set(ids)]).map((part) =>
        batchGet(this.doc, {
          [this.tableName]: {
            Keys: part.map((id) => ({ pk: keyPk(id), sk: KEY_SK })),
            ConsistentRead: true,
            ...VIEW_PROJECTION,
          },
        }),
      ),
    );
    for (const read of reads)
      for (const item of read[this.tableName] ?? []) found.set(item.id as string, fromKeyItem(item));
    return found;
  }

  async listKeys(workspaceId: string, { limit, after, status, now }: WorkspaceKeysQuery) {
    const items: WorkspaceKey[] = [];
    const byAccess = status && { ':access': status === 'removed' ? 'removed' : 'active' };
    let startKey: Record<string, unknown> | undefined = after && {
      pk: workspacePk(workspaceId),
      sk: entrySk(after.created_at, after.id),
    };
    do {
      const wanted = limit + 1 - items.length;
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entries)',
          ExpressionAttributeValues: {
            ':pk': workspacePk(workspaceId),
            ':entries': ENTRY_PREFIX,
            ...byAccess,
          },
          ...(byAccess && { FilterExpression: 'workspace_access = :access' }),
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: status && status !== 'removed' ? Math.max(wanted, FILTERED_QUERY_LIMIT) : wanted,
          ExclusiveStartKey: startKey,
        }),
      );
      const entries = (out.Items ?? []).map(fromEntryItem);
      const keys = await this.keysOf(entries.map((e) => e.key_id));
      for (const entry of entries) {
        const record = keys.get(entry.key_id);
        if (!record) continue;
        if (status && status !== 'removed' && keyStatus(record, now) !== status) continue;
        items.push({ entry, record });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey && items.length <= limit);
    return { items: items.slice(0, limit), hasMore: items.length > limit };
  }

  /** The actions of one step: the key, its entry, the slot when it is revoked. */
  private stepActions(step: CutOff['steps'][number], cut: CutOff) {
    const { record, revoke, newest } = step;
    const index = record.workspace_ids.indexOf(cut.workspaceId);
    const nowIso = cut.now.toISOString();
    const conditions = [
      `workspace_ids[${index}] = :ws`,
      'size(workspace_ids) = :count',
      ...(newest ? ['attribute_not_exists(replaced_by)'] : []),
      ...(revoke ? ['attribute_not_exists(revoked_at)'] : []),
    ];
    const set = [
      'removed_workspace_ids = list_append(if_not_exists(removed_workspace_ids, :none), :removed)',
    ];
    if (revoke) set.push('revoked_at = :revoked_at', '#ttl = :ttl');
    const remove = [`workspace_ids[${index}]`, ...(revoke ? ['gsi2pk', 'gsi2sk'] : [])];
    return [
      {
        Update: {
          TableName: this.tableName,
          Key: { pk: keyPk(record.id), sk: KEY_SK },
          UpdateExpression: `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ...(revoke && { ExpressionAttributeNames: { '#ttl': 'ttl' } }),
          ExpressionAttributeValues: {
            ':ws': cut.workspaceId,
            ':count': record.workspace_ids.length,
            ':none': [],
            ':removed': [cut.workspaceId],
            ...(revoke && { ':revoked_at': nowIso, ':ttl': ttlAfter(nowIso, this.retentionDays) }),
          },
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...entryItem(record, cut.workspaceId, this.retentionDays),
            workspace_access: 'removed',
            removed_at: nowIso,
            removed_reason: cut.reason,
          },
        },
      },
      ...(revoke
        ? [
            {
              Update: {
                TableName: this.tableName,
                Key: { pk: slotsPk(record.user_id), sk: SLOTS_SK },
                UpdateExpression: 'REMOVE active.#lineage',
                ...conditionParams(slotItemExists, 'ConditionExpression', {
                  names: { '#lineage': record.lineage_id },
                }),
              },
            },
          ]
        : []),
    ];
  }

  /** The events: each in its lineage, and the cut-offs also in the workspace's history. */
  private eventActions(cut: CutOff, steps: CutOffStep[]) {
    const expiresAt = (event: KeyEvent) =>
      steps.find((s) => s.record.id === event.key_id)?.record.expires_at ?? event.occurred_at;
    const put = (Item: Record<string, unknown>) => ({
      Put: { TableName: this.tableName, Item, ...conditionParams(itemIsNew) },
    });
    return cut.events.flatMap((event) => [
      put(eventItem(event, expiresAt(event), this.retentionDays)),
      ...(event.type === 'key.workspace_removed'
        ? [put(workspaceEventItem(event, cut.workspaceId, expiresAt(event), this.retentionDays))]
        : []),
    ]);
  }

  setRules(record: KeyRecord, workspaceId: string, rules: WorkspaceRules | undefined): Promise<void> {
    return writeWorkspaceRules(this.doc, this.tableName, record.id, workspaceId, rules);
  }

  async cutOff(cut: CutOff): Promise<CutOffOutcome> {
    const outcome = await transact(this.doc, {
      TransactItems: [
        ...cut.steps.flatMap((step) => this.stepActions(step, cut)),
        ...this.eventActions(cut, cut.steps),
      ],
    });
    if (outcome.ok) return { kind: 'done' };
    if (outcome.reasons.some(failedCondition)) return { kind: 'changed' };
    throw new Error(
      `cut-off transaction cancelled unexpectedly (reasons: ${outcome.reasons.map((r) => r.code).join(', ')})`,
    );
  }

  policy(workspaceId: string): Promise<StoredPolicy | undefined> {
    return readPolicy(this.doc, this.tableName, workspaceId);
  }

  policiesFor(workspaceIds: readonly string[]): Promise<Map<string, WorkspacePolicy>> {
    return readPolicies(this.doc, this.tableName, workspaceIds);
  }

  putPolicy(
    workspaceId: string,
    next: StoredPolicy,
    previousVersion: number | undefined,
    event: WorkspaceEvent,
  ) {
    return writePolicy(this.doc, this.tableName, this.retentionDays, {
      workspaceId,
      next,
      previousVersion,
      event,
    });
  }

  async listEvents(workspaceId: string, query: { limit: number; after?: EventPosition | undefined }) {
    const items: GovernanceEvent[] = [];
    let startKey: Record<string, unknown> | undefined = query.after && {
      pk: workspacePk(workspaceId),
      sk: `${EVENT_PREFIX}${query.after.occurred_at}#${query.after.id}`,
    };
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :events)',
          ExpressionAttributeValues: { ':pk': workspacePk(workspaceId), ':events': EVENT_PREFIX },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: query.limit + 1 - items.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const { pk: _pk, sk: _sk, ttl: _ttl, ...event } of out.Items ?? [])
        items.push(event as unknown as GovernanceEvent);
      startKey = out.LastEvaluatedKey;
    } while (startKey && items.length <= query.limit);
    return { items: items.slice(0, query.limit), hasMore: items.length > query.limit };
  }
}
