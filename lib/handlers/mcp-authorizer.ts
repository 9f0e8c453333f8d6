import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { VerifyResult } from '#lib/keys/verify';
import { type AuthorizerEvent, type AuthorizerResult, decide, presentedKey } from '#lib/mcp/authorizer';
import { describeError, logEventRedacted, logger, metrics } from '#lib/observability';
import type { Runtime } from '#lib/runtime';

/**
 * Lambda authorizer for MCP traffic (contract §6), for HTTP APIs (payload 2.0, simple
 * responses) and REST APIs (TOKEN/REQUEST). Fails closed: any error denies.
 */
export function mcpAuthorizerHandler(runtime: Pick<Runtime, 'verify'>) {
  async function authorize(event: AuthorizerEvent): Promise<AuthorizerResult> {
    const key = presentedKey(event);
    let result: VerifyResult | 'error';
    try {
      result = key === undefined ? { outcome: 'malformed' } : await runtime.verify(key);
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
    metrics.addMetric('AuthorizerDecisions', MetricUnit.Count, 1);
    return decide(event, result);
  }
  return middy<AuthorizerEvent, AuthorizerResult>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logEventRedacted)
    .use(logMetrics(metrics))
    .handler(authorize);
}
