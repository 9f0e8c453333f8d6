import type { Context } from 'aws-lambda';
import { rateAttribute } from '#lib/keys/limits';
import {
  type AuthorizerEvent,
  type AuthorizerResult,
  decide,
  type KeyCheck,
  mcpCallOf,
  presentedKey,
  UNAUTHORIZED,
} from '#lib/mcp/authorizer';
import { MISSING_KEY } from '#lib/mcp/denial';
import { countMetric, logger, METRIC_NAMES } from '#lib/observability';
import { describeError } from '#lib/redact';
import type { Grants } from '#lib/routes/route-module';
import { dayCallsAttribute } from '#lib/store/key-item';
import { USAGE_ATTRIBUTES, USAGE_PREFIX } from '#lib/store/usage-items';
import { onLambdaShutdown } from '#lib/usage/shutdown';
import type { VerifierRuntime as Runtime } from '#lib/verifier-runtime';

/**
 * Lambda authorizer for MCP traffic (contract §6), for HTTP APIs (payload 2.0, simple
 * responses) and REST APIs (REQUEST/TOKEN). Fails closed: on REST a credential failure throws
 * `Unauthorized`, `no_access` is a Deny, and a failed verification throws (503 at the gateway).
 * A plain handler: no middleware stack on the path every MCP call takes; it starts its own log context.
 */
export function mcpAuthorizerHandler(runtime: Pick<Runtime, 'verify'>) {
  return async function authorize(event: AuthorizerEvent, context?: Context): Promise<AuthorizerResult> {
    logger.startInvocation(context, event);
    const key = presentedKey(event);
    let result: KeyCheck;
    try {
      result = key === undefined ? MISSING_KEY : await runtime.verify(key, mcpCallOf(event));
    } catch (err) {
      logger.error('key verification failed; denying', { error: describeError(err) });
      result = 'error';
    }
    const outcome = result === 'error' ? 'error' : result.outcome;
    logger.info('mcp key decision', {
      outcome,
      ...(result !== 'error' && 'key_id' in result && { key_id: result.key_id }),
      ...(result !== 'error' && result.outcome === 'valid' && { user_id: result.user_id }),
    });
    // One EMF line per invocation, with the outcome as its dimension.
    countMetric(METRIC_NAMES.authorizerDecisions, { outcome });
    const decision = decide(event, result);
    if ('answer' in decision) return decision.answer;
    // Lambda counts this throw as a function error; this count lets alarms tell it apart.
    if (decision.reject === UNAUTHORIZED) countMetric(METRIC_NAMES.authorizerUnauthorized);
    throw new Error(decision.reject);
  };
}

/**
 * Has Lambda send SIGTERM before it ends the instance, and writes the usage counts still waiting
 * then (contract §18); nothing outside Lambda. Awaited at the entry point's top level: Lambda
 * takes extensions only during init.
 */
export const endUsageOnShutdown = (runtime: Pick<Runtime, 'endUsage'>): Promise<void> =>
  onLambdaShutdown(
    () => runtime.endUsage(),
    (err) => logger.warn('could not write usage at shutdown', { error: describeError(err) }),
  );

/**
 * The authorizer's role: GetItem for a key seen first; one BatchGetItem across both tables for a
 * warm verification (the key's state and the memberships); a Query of memberships where it costs
 * fewer units; an update of a key's `last_used_at` and its days' calls only, or of a limited
 * credential's counters only; and the usage counts, whole `USAGE#` items only.
 */
export const MCP_AUTHORIZER_GRANTS: Grants = {
  pepper: true,
  dynamodb: [
    { actions: ['dynamodb:GetItem'], on: ['keys'] },
    { actions: ['dynamodb:BatchGetItem'], on: ['keys', 'memberships'] },
    { actions: ['dynamodb:Query'], on: ['memberships'] },
    // A key's `last_used_at`, and the calls its usage writes add to its days (`calls_on_<day>`).
    {
      actions: ['dynamodb:UpdateItem'],
      on: ['keys'],
      conditions: {
        'ForAllValues:StringLike': {
          'dynamodb:Attributes': ['pk', 'sk', 'last_used_at', dayCallsAttribute('*')],
        },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
      },
    },
    // A limited credential's counted calls (contract §19), answered with the totals after the add.
    {
      actions: ['dynamodb:UpdateItem'],
      on: ['keys'],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:Attributes': ['pk', 'sk', rateAttribute('*')] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': ['UPDATED_NEW'] },
      },
    },
    // The usage counts (contract §18): whole items in `USAGE#` partitions, never a key's.
    {
      actions: ['dynamodb:PutItem'],
      on: ['keys'],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${USAGE_PREFIX}*`] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...USAGE_ATTRIBUTES] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
        // ForAllValues holds for a key that is absent: both must be there.
        Null: { 'dynamodb:LeadingKeys': 'false', 'dynamodb:Attributes': 'false' },
      },
    },
  ],
};
