import { effectiveAccess, type Role, type Scope, type WorkspaceAccess } from '#lib/access/scopes';
import { parseGrantCredential, parseKey } from './format.ts';
import { Lru } from './lru.ts';
import {
  canonicalResource,
  type GrantDetails,
  type KeyRecord,
  keyStatus,
  type TokenDigest,
} from './model.ts';
import { matchesDigest, NO_DIGEST, type PepperSource } from './pepper.ts';
import type {
  KeyReader,
  KeyState,
  MembershipReader,
  MembershipReadHint,
  MembershipRoles,
  VerificationReads,
} from './port.ts';
import { useIsDue } from './rules.ts';

/**
 * A credential that was accepted, with what it may do: enough for an MCP SDK `AuthInfo` (the
 * token, `scopes`, `expiresAt` from `expires_at`; `user_id`, `key_id`, `kind` and `workspaces` as
 * its extras).
 */
export interface ValidResult {
  /** Accepted: the only outcome that lets a request through. */
  outcome: 'valid';
  /** What kind of credential: an MCP API key (`svc_mcp_v1_…`) or an OAuth access token (`svc_mcp_at_v1_…`). */
  kind: 'api_key' | 'oauth';
  /** The key's (or grant's) creator, on whose behalf it acts. */
  user_id: string;
  /** The key's id, or the grant's for an access token. */
  key_id: string;
  /** For an access token: the OAuth client the grant was given to. */
  client_id?: string;
  /** For an access token: the MCP server (RFC 8707 resource) it was issued for. */
  resource?: string;
  /** When the credential expires (ISO 8601): the key's, or the access token's (at most an hour). */
  expires_at: string;
  /** The effective scopes across `workspaces`. */
  scopes: Scope[];
  /** The workspaces the key reaches now, each with the creator's role and the effective scopes. */
  workspaces: WorkspaceAccess[];
}

/**
 * Expected outcomes of a verification are data, never exceptions. `unavailable`: the verification
 * itself failed (DynamoDB or KMS), so the key is not at fault; `createMcpKeyVerifier` answers it,
 * `createKeyVerifier` throws instead.
 */
export type VerifyResult =
  | ValidResult
  | { outcome: 'malformed' }
  | { outcome: 'not_found' }
  | { outcome: 'revoked'; key_id: string }
  | { outcome: 'expired'; key_id: string; expires_at: string }
  | { outcome: 'no_access'; key_id: string }
  /** An OAuth refresh token sent as a bearer credential (contract §15): never accepted. */
  | { outcome: 'refresh_token' }
  /** An access token issued for another MCP server than the verifier's `resource`. */
  | { outcome: 'wrong_resource'; key_id: string }
  | { outcome: 'unavailable' };

/**
 * One write of a key's `last_used_at` (at most one a minute per key): `recorded`, `already_recorded`
 * when another verification recorded a use within the minute, or `failed` (a failed write never
 * denies a valid key).
 */
export type KeyUse =
  | { key_id: string; at: string; outcome: 'recorded' | 'already_recorded' }
  | { key_id: string; at: string; outcome: 'failed'; error: unknown };

/**
 * What `createKeyVerifier` needs, each injected: the key and membership reads (a store's, or
 * yours), the pepper source and the clock. `createMcpKeyVerifier` builds them from its options.
 */
export interface VerifierDeps {
  /** Reads a key by id and records its uses. */
  keys: KeyReader;
  /** Reads the creator's current roles. */
  memberships: MembershipReader;
  /**
   * Reads shaped for verification. With them, the verifier keeps the immutable parts of each key
   * it verified and verifies that key again in one round trip; without, every verification reads
   * the key first and the memberships after.
   */
  reads?: VerificationReads;
  /** Verified keys kept in memory; the least recently used is forgotten first. @default 5000 */
  cacheSize?: number;
  /**
   * The MCP server (its canonical URL, RFC 8707) this verifier guards: an access token issued for
   * another one is refused (`wrong_resource`). Without it, access tokens for any of the
   * deployment's MCP servers are accepted, as keys are. @default none
   */
  resource?: string | undefined;
  /** The pepper of each version the keys were digested with. */
  peppers: PepperSource;
  /** The clock expiry and last use are judged by. */
  now: () => Date;
  /** Called when recording last use fails; a failed bookkeeping write never denies a valid key. */
  onUseRecordError?: (err: unknown) => void;
  /** Told of every last-use write once it settled; what it throws is ignored. */
  onUse?: (use: KeyUse) => void;
}

export const DEFAULT_VERIFIER_CACHE_SIZE = 5000;

/**
 * What the verifier keeps of a key whose digest matched: the fields that never change, plus two
 * hints that only save work (the last use as last read, and the store's hint on how to read this
 * key's memberships more cheaply). Nothing here decides an outcome on its own: every verification
 * reads the key's state and the memberships again.
 */
type VerifiedKey = Pick<
  KeyRecord,
  'id' | 'user_id' | 'workspace_ids' | 'scopes' | 'digest' | 'pepper_version' | 'expires_at' | 'last_used_at'
