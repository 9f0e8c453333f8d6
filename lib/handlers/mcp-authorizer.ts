import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import {
  type AuthorizerEvent,
  type AuthorizerResult,
  decide,
  type KeyCheck,
  presentedKey,
  UNAUTHORIZED,
} from '#lib/mcp/authorizer';
import { MISSING_KEY } from '#lib/mcp/denial';
import { describeError, logEventRedacted, logger, METRIC_NAMES, metrics } from '#lib/observability';
import type { Runtime } from '#lib/runtime';

/**
 * Lambda authorizer for MCP traffic (contract §6), for HTTP APIs (payload 2.0, simple
 * responses) and REST APIs (TOKEN/REQUEST). Fails closed: any error denies.
 */
export function mcpAuthorizerHandler(runtime: Pick<Runtime, 'verify'>) {
  async function authorize(event: AuthorizerEvent): Promise<AuthorizerResult> {
    const key = presentedKey(event);
    let result: KeyCheck;
    try {
      result = key === undefined ? MISSING_KEY : await runtime.verify(key);
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
    // One EMF line per invocation, flushed by logMetrics; the dimension is cleared with it.
    metrics.addDimension('outcome', outcome);
    metrics.addMetric(METRIC_NAMES.authorizerDecisions, MetricUnit.Count, 1);
    const decision = decide(event, result);
    if ('answer' in decision) return decision.answer;
    if (decision.reject === UNAUTHORIZED) {
      // Lambda counts this throw as a function error; this count lets alarms tell it apart.
      metrics.singleMetric().addMetric(METRIC_NAMES.authorizerUnauthorized, MetricUnit.Count, 1);
    }
    throw new Error(decision.reject);
  }
  return middy<AuthorizerEvent, AuthorizerResult>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logEventRedacted)
    .use(logMetrics(metrics))
    .handler(authorize);
}
