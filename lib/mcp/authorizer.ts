import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerResult,
  APIGatewaySimpleAuthorizerWithContextResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import type { VerifyResult } from '#lib/keys/verify';
import type { McpCall } from '#lib/usage/model';
import { type MISSING_KEY, mcpDenial } from './denial.ts';

export type AuthorizerEvent =
  | APIGatewayRequestAuthorizerEventV2
  | APIGatewayTokenAuthorizerEvent
  | APIGatewayRequestAuthorizerEvent;

/** What an MCP endpoint behind the authorizer receives, every value a string. */
export interface McpAuthContext {
  user_id: string;
  key_id: string;
  /** `api_key`, or `oauth` for an app's access token: which sentence a refusal says. */
  kind: 'api_key' | 'oauth';
  /** Space-separated effective scopes across the key's workspaces. */
  scopes: string;
  /** JSON of `[{ id, role, scopes, tools? }]`. */
  workspaces: string;
  /** Space-separated tools it may call in at least one workspace, when the verifier knows them (contract §19). */
  tools?: string;
  /** Space-separated tools its owner limited it to, when it has a list of its own. */
  own_tools?: string;
}

/**
 * What a Deny carries to the REST API's ACCESS_DENIED gateway response (contract §19): the
 * sentence a person reads, which its body template takes from `$context.authorizer.message`.
 */
export interface DenyContext {
  message: string;
}

export type AuthorizerResult =
  | APIGatewaySimpleAuthorizerWithContextResult<McpAuthContext>
  | APIGatewaySimpleAuthorizerResult
  | APIGatewayAuthorizerResult;

/** The key from `Authorization: Bearer <key>`; the scheme is case-insensitive. */
export function bearerToken(header: string | null | undefined): string | undefined {
  // Stryker disable next-line ConditionalExpression: equivalent, an empty header (or "null", "undefined" as text) does not match the pattern either
  if (!header) return undefined;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1];
}

function valuesOf(headers: Record<string, unknown> | null | undefined, name: string): unknown[] {
  if (!headers) return [];
  return Object.entries(headers)
    .filter(([key]) => key.toLowerCase() === name)
    .flatMap(([, value]) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));
}

const headerOf = (headers: Record<string, string | undefined> | null | undefined, name: string) =>
  valuesOf(headers, name)[0] as string | undefined;

const isHttpApi = (event: AuthorizerEvent): event is APIGatewayRequestAuthorizerEventV2 =>
  (event as { version?: string }).version === '2.0';

/** Presented by a request with several `Authorization` headers: never a valid key. */
const AMBIGUOUS = '';

/**
 * The key a request presents, or undefined when it sent no `Authorization: Bearer` credential.
 * Several `Authorization` headers present a key that is never valid: neither wins.
 */
export function presentedKey(event: AuthorizerEvent): string | undefined {
  if (event.type === 'TOKEN') return bearerToken(event.authorizationToken);
  if (isHttpApi(event))
    return bearerToken(headerOf(event.headers, 'authorization') ?? event.identitySource?.[0]);
  if (valuesOf(event.multiValueHeaders, 'authorization').length > 1) return AMBIGUOUS;
  return bearerToken(headerOf(event.headers, 'authorization'));
}

/**
 * The MCP request an authorizer call is for, from the 2026-07-28 `Mcp-Method` and `Mcp-Name`
 * headers API Gateway passes a REQUEST authorizer (contract §18); a TOKEN authorizer sees none.
 */
export function mcpCallOf(event: AuthorizerEvent): McpCall | undefined {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, a TOKEN event has no headers, so no Mcp-Method either (returning early for every event is killed by test/unit/denial-limits.test.ts)
  if (event.type === 'TOKEN') return undefined;
  const method = headerOf(event.headers, 'mcp-method');
  if (method === undefined) return undefined;
  return { method, name: headerOf(event.headers, 'mcp-name') };
}

export function contextOf(result: Extract<VerifyResult, { outcome: 'valid' }>): McpAuthContext {
  return {
    user_id: result.user_id,
    key_id: result.key_id,
    kind: result.kind,
    scopes: result.scopes.join(' '),
    workspaces: JSON.stringify(result.workspaces),
    ...(result.tools && { tools: result.tools.join(' ') }),
    ...(result.own_tools && { own_tools: result.own_tools.join(' ') }),
  };
}

function policy(
  effect: 'Allow' | 'Deny',
  principalId: string,
  resource: string,
  context?: McpAuthContext | DenyContext,
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

/** A verification as the authorizer sees it: no key at all, an outcome, or a failure (thrown or `unavailable`). */
export type KeyCheck = VerifyResult | typeof MISSING_KEY | 'error';

/** The sentence of a 403 denial, as its JSON-RPC body says it. */
const denialMessage = (result: Parameters<typeof mcpDenial>[0]): string =>
  (JSON.parse(mcpDenial(result).body) as { error: { message: string } }).error.message;

/** The message a REST API authorizer throws for API Gateway to answer 401 (UNAUTHORIZED). */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * API Gateway's answer to a key check: a result to return, or an error to throw.
 * - HTTP API: a simple response, never a throw (API Gateway would answer 500).
 * - REST API (contract §6): throw `Unauthorized` for a missing, malformed, unknown, revoked or
 *   expired key (UNAUTHORIZED, 401); a Deny policy for `no_access` and a tool the credential may
 *   not call (ACCESS_DENIED, 403, with the sentence in its context); an
 *   Allow policy with the context for a valid key; and fail closed by throwing any other error
 *   when verification failed (a 5xx gateway response: never a 401, the key is not at fault).
 */
export function decide(
  event: AuthorizerEvent,
  result: KeyCheck,
): { answer: AuthorizerResult } | { reject: typeof UNAUTHORIZED | 'key verification failed' } {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent for the 'error' check, the string 'error' has no outcome (the valid check is killed by test/unit/mcp-authorizer.test.ts)
  const valid = result !== 'error' && result.outcome === 'valid' ? result : undefined;
  if (isHttpApi(event)) {
    if (valid) return { answer: { isAuthorized: true, context: contextOf(valid) } };
    const denied: APIGatewaySimpleAuthorizerResult = { isAuthorized: false };
    return { answer: denied };
  }
  if (result === 'error' || result.outcome === 'unavailable') return { reject: 'key verification failed' };
  if (valid) return { answer: policy('Allow', valid.user_id, event.methodArn, contextOf(valid)) };
  // A call over a limit too: API Gateway fixes ACCESS_DENIED's status, so it is a 403 whose
  // sentence says when it can call again, never an Allow another team's backend would serve.
  if (
    result.outcome === 'no_access' ||
    result.outcome === 'tool_not_allowed' ||
    result.outcome === 'rate_limited'
  )
    return { answer: policy('Deny', 'anonymous', event.methodArn, { message: denialMessage(result) }) };
  return { reject: UNAUTHORIZED };
}
