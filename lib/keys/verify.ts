import { effectiveAccess, type Role, type Scope, type WorkspaceAccess } from '#lib/access/scopes';
import { parseKey } from './format.ts';
import { Lru } from './lru.ts';
import { type KeyRecord, keyStatus } from './model.ts';
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
  outcome: 'valid';
  /** What kind of credential: an MCP API key (`svc_mcp_v1_…`). */
  kind: 'api_key';
  /** The key's creator, on whose behalf it acts. */
  user_id: string;
  key_id: string;
  /** When the key expires (ISO 8601). */
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
  | { outcome: 'unavailable' };

/**
 * One write of a key's `last_used_at` (at most one a minute per key): `recorded`, `already_recorded`
 * when another verification recorded a use within the minute, or `failed` (a failed write never
 * denies a valid key).
 */
export type KeyUse =
  | { key_id: string; at: string; outcome: 'recorded' | 'already_recorded' }
  | { key_id: string; at: string; outcome: 'failed'; error: unknown };

export interface VerifierDeps {
  keys: KeyReader;
  memberships: MembershipReader;
  /**
   * Reads shaped for verification. With them, the verifier keeps the immutable parts of each key
   * it verified and verifies that key again in one round trip; without, every verification reads
   * the key first and the memberships after.
   */
  reads?: VerificationReads;
  /** Verified keys kept in memory; the least recently used is forgotten first. @default 5000 */
  cacheSize?: number;
  peppers: PepperSource;
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
> & { read_hint?: MembershipReadHint | undefined };

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

  const tell = (use: KeyUse) => {
    try {
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

  async function cold(id: string, apiKey: string): Promise<VerifyResult> {
    const record = await deps.keys.get(id);
    if (!record) {
      // An unknown id costs the same digest and comparison as a wrong secret (with the current
      // pepper, derived on first use just the same), so timing tells little about which ids exist.
      await matchesDigest(deps.peppers, apiKey, {
        digest: NO_DIGEST,
        pepperVersion: deps.peppers.currentVersion,
      });
      return NOT_FOUND;
    }
    const matches = await matchesDigest(deps.peppers, apiKey, {
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
    if (!state.key || !unchanged(kept, state.key)) {
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
    return grant(kept, state.roles);
  }

  return async (rawKey) => {
    const parsed = parseKey(rawKey);
    if (!parsed.ok) return MALFORMED;
    const kept = deps.reads && verified.get(parsed.id);
    if (
      kept &&
      (await matchesDigest(deps.peppers, parsed.apiKey, {
        digest: kept.digest,
        pepperVersion: kept.pepper_version,
      }))
    ) {
      const result = await warm(deps.reads as VerificationReads, kept);
      if (result) return result;
    }
    // Unknown here, a wrong secret (answered like an unknown id, after the same read) or changed.
    return cold(parsed.id, parsed.apiKey);
  };
}
