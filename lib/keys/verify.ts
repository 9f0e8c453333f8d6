import { effectiveAccess, type Scope, type WorkspaceAccess } from '#lib/access/scopes';
import { parseKey } from './format.ts';
import { keyStatus } from './model.ts';
import { matchesDigest, type PepperSource } from './pepper.ts';
import type { KeyStore, MembershipReader } from './port.ts';
import { useIsDue } from './rules.ts';

/** Expected outcomes of a verification are data, never exceptions. */
export type VerifyResult =
  | { outcome: 'valid'; user_id: string; key_id: string; scopes: Scope[]; workspaces: WorkspaceAccess[] }
  | { outcome: 'malformed' }
  | { outcome: 'not_found' }
  | { outcome: 'revoked'; key_id: string }
  | { outcome: 'expired'; key_id: string; expires_at: string }
  | { outcome: 'no_access'; key_id: string };

export interface VerifierDeps {
  keys: Pick<KeyStore, 'get' | 'recordUse'>;
  memberships: MembershipReader;
  peppers: PepperSource;
  now: () => Date;
  /** Called when recording last use fails; a failed bookkeeping write never denies a valid key. */
  onUseRecordError?: (err: unknown) => void;
}

const MALFORMED: VerifyResult = { outcome: 'malformed' };
const NOT_FOUND: VerifyResult = { outcome: 'not_found' };
/** What an unknown id is compared against: no key has this digest (an HMAC is never all zeros in practice). */
const NO_DIGEST = Buffer.alloc(32).toString('base64');

/**
 * Builds `verifyMcpKey(rawKey)` (contract §6): parse and checksum with no I/O, one consistent
 * read by id, constant-time digest compare, status, then the creator's current memberships
 * (read alongside the throttled last-use write), and the effective access.
 */
export function createKeyVerifier(deps: VerifierDeps): (rawKey: unknown) => Promise<VerifyResult> {
  return async (rawKey) => {
    const parsed = parseKey(rawKey);
    if (!parsed.ok) return MALFORMED;
    const record = await deps.keys.get(parsed.id);
    if (!record) {
      // An unknown id costs the same digest and comparison as a wrong secret (with the current
      // pepper, derived on first use just the same), so timing tells little about which ids exist.
      await matchesDigest(deps.peppers, parsed.apiKey, {
        digest: NO_DIGEST,
        pepperVersion: deps.peppers.currentVersion,
      });
      return NOT_FOUND;
    }
    const matches = await matchesDigest(deps.peppers, parsed.apiKey, {
      digest: record.digest,
      pepperVersion: record.pepper_version,
    });
    // A wrong secret for an existing id answers exactly like an unknown id.
    if (!matches) return NOT_FOUND;
    const now = deps.now();
    const status = keyStatus(record, now);
    // Revoked and expired are told only to whoever holds the whole secret (contract §7).
    if (status === 'revoked') return { outcome: 'revoked', key_id: record.id };
    if (status === 'expired') return { outcome: 'expired', key_id: record.id, expires_at: record.expires_at };
    const [roles] = await Promise.all([
      deps.memberships.rolesFor(record.user_id, record.workspace_ids),
      useIsDue(record.last_used_at, now)
        ? deps.keys.recordUse(record.id, now).catch((err: unknown) => deps.onUseRecordError?.(err))
        : undefined,
    ]);
    const workspaces = effectiveAccess(record.workspace_ids, record.scopes, roles);
    if (workspaces.length === 0) return { outcome: 'no_access', key_id: record.id };
    const scopes = [...new Set(workspaces.flatMap((w) => w.scopes))];
    return { outcome: 'valid', user_id: record.user_id, key_id: record.id, scopes, workspaces };
  };
}