> & {
  read_hint?: MembershipReadHint | undefined;
  /** For a grant: the access token that matched (its digest and expiry), its client and resource. */
  token?: TokenDigest & { client_id: string; resource: string };
};

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

const MALFORMED: VerifyResult = { outcome: 'malformed' };
const NOT_FOUND: VerifyResult = { outcome: 'not_found' };
const REFRESH_TOKEN: VerifyResult = { outcome: 'refresh_token' };

/** Revoked and expired are told only to whoever holds the whole secret (contract §7). */
const refused = (status: 'revoked' | 'expired', key: Pick<KeyRecord, 'id' | 'expires_at'>): VerifyResult =>
  status === 'revoked'
    ? { outcome: 'revoked', key_id: key.id }
    : { outcome: 'expired', key_id: key.id, expires_at: key.expires_at };

/**
 * The verification over its ports (contract §6), for tests and custom storage; a failing port
 * throws (`createMcpKeyVerifier` wires the DynamoDB and KMS adapters and answers `unavailable`
 * instead). Parse and checksum with no I/O, one consistent read by id, constant-time digest
 * compare, status, then the creator's current memberships (read alongside the throttled last-use
 * write), and the effective access. A key verified before
 * (its digest matched) is verified warm: the presented key is compared with the kept digest and
 * one request reads the key's state and the memberships together, so a revocation, a removed
 * membership or a changed role is seen on the very next call.
 */
