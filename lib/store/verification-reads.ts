import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '#lib/access/scopes';
import type { KeyState, MembershipReadHint, MembershipRoles, VerificationReads } from '#lib/keys/port';
import { BATCH_GET_LIMIT, batchGet, chunks } from './batch.ts';
import { KEY_SK, keyPk } from './key-item.ts';
import { membershipRead } from './membership-reads.ts';
import { collectRoles, type DynamoMemberships, ROLE_PROJECTION } from './memberships-store.ts';

/**
 * The key verifier's reads (the `VerificationReads` port): the key's state and the creator's
 * memberships in one round trip, consistently. For `batch`, a single BatchGetItem across the
 * keys table and the memberships table, which is one DynamoDB call for a key with up to 99
 * workspaces; for `query`, a GetItem and a Query sent together (two calls, one round trip).
 * Which of the two, by read-unit pricing: `membership-reads.ts`.
 *
 * The key's item, ours, is read whole: a projection would save no read unit (DynamoDB charges
 * the item's size) and costs an expression to parse on every call. The memberships, the form
 * service's table, whose items may hold more than we need, are read for the role alone.
 */
export class DynamoVerificationReads implements VerificationReads {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly keysTable: string,
    private readonly memberships: DynamoMemberships,
  ) {
    if (keysTable === memberships.tableName) throw new Error('the keys and memberships tables must differ');
  }

  readMemberships(
    userId: string,
    workspaceIds: readonly string[],
    hint: MembershipReadHint | undefined,
  ): Promise<MembershipRoles> {
    const read = membershipRead(workspaceIds.length, hint);
    return read.kind === 'query'
      ? this.memberships.queryRoles(userId, workspaceIds, read.maxItems)
      : this.memberships.rolesFor(userId, workspaceIds).then((roles) => ({ roles }));
  }

  async readKeyAndMemberships(
    keyId: string,
    userId: string,
    workspaceIds: readonly string[],
    hint: MembershipReadHint | undefined,
  ): Promise<MembershipRoles & { key: KeyState | undefined }> {
    const read = membershipRead(workspaceIds.length, hint);
    const keyItem = { pk: keyPk(keyId), sk: KEY_SK };
    if (read.kind === 'query') {
      const [found, memberships] = await Promise.all([
        this.doc.send(
          new GetCommand({
            TableName: this.keysTable,
            Key: keyItem,
            ConsistentRead: true,
          }),
        ),
        this.memberships.queryRoles(userId, workspaceIds, read.maxItems),
      ]);
      return { ...memberships, key: found.Item as KeyState | undefined };
    }
    const unique = [...new Set(workspaceIds)];
    const [together, ...rest] = chunks(unique, BATCH_GET_LIMIT - 1);
    const membershipsTable = this.memberships.tableName;
    const [found, roles] = await Promise.all([
      batchGet(this.doc, {
        [this.keysTable]: { Keys: [keyItem], ConsistentRead: true },
        ...(together && {
          [membershipsTable]: {
            Keys: this.memberships.keysOf(userId, together),
            ConsistentRead: true,
            ...ROLE_PROJECTION,
          },
        }),
      }),
      // Only a key with more than 99 workspaces needs more than the one request.
      rest.length > 0 ? this.memberships.rolesFor(userId, rest.flat()) : new Map<string, Role>(),
    ]);
    collectRoles(roles, found[membershipsTable], new Set(unique));
    return { roles, key: found[this.keysTable]?.[0] as KeyState | undefined };
  }
}
