import type { Context } from 'aws-lambda';
import type { VerifyResult } from '#lib/keys/verify';
import { type AuthorizerEvent, type AuthorizerResult, decide, presentedKey } from '#lib/mcp/authorizer';
import { emitCount, liteLogger as logger } from '#lib/observability-lite';
import { describeError } from '#lib/redact';
import type { Runtime } from '#lib/runtime';

/**
 * Lambda authorizer for MCP traffic (contract §6), for HTTP APIs (payload 2.0, simple
 * responses) and REST APIs (TOKEN/REQUEST). Fails closed: any error denies. A plain handler with
 * the lightweight logger: no middleware stack on the path every MCP call takes.
 */
export function mcpAuthorizerHandler(runtime: Pick<Runtime, 'verify'>) {
  return async function authorize(event: AuthorizerEvent, context?: Context): Promise<AuthorizerResult> {
    logger.startInvocation(context, event);
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
    // One EMF line per invocation, with the outcome as its dimension.
    emitCount('AuthorizerDecisions', { outcome });
    return decide(event, result);
  };
}