export function createKeyVerifier(deps: VerifierDeps): (rawKey: unknown) => Promise<VerifyResult> {
  const verified = new Lru<string, VerifiedKey>(deps.cacheSize ?? DEFAULT_VERIFIER_CACHE_SIZE);
  // Serialized once, not on every access token's verification.
  const ownResource = deps.resource === undefined ? undefined : canonicalResource(deps.resource);

  const tell = (use: KeyUse) => {
    try {
      // Stryker disable next-line OptionalChaining: equivalent, calling a missing hook throws into the catch below, as an observer's failure does
      deps.onUse?.(use);
    } catch {
      // An observer's failure is not the verification's.
    }
  };

  const recordUse = (id: string, now: Date) => {
    const at = now.toISOString();
    return deps.keys.recordUse(id, now).then(
      (wrote) => tell({ key_id: id, at, outcome: wrote ? 'recorded' : 'already_recorded' }),
      (err: unknown) => {
        deps.onUseRecordError?.(err);
        tell({ key_id: id, at, outcome: 'failed', error: err });
      },
    );
  };

  const readMemberships = async (
    userId: string,
    workspaceIds: readonly string[],
  ): Promise<MembershipRoles> =>
    deps.reads
      ? deps.reads.readMemberships(userId, workspaceIds, undefined)
      : { roles: await deps.memberships.rolesFor(userId, workspaceIds) };

  /** Keeps what the store learned about reading this key's memberships, for the next call. */
  function learn(kept: VerifiedKey, result: MembershipRoles): void {
    if (result.hint) kept.read_hint = result.hint;
  }

  function grant(key: VerifiedKey, roles: Map<string, Role>): VerifyResult {
    const workspaces = effectiveAccess(key.workspace_ids, key.scopes, roles);
    if (workspaces.length === 0) return { outcome: 'no_access', key_id: key.id };
    const scopes = [...new Set(workspaces.flatMap((w) => w.scopes))];
    if (key.token)
      return {
        outcome: 'valid',
        kind: 'oauth',
        user_id: key.user_id,
        key_id: key.id,
        client_id: key.token.client_id,
        resource: key.token.resource,
        expires_at: key.token.until,
        scopes,
        workspaces,
      };
    return {
      outcome: 'valid',
      kind: 'api_key',
      user_id: key.user_id,
      key_id: key.id,
      expires_at: key.expires_at,
      scopes,
      workspaces,
    };
  }

  /** The grant's access token (current, or replaced within its grace) that `token` is; undefined for none. */
  async function accessTokenOf(
    record: KeyRecord,
    token: string,
  ): Promise<(TokenDigest & { client_id: string; resource: string }) | undefined> {
    // Stryker disable next-line ConditionalExpression: equivalent, a record holds `grant` exactly when its kind is oauth_grant (lib/keys/model.ts)
    const details = record.kind === 'oauth_grant' ? record.grant : undefined;
    const candidates = [details?.access, details?.previous_access].filter((t): t is TokenDigest => !!t);
    for (const candidate of candidates.length > 0 ? candidates : [undefined]) {
      const digest = candidate?.digest ?? NO_DIGEST;
      const pepperVersion = candidate ? record.pepper_version : deps.peppers.currentVersion;
      if ((await matchesDigest(deps.peppers, token, { digest, pepperVersion })) && candidate && details)
        return { ...candidate, client_id: details.client.id, resource: details.resource };
    }
    return undefined;
  }

  /** Why an access token that matched is refused before any membership is read, if it is. */
  function tokenRefusal(record: Pick<KeyRecord, 'id'>, token: TokenDigest & { resource: string }, now: Date) {
    if (token.until <= now.toISOString())
      return { outcome: 'expired', key_id: record.id, expires_at: token.until } as const;
    if (ownResource !== undefined && canonicalResource(token.resource) !== ownResource)
      return { outcome: 'wrong_resource', key_id: record.id } as const;
    return undefined;
  }

  async function cold(id: string, presented: string, asToken: boolean): Promise<VerifyResult> {
    const record = await deps.keys.get(id);
    if (!record) {
      // An unknown id costs the same digest and comparison as a wrong secret (with the current
      // pepper, derived on first use just the same), so timing tells little about which ids exist.
      await matchesDigest(deps.peppers, presented, {
        digest: NO_DIGEST,
        pepperVersion: deps.peppers.currentVersion,
      });
      return NOT_FOUND;
    }
    // A grant's `digest` is empty: no key matches it, and an access token matches only the grant's tokens.
    const token = asToken ? await accessTokenOf(record, presented) : undefined;
    const matches = asToken
      ? token !== undefined
      : await matchesDigest(deps.peppers, presented, {
          digest: record.digest,
          pepperVersion: record.pepper_version,
        });
    // A wrong secret for an existing id answers exactly like an unknown id.
    if (!matches) return NOT_FOUND;
    const now = deps.now();
    const status = keyStatus(record, now);
    if (status !== 'active') {
      // Stryker disable next-line CallExpression: equivalent, cold runs for a kept key only after warm forgot it
      verified.delete(record.id);
      return refused(status, record);
    }
    const refusal = token && tokenRefusal(record, token, now);
    if (refusal) return refusal;
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
      readMemberships(record.user_id, record.workspace_ids),
      due ? recordUse(record.id, now) : undefined,
    ]);
    learn(kept, memberships);
    // Kept only once granted: an item that cannot be read as a key (a field lost) throws in
    // `grant` and is never kept, so the next call reads it from scratch again.
    const result = grant(kept, memberships.roles);
    // Stryker disable next-line ConditionalExpression: equivalent, without reads nothing kept is ever read back
    if (deps.reads) verified.set(record.id, kept);
    return result;
  }

  /** The kept access token as the grant stores it now (its grace may have begun); undefined when gone. */
  const storedToken = (kept: TokenDigest, details: GrantDetails | undefined) =>
    // Stryker disable next-line OptionalChaining: equivalent, a kept token's item is a grant's, which always holds `grant` (lib/keys/model.ts)
    [details?.access, details?.previous_access].find((t) => t?.digest === kept.digest);

  /** Undefined when the stored key no longer matches what was kept: verify it cold. */
  async function warm(reads: VerificationReads, kept: VerifiedKey): Promise<VerifyResult | undefined> {
    const now = deps.now();
    // The hint moves first, so concurrent verifications of one key send one last-use write.
    const due = useIsDue(kept.last_used_at, now);
    if (due) kept.last_used_at = now.toISOString();
    const [state] = await Promise.all([
      reads.readKeyAndMemberships(kept.id, kept.user_id, kept.workspace_ids, kept.read_hint),
      due ? recordUse(kept.id, now) : undefined,
    ]);
    const token = kept.token && state.key && storedToken(kept.token, state.key.grant);
    if (!state.key || !unchanged(kept, state.key) || (kept.token && !token)) {
      verified.delete(kept.id);
      // A missing item (TTL deletion) is an unknown key; a changed one is verified from scratch.
      return state.key ? undefined : NOT_FOUND;
    }
    kept.workspace_ids = state.key.workspace_ids;
    kept.last_used_at = later(kept.last_used_at, state.key.last_used_at);
    learn(kept, state);
    const status = keyStatus(state.key, now);
    if (status !== 'active') {
      verified.delete(kept.id);
      return refused(status, kept);
    }
    // Stryker disable next-line LogicalOperator: equivalent, `token` is only ever set when `kept.token` is
    if (kept.token && token) {
      kept.token.until = token.until;
      const refusal = tokenRefusal(kept, kept.token, now);
      if (refusal) return refusal;
    }
    return grant(kept, state.roles);
  }

  return async (rawKey) => {
    const parsed = parseKey(rawKey);
    const credential = parsed.ok ? undefined : parseGrantCredential(rawKey);
    if (credential && (!credential.ok || credential.kind === 'authorization_code')) return MALFORMED;
    if (credential?.kind === 'refresh_token') return REFRESH_TOKEN;
    const id = parsed.ok ? parsed.id : (credential as { id: string }).id;
    const presented = parsed.ok ? parsed.apiKey : (credential as { token: string }).token;
    const asToken = !parsed.ok;
    const kept = deps.reads && verified.get(id);
    const keptDigest = kept && (asToken ? kept.token?.digest : kept.token ? undefined : kept.digest);
    if (
      kept &&
      keptDigest !== undefined &&
      (await matchesDigest(deps.peppers, presented, {
        digest: keptDigest,
        pepperVersion: kept.pepper_version,
      }))
    ) {
      const result = await warm(deps.reads as VerificationReads, kept);
      if (result) return result;
    }
    // Unknown here, a wrong secret (answered like an unknown id, after the same read) or changed.
    return cold(id, presented, asToken);
  };
}
