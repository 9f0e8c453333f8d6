import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkspaceEvent } from '#lib/events/model';
import type { WorkspacePolicy } from '#lib/workspace-policy/rules';
import type { GovernanceEvent, StoredPolicy } from '#lib/workspaces/port';
import { batchGet, chunks } from './batch.ts';
import { conditionParams, itemIsNew } from './conditions.ts';
import { EVENT_PREFIX, ttlAfter } from './items.ts';
import { failedCondition, transact } from './transactions.ts';
import { POLICY_SK, workspacePk } from './workspace-items.ts';

/** The stored item of a governance event in its workspace's partition. */
export function workspaceEventItem(
  event: GovernanceEvent,
  workspaceId: string,
  keptFrom: string,
  days: number,
) {
  return {
    ...event,
    pk: workspacePk(workspaceId),
    sk: `${EVENT_PREFIX}${event.occurred_at}#${event.id}`,
    ttl: ttlAfter(keptFrom > event.occurred_at ? keptFrom : event.occurred_at, days),
  };
}

function toPolicy(item: Record<string, unknown>): StoredPolicy {
  return {
    mcp_access: item.mcp_access as StoredPolicy['mcp_access'],
    allowed_scopes: item.allowed_scopes as StoredPolicy['allowed_scopes'],
    max_expiry_days: (item.max_expiry_days as number | null | undefined) ?? null,
    // A policy stored before OAuth has no rule: any app.
    oauth_clients: (item.oauth_clients as StoredPolicy['oauth_clients']) ?? 'any',
    // A policy stored before the rule admits every kind.
    ...(item.credential_kinds !== undefined && {
      credential_kinds: item.credential_kinds as StoredPolicy['credential_kinds'],
    }),
    // A policy stored before the rule allows every tool.
    ...(Array.isArray(item.allowed_tools) && { allowed_tools: item.allowed_tools as string[] }),
    ...(typeof item.max_calls_per_minute === 'number' && { max_calls_per_minute: item.max_calls_per_minute }),
    ...(typeof item.max_calls_per_day === 'number' && { max_calls_per_day: item.max_calls_per_day }),
    updated_at: item.updated_at as string,
    updated_by: item.updated_by as string,
    version: Number(item.version),
  };
}

export async function readPolicy(
  doc: DynamoDBDocumentClient,
  tableName: string,
  workspaceId: string,
): Promise<StoredPolicy | undefined> {
  const out = await doc.send(
    new GetCommand({
      TableName: tableName,
      Key: { pk: workspacePk(workspaceId), sk: POLICY_SK },
      ConsistentRead: true,
    }),
  );
  return out.Item ? toPolicy(out.Item) : undefined;
}

/** The stored policies of the workspaces, by key in one consistent read per 100. */
export async function readPolicies(
  doc: DynamoDBDocumentClient,
  tableName: string,
  workspaceIds: readonly string[],
): Promise<Map<string, WorkspacePolicy>> {
  const found = new Map<string, WorkspacePolicy>();
  const reads = await Promise.all(
    chunks([...new Set(workspaceIds)]).map((part) =>
      batchGet(doc, {
        [tableName]: {
          Keys: part.map((id) => ({ pk: workspacePk(id), sk: POLICY_SK })),
          ConsistentRead: true,
        },
      }),
    ),
  );
  for (const read of reads)
    for (const item of read[tableName] ?? [])
      found.set(String(item.pk).slice(workspacePk('').length), toPolicy(item));
  return found;
}

/** The policy and its event in one transaction, on condition of the version read. */
export async function writePolicy(
  doc: DynamoDBDocumentClient,
  tableName: string,
  retentionDays: number,
  {
    workspaceId,
    next,
    previousVersion,
    event,
  }: {
    workspaceId: string;
    next: StoredPolicy;
    previousVersion: number | undefined;
    event: WorkspaceEvent;
  },
): Promise<'done' | 'changed'> {
  const outcome = await transact(doc, {
    TransactItems: [
      {
        Put: {
          TableName: tableName,
          Item: { ...next, pk: workspacePk(workspaceId), sk: POLICY_SK },
          ...(previousVersion === undefined
            ? conditionParams(itemIsNew)
            : {
                ConditionExpression: 'version = :version',
                ExpressionAttributeValues: { ':version': previousVersion },
              }),
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: workspaceEventItem(event, workspaceId, event.occurred_at, retentionDays),
          ...conditionParams(itemIsNew),
        },
      },
    ],
  });
  if (outcome.ok) return 'done';
  if (failedCondition(outcome.reasons[0])) return 'changed';
  throw new Error(
    `policy transaction cancelled unexpectedly (${outcome.reasons.map((r) => r.code).join(', ')})`,
  );
}
