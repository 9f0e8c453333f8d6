import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isRole, type Role } from '#lib/access/scopes';
import type { MembershipReader, MembershipRoles } from '#lib/keys/port';
import type { MembershipLister } from '#lib/oauth/port';
import { batchGet, chunks, type StoredItem } from './batch.ts';
import { queryHint } from './membership-reads.ts';

/** Only what a role check needs; a read is billed by the whole item all the same. */
export const ROLE_PROJECTION = {
  ProjectionExpression: 'sk, #role',
  ExpressionAttributeNames: { '#role': 'role' },
};

/** DynamoDB orders string sort keys by their UTF-8 bytes. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The roles among `items` for the wanted workspaces. An unknown role grants nothing: fail closed. */
export function collectRoles(roles: Map<string, Role>, items: StoredItem[] | undefined, wanted: Set<string>) {
  for (const item of items ?? []) {
    if (typeof item.sk === 'string' && wanted.has(item.sk) && isRole(item.role))
      roles.set(item.sk, item.role);
  }
  return roles;
}

/**
 * The form service's memberships table (`pk` = user id, `sk` = workspace id, `role`), read with
 * strongly consistent reads only: a removed membership or a changed role counts at once.
 */
export class DynamoMemberships implements MembershipReader, MembershipLister {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  /** The primary keys of a user's memberships in `workspaceIds`. */
  keysOf(userId: string, workspaceIds: readonly string[]) {
    return workspaceIds.map((sk) => ({ pk: userId, sk }));
  }

  /** By primary key: BatchGetItems of at most 100, sent together. */
  async rolesFor(userId: string, workspaceIds: readonly string[]): Promise<Map<string, Role>> {
    const unique = [...new Set(workspaceIds)];
    const roles = new Map<string, Role>();
    const reads = await Promise.all(
      chunks(unique).map((ids) =>
        batchGet(this.doc, {
          [this.tableName]: { Keys: this.keysOf(userId, ids), ConsistentRead: true, ...ROLE_PROJECTION },
        }),
      ),
    );
    for (const found of reads) collectRoles(roles, found[this.tableName], new Set(unique));
    return roles;
  }

  /** Every membership of the user (consistent Query pages of their partition). */
  async rolesOf(userId: string): Promise<Map<string, Role>> {
    const roles = new Map<string, Role>();
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :user',
          ExpressionAttributeValues: { ':user': userId },
          ...ROLE_PROJECTION,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? [])
        if (typeof item.sk === 'string' && isRole(item.role)) roles.set(item.sk, item.role);
      start = out.LastEvaluatedKey;
    } while (start);
    return roles;
  }

  /**
   * One consistent Query of the user's memberships from the lowest to the highest of
   * `workspaceIds`, reading at most `maxItems`; workspaces beyond where it stopped are read by key.
   */
  async queryRoles(
    userId: string,
    workspaceIds: readonly string[],
    maxItems: number,
  ): Promise<MembershipRoles> {
    const sorted = [...new Set(workspaceIds)].sort(byteOrder);
    const wanted = new Set(sorted);
    const roles = new Map<string, Role>();
    const [first, last] = [sorted[0], sorted.at(-1)];
    if (first === undefined || last === undefined) return { roles, hint: queryHint(0, false) };
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :user AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: { ':user': userId, ':first': first, ':last': last },
        ...ROLE_PROJECTION,
        ConsistentRead: true,
        Limit: maxItems,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    collectRoles(roles, out.Items, wanted);
    const queryUnits = out.ConsumedCapacity?.CapacityUnits ?? 0;
    const stoppedAt = out.LastEvaluatedKey?.sk;
    if (typeof stoppedAt !== 'string') return { roles, hint: queryHint(queryUnits, false) };
    // It stopped at its bound (or at 1 MB): reading by key is cheaper for this user.
    const rest = sorted.filter((id) => byteOrder(id, stoppedAt) > 0);
    for (const [id, role] of await this.rolesFor(userId, rest)) roles.set(id, role);
    return { roles, hint: queryHint(queryUnits, true) };
  }
}
