import type { MembershipReadHint } from '#lib/keys/port';

/**
 * How a verification reads a creator's memberships, by DynamoDB's read-unit pricing. By key,
 * every item is billed at least one read unit (a key with N workspaces costs N); a consistent
 * Query is billed by the total size read, 4 KB per unit, and a membership item (user id,
 * workspace id, role) is about 100 bytes, so one unit covers about 40 of a creator's memberships.
 * Which is cheaper depends on the creator, so it is learned per key: a key with few workspaces is
 * read by key; otherwise a Query, bounded so it never reads more than reading by key would cost,
 * tells what a Query costs for this key (the hint the verifier keeps), and later verifications
 * take the cheaper of the two.
 */
export const QUERY_FROM_WORKSPACES = 3;
export const MEMBERSHIPS_PER_READ_UNIT = 40;

/**
 * `batch`: each of the key's workspaces by primary key (one BatchGetItem). `query`: one consistent
 * Query of the creator's memberships between the key's lowest and highest workspace id, reading
 * at most `maxItems` items; workspaces the Query did not reach are read by key.
 */
export type MembershipRead = { kind: 'batch' } | { kind: 'query'; maxItems: number };

/** What this adapter keeps in a hint: the read units a Query cost (Infinity: it ran over its bound). */
interface QueryCost {
  queryUnits: number;
}

/** How to read the memberships of a key with `workspaceCount` workspaces, given the last hint. */
export function membershipRead(workspaceCount: number, hint: MembershipReadHint | undefined): MembershipRead {
  const queryUnits = (hint as QueryCost | undefined)?.queryUnits;
  const query =
    queryUnits === undefined ? workspaceCount >= QUERY_FROM_WORKSPACES : queryUnits < workspaceCount;
  return query ? { kind: 'query', maxItems: workspaceCount * MEMBERSHIPS_PER_READ_UNIT } : { kind: 'batch' };
}

/** The hint after a Query that cost `queryUnits` (or stopped at its bound). */
export const queryHint = (queryUnits: number, exceeded: boolean): MembershipReadHint =>
  ({
    queryUnits: exceeded ? Number.POSITIVE_INFINITY : queryUnits,
  }) satisfies QueryCost as unknown as MembershipReadHint;
