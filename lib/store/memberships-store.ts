import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isRole, type Role } from '#lib/access/scopes';
import type { MembershipReader } from '#lib/keys/port';
import { DependencyError } from './dependency.ts';

const BATCH_LIMIT = 100;
const MAX_ROUNDS = 5;

export class DynamoMemberships implements MembershipReader {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async rolesFor(userId: string, workspaceIds: readonly string[]): Promise<Map<string, Role>> {
    const roles = new Map<string, Role>();
    const unique = [...new Set(workspaceIds)];
    for (let i = 0; i < unique.length; i += BATCH_LIMIT) {
      let keys: Record<string, unknown>[] = unique
        .slice(i, i + BATCH_LIMIT)
        .map((sk) => ({ pk: userId, sk }));
      for (let round = 0; keys.length > 0; round++) {
        if (round === MAX_ROUNDS) throw new DependencyError('memberships read left unprocessed keys');
        if (round > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** round));
        const out = await this.doc.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[this.tableName] ?? []) {
          // An unknown role grants nothing: fail closed on data we do not understand.
          if (typeof item.sk === 'string' && isRole(item.role)) roles.set(item.sk, item.role);
        }
        keys = (out.UnprocessedKeys?.[this.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
    }
    return roles;
  }
}
