import { credentialKind, type KeyRecord, keyStatus, type TokenDigest } from './model.ts';
import { matchesDigest, NO_DIGEST } from './pepper.ts';
import type { MembershipRoles } from './port.ts';
import { useIsDue } from './rules.ts';
import {
  grant,
  learn,
  NOT_FOUND,
  recordUse,
  refused,
  tokenRefusal,
  type Verified,
  type VerifiedKey,
  type VerifierState,
} from './verifier-state.ts';

/** The creator's roles in the key's workspaces, with the store's hint when it reads them shaped for verification. */
const readMemberships = async (
  { deps }: VerifierState,
  userId: string,
  workspaceIds: readonly string[],
): Promise<MembershipRoles> =>
  deps.reads
    ? deps.reads.readMemberships(userId, workspaceIds, undefined)
    : { roles: await deps.memberships.rolesFor(userId, workspaceIds) };

/** The grant's access token (current, or replaced within its grace) that `token` is; undefined for none. */
async function accessTokenOf(
  { deps }: VerifierState,
  record: KeyRecord,
  token: string,
): Promise<(TokenDigest & { client_id: string; resource: string; idp?: string | undefined }) | undefined> {
  // Stryker disable next-line ConditionalExpression: equivalent, a record holds `grant` exactly when it has a kind (a grant) (lib/keys/model.ts)
  const details = record.kind ? record.grant : undefined;
  const candidates = [details?.access, details?.previous_access].filter((t): t is TokenDigest => !!t);
  for (const candidate of candidates.length > 0 ? candidates : [undefined]) {
    const digest = candidate?.digest ?? NO_DIGEST;
    const pepperVersion = candidate ? record.pepper_version : deps.peppers.currentVersion;
    if ((await matchesDigest(deps.peppers, token, { digest, pepperVersion })) && candidate && details)
      return { ...candidate, client_id: details.client.id, resource: details.resource, idp: details.idp };
  }
  return undefined;
}

/**
 * A key not kept, or kept but changed: one consistent read by id, the digest compared in constant
 * time, the status, then the memberships (read alongside the throttled last-use write). A key that
 * is granted is kept, for the warm path. The outcome comes with the kind of credential it names.
 */
export async function verifyCold(
  verifier: VerifierState,
  id: string,
  presented: string,
  asToken: boolean,
): Promise<Verified> {
  const { deps, verified } = verifier;
  const record = await deps.keys.get(id);
  if (!record) {
    // An unknown id costs the same digest and comparison as a wrong secret (with the current
    // pepper, derived on first use just the same), so timing tells little about which ids exist.
    await matchesDigest(deps.peppers, presented, {
      digest: NO_DIGEST,
      pepperVersion: deps.peppers.currentVersion,
    });
    return { result: NOT_FOUND };
  }
  // A grant's `digest` is empty: no key matches it, and an access token matches only the grant's tokens.
  const token = asToken ? await accessTokenOf(verifier, record, presented) : undefined;
  const matches = asToken
    ? token !== undefined
    : await matchesDigest(deps.peppers, presented, {
        digest: record.digest,
        pepperVersion: record.pepper_version,
      });
  // A wrong secret for an existing id answers exactly like an unknown id.
  if (!matches) return { result: NOT_FOUND };
  const named = { kind: credentialKind(record), userId: record.user_id };
  const now = deps.now();
  const status = keyStatus(record, now);
  if (status !== 'active') {
    // Stryker disable next-line CallExpression: equivalent, cold runs for a kept key only after warm forgot it
    verified.delete(record.id);
    return { result: refused(status, record), ...named };
  }
  const refusal = token && tokenRefusal(verifier, record, token, now);
  if (refusal) return { result: refusal, ...named };
  const due = useIsDue(record.last_used_at, now);
  const kept: VerifiedKey = {
    id: record.id,
    user_id: record.user_id,
    workspace_ids: record.workspace_ids,
    scopes: record.scopes,
    digest: record.digest,
    pepper_version: record.pepper_version,
    expires_at: record.expires_at,
    last_used_at: due ? now.toISOString() : record.last_used_at,
    // Stryker disable next-line ConditionalExpression: equivalent for `true` (a key's `token: undefined` reads as none); `false` is killed by test/unit/verify-grants.test.ts
    ...(token && { token }),
  };
  const [memberships] = await Promise.all([
    readMemberships(verifier, record.user_id, record.workspace_ids),
    due ? recordUse(verifier, record.id, now) : undefined,
  ]);
  learn(kept, memberships);
  // Kept only once granted: an item that cannot be read as a key (a field lost) throws in
  // `grant` and is never kept, so the next call reads it from scratch again.
  const result = grant(verifier, kept, memberships.roles, record);
  // Stryker disable next-line ConditionalExpression: equivalent, without reads nothing kept is ever read back
  if (deps.reads) verified.set(record.id, kept);
  return { result, ...named, narrowing: record };
}
