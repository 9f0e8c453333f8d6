import type { McpCall } from '#lib/usage/model';
import { parseGrantCredential, parseKey } from './format.ts';
import { matchesDigest } from './pepper.ts';
import type { VerificationReads } from './port.ts';
import { limitedResult } from './rate-check.ts';
import { checkedResult } from './tool-check.ts';
import { countedUse } from './usage.ts';
import type { VerifierDeps, VerifyResult } from './verification.ts';
import { type Verified, verifierState } from './verifier-state.ts';
import { verifyCold } from './verify-cold.ts';
import { verifyWarm } from './verify-warm.ts';

export {
  DEFAULT_VERIFIER_CACHE_SIZE,
  type KeyUse,
  type RateRefusal,
  type ToolRefusal,
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
export function createKeyVerifier(
  deps: VerifierDeps,
): (rawKey: unknown, call?: McpCall) => Promise<VerifyResult> {
  const verifier = verifierState(deps);
  const verifyCredential = async ({ id, presented, asToken }: Presented): Promise<Verified> => {
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
  // The credential, then the tool its call names (contract §19).
  const verify = async (presented: Presented, call: McpCall | undefined): Promise<Verified> => {
    const verified = await verifyCredential(presented);
    return { ...verified, result: checkedResult(verifier, verified, call) };
  };
  const { usageRecorder: usage } = deps;
  return async (rawKey, call) => {
    const presented = presentedOf(rawKey);
    if ('outcome' in presented) return presented;
    const now = deps.now();
    // Writes due (usage counts, a limited credential's calls) go alongside this verification's
    // read: no round trip of their own, and the limits are checked once both are back.
    const usageWrite = usage?.flushDue(now, presented.id);
    const rateWrite = verifier.limiter?.writeDue(presented.id, now);
    const verified =
      usageWrite || rateWrite
        ? (await Promise.all([verify(presented, call), usageWrite, rateWrite]))[0]
        : await verify(presented, call);
    const result = limitedResult(verifier, verified, now);
    const use = usage && countedUse({ ...verified, result }, call);
    // A refusal of a revoked or expired credential starts its write here, beside the answer.
    if (use) usage.count(use, now);
    return result;
  };
}

/** A presented value that parsed: the credential's id, the value, and whether it is an access token. */
interface Presented {
  id: string;
  presented: string;
  asToken: boolean;
}

/** Parse and checksum, no I/O: what to verify, or the outcome of a value never to be looked up. */
function presentedOf(rawKey: unknown): Presented | VerifyResult {
  const parsed = parseKey(rawKey);
  if (parsed.ok) return { id: parsed.id, presented: parsed.apiKey, asToken: false };
  const credential = parseGrantCredential(rawKey);
  if (!credential.ok || credential.kind === 'authorization_code') return MALFORMED;
  if (credential.kind === 'refresh_token') return REFRESH_TOKEN;
  return { id: credential.id, presented: credential.token, asToken: true };
}
