import { parseGrantCredential, parseKey } from './format.ts';
import { matchesDigest } from './pepper.ts';
import type { VerificationReads } from './port.ts';
import type { VerifierDeps, VerifyResult } from './verification.ts';
import { verifierState } from './verifier-state.ts';
import { verifyCold } from './verify-cold.ts';
import { verifyWarm } from './verify-warm.ts';

export {
  DEFAULT_VERIFIER_CACHE_SIZE,
  type KeyUse,
  type ValidResult,
  type VerifierDeps,
  type VerifyResult,
} from './verification.ts';

const MALFORMED: VerifyResult = { outcome: 'malformed' };
const REFRESH_TOKEN: VerifyResult = { outcome: 'refresh_token' };

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
  const verifier = verifierState(deps);
  return async (rawKey) => {
    const parsed = parseKey(rawKey);
    const credential = parsed.ok ? undefined : parseGrantCredential(rawKey);
    if (credential && (!credential.ok || credential.kind === 'authorization_code')) return MALFORMED;
    if (credential?.kind === 'refresh_token') return REFRESH_TOKEN;
    const id = parsed.ok ? parsed.id : (credential as { id: string }).id;
    const presented = parsed.ok ? parsed.apiKey : (credential as { token: string }).token;
    const asToken = !parsed.ok;
    const kept = deps.reads && verifier.verified.get(id);
    const keptDigest = kept && (asToken ? kept.token?.digest : kept.token ? undefined : kept.digest);
    if (
      kept &&
      keptDigest !== undefined &&
      (await matchesDigest(deps.peppers, presented, {
        digest: keptDigest,
        pepperVersion: kept.pepper_version,
      }))
    ) {
      const result = await verifyWarm(verifier, deps.reads as VerificationReads, kept);
      if (result) return result;
    }
    // Unknown here, a wrong secret (answered like an unknown id, after the same read) or changed.
    return verifyCold(verifier, id, presented, asToken);
  };
}
