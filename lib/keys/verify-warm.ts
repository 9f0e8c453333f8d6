import { type GrantDetails, keyStatus, type TokenDigest } from './model.ts';
import type { KeyState, VerificationReads } from './port.ts';
import { useIsDue } from './rules.ts';
import {
  grant,
  keptKind,
  learn,
  NOT_FOUND,
  recordUse,
  refused,
  tokenRefusal,
  type Verified,
  type VerifiedKey,
  type VerifierState,
} from './verifier-state.ts';

const KEPT_SCALARS = ['user_id', 'digest', 'pepper_version', 'expires_at'] as const;
const sameList = (a: readonly string[], b: readonly string[] | undefined) =>
  b !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Whether the stored key still has the fields the verifier kept (a restore or a fix could change
 * them). Its workspace list may have shrunk (a cut-off, contract §12): that is read on every call
 * and kept, since the memberships were read for a superset of it.
 */
const unchanged = (kept: VerifiedKey, state: KeyState) =>
  KEPT_SCALARS.every((field) => kept[field] === state[field]) &&
  subsetOf(state.workspace_ids, kept.workspace_ids) &&
  sameList(kept.scopes, state.scopes);

const subsetOf = (stored: readonly string[] | undefined, kept: readonly string[]) =>
  stored?.every((id) => kept.includes(id)) === true;

// Stryker disable next-line EqualityOperator: equivalent for a >= b (equal strings, same answer); the flip to <= is killed by test/unit/verify-last-use.test.ts
const later = (a: string | undefined, b: string | undefined) => (!a ? b : !b || a > b ? a : b);

/** The kept access token as the grant stores it now (its grace may have begun); undefined when gone. */
const storedToken = (kept: TokenDigest, details: GrantDetails | undefined) =>
  // Stryker disable next-line OptionalChaining: equivalent, a kept token's item is a grant's, which always holds `grant` (lib/keys/model.ts)
  [details?.access, details?.previous_access].find((t) => t?.digest === kept.digest);

/**
 * A key kept from an earlier verification, whose kept digest the presented one matched: one request
 * reads the key's state and the memberships together, so a revocation, a removed membership or a
 * changed role is seen on the very next call. Undefined when the stored key no longer matches what
 * was kept: verify it cold.
 */
export async function verifyWarm(
  verifier: VerifierState,
  reads: VerificationReads,
  kept: VerifiedKey,
): Promise<Verified | undefined> {
  const { deps, verified } = verifier;
  const now = deps.now();
  // The hint moves first, so concurrent verifications of one key send one last-use write.
  const due = useIsDue(kept.last_used_at, now);
  if (due) kept.last_used_at = now.toISOString();
  const [state] = await Promise.all([
    reads.readKeyAndMemberships(kept.id, kept.user_id, kept.workspace_ids, kept.read_hint),
    due ? recordUse(verifier, kept.id, now) : undefined,
  ]);
  const token = kept.token && state.key && storedToken(kept.token, state.key.grant);
  if (!state.key || !unchanged(kept, state.key) || (kept.token && !token)) {
    verified.delete(kept.id);
    // A missing item (TTL deletion) is an unknown key; a changed one is verified from scratch.
    return state.key ? undefined : { result: NOT_FOUND };
  }
  const named = { kind: keptKind(kept), userId: kept.user_id };
  kept.workspace_ids = state.key.workspace_ids;
  kept.last_used_at = later(kept.last_used_at, state.key.last_used_at);
  learn(kept, state);
  const status = keyStatus(state.key, now);
  if (status !== 'active') {
    verified.delete(kept.id);
    return { result: refused(status, kept), ...named };
  }
  // Stryker disable next-line LogicalOperator: equivalent, `token` is only ever set when `kept.token` is
  if (kept.token && token) {
    kept.token.until = token.until;
    const refusal = tokenRefusal(verifier, kept, kept.token, now);
    if (refusal) return { result: refusal, ...named };
  }
  const narrowing = state.key;
  return { result: grant(verifier, kept, state.roles, narrowing), ...named, narrowing };
}
