import { effectiveLimits, rateCountsOf } from './limits.ts';
import type { RateRefusal, VerifyResult } from './verification.ts';
import type { Verified, VerifierState } from './verifier-state.ts';

/**
 * A valid call checked against the credential's limits (contract §19), with the counters its own
 * verification read: the refusal when it is over a window's limit, else the result, the call
 * counted. A credential without limits costs nothing here.
 */
export function limitedResult({ limiter }: VerifierState, verified: Verified, now: Date): VerifyResult {
  const { result, narrowing } = verified;
  if (!limiter || result.outcome !== 'valid' || !narrowing) return result;
  const limits = effectiveLimits(
    narrowing.limits,
    narrowing.workspace_rules,
    result.workspaces.map((w) => w.id),
  );
  // Stryker disable next-line ConditionalExpression: equivalent for false, the limiter admits a call with no limits without counting it (lib/keys/limiter.ts); true is killed by test/unit/verification-checks.test.ts
  if (limits.length === 0) return result;
  const over = limiter.admit(result.key_id, limits, rateCountsOf(narrowing), now);
  if (!over) return result;
  const refusal: RateRefusal = { outcome: 'rate_limited', key_id: result.key_id, kind: result.kind, ...over };
  return refusal;
}
