import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerResult,
  APIGatewaySimpleAuthorizerWithContextResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import type { VerifyResult } from '#lib/keys/verify';

export type AuthorizerEvent =
  | APIGatewayRequestAuthorizerEventV2
  | APIGatewayTokenAuthorizerEvent
  | APIGatewayRequestAuthorizerEvent;

/** What an MCP endpoint behind the authorizer receives, every value a string. */
export interface McpAuthContext {
  user_id: string;
  key_id: string;
  /** Space-separated effective scopes across the key's workspaces. */
  scopes: string;
  /** JSON of `[{ id, role, scopes }]`. */
  workspaces: string;
}

export type AuthorizerResult =
  | APIGatewaySimpleAuthorizerWithContextResult<McpAuthContext>
  | APIGatewaySimpleAuthorizerResult
  | APIGatewayAuthorizerResult;

/** The key from `Authorization: Bearer <key>`; the scheme is case-insensitive. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1];
}

function headerOf(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

const isHttpApi = (event: AuthorizerEvent): event is APIGatewayRequestAuthorizerEventV2 =>
  (event as { version?: string }).version === '2.0';

export function presentedKey(event: AuthorizerEvent): string | undefined {
  if (event.type === 'TOKEN') return bearerToken(event.authorizationToken);
  if (isHttpApi(event))
    return bearerToken(headerOf(event.headers, 'authorization') ?? event.identitySource?.[0]);
  return bearerToken(headerOf(event.headers, 'authorization'));
}

export function contextOf(result: Extract<VerifyResult, { outcome: 'valid' }>): McpAuthContext {
  return {
    user_id: result.user_id,
    key_id: result.key_id,
    scopes: result.scopes.join(' '),
    workspaces: JSON.stringify(result.workspaces),
  };
}

function policy(
  effect: 'Allow' | 'Deny',
  principalId: string,
  resource: string,
  context?: McpAuthContext,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
    },
    ...(context && { context: { ...context } }),
  };
}

/**
 * Turns a verification into API Gateway's answer. HTTP API: a simple response, never a throw
 * (a throw would be a 500). REST API: an IAM policy; a missing or malformed key throws
 * `Unauthorized`, which API Gateway maps to 401.
 */
export function decide(event: AuthorizerEvent, result: VerifyResult | 'error'): AuthorizerResult {
  const valid = result !== 'error' && result.outcome === 'valid' ? result : undefined;
  if (isHttpApi(event)) {
    if (valid) return { isAuthorized: true, context: contextOf(valid) };
    const denied: APIGatewaySimpleAuthorizerResult = { isAuthorized: false };
    return denied;
  }
  if (result !== 'error' && result.outcome === 'malformed') throw new Error('Unauthorized');
  return valid
    ? policy('Allow', valid.user_id, event.methodArn, contextOf(valid))
    : policy('Deny', 'anonymous', event.methodArn);
}
