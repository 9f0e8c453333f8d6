/**
 * `@svc/mcp-api-keys/verifier/mcp-sdk`: the verifier for the MCP TypeScript SDK v1's
 * `requireBearerAuth` (contract §16). An entry of its own because it loads the SDK's error classes:
 * the verifier entry loads no SDK, for servers that do not use it.
 */

import {
  InsufficientScopeError,
  InvalidTokenError,
  type OAuthError,
  ServerError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { McpAnswer } from '#lib/mcp/answer';
import { mcpDenial } from '#lib/mcp/denial';
import type { McpKeyVerifier } from '#lib/verifier';
import { type AuthInfo, authInfoFor } from './auth-info.ts';
import { type ScopedCaller, scopeRefusal } from './scopes.ts';

export { ROLES, type Role, SCOPES, type Scope, type WorkspaceAccess } from '#lib/access/scopes';
export { type EffectiveLimit, LIMIT_WINDOWS, type LimitWindow, type RateDenial } from '#lib/keys/limits';
export type { RateRefusal, ToolRefusal, ValidResult, VerifyResult } from '#lib/keys/verify';
export type { McpCall } from '#lib/usage/model';
export type { McpKeyVerifier } from '#lib/verifier';
export type { AuthInfo, AuthInfoExtra } from './auth-info.ts';
export { missingScopes, type ScopedCaller } from './scopes.ts';

/** The SDK's `OAuthTokenVerifier`: what `requireBearerAuth({ verifier })` asks. */
export interface McpSdkTokenVerifier {
  /** The `AuthInfo` of a valid credential; rejects with the SDK's error for a denied one. */
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

/** The message of a denial's JSON-RPC body: contract §7's sentence. */
function messageOf(answer: McpAnswer): string {
  try {
    // Stryker disable next-line OptionalChaining: equivalent, the TypeError without `error` is caught below and gives the same sentence
    const message = (JSON.parse(answer.body) as { error?: { message?: unknown } }).error?.message;
    // Stryker disable next-line ConditionalExpression: equivalent, every denial's body carries its sentence as a string (lib/mcp/denial.ts)
    if (typeof message === 'string') return message;
  } catch {
    // not a JSON-RPC error: the fixed sentence below
  }
  // Stryker disable next-line StringLiteral: never read, every denial's body carries its own sentence
  return 'The credential was refused.';
}

/**
 * The sentence as `requireBearerAuth` can send it: it also puts the message in the
 * `WWW-Authenticate` header's `error_description`, where Node refuses a character outside ASCII
 * and RFC 6750 a quote or a backslash.
 */
const describable = (message: string) =>
  message
    .replaceAll('…', '...')
    .replaceAll('"', "'")
    .replaceAll('\\', '/')
    .replace(/[^\x20-\x7e]/g, '');

/**
 * The SDK's error for a denial, by the status contract §7 gives it: 401 → `InvalidTokenError`
 * (the SDK answers 401 `invalid_token`), 403 → `InsufficientScopeError` (403 `insufficient_scope`,
 * the nearest the SDK has for a credential with no workspace left), 503 → `ServerError` (the SDK
 * answers 500 `server_error`: it has no 503). Each carries contract §7's sentence.
 */
function sdkError(answer: McpAnswer): OAuthError {
  const message = describable(messageOf(answer));
  if (answer.status === 403) return new InsufficientScopeError(message);
  // Stryker disable next-line EqualityOperator: equivalent, a denial's 5xx is always 503
  if (answer.status >= 500) return new ServerError(message);
  return new InvalidTokenError(message);
}

/**
 * The MCP SDK v1's token verifier on a key verifier (contract §16), for
 * `requireBearerAuth({ verifier: mcpSdkTokenVerifier(verifier) })`: a valid API key or access token
 * gives the SDK's `AuthInfo` (`resource` the verifier's for an API key); a denial rejects with the
 * SDK's `InvalidTokenError` (401), `InsufficientScopeError` (403) or `ServerError` (a failing
 * DynamoDB or KMS: the SDK answers 500) carrying contract §7's sentence. The SDK recognizes these
 * errors by their class, hence the SDK is the server's own (a peer dependency): one copy of
 * `@modelcontextprotocol/sdk` (`npm ls @modelcontextprotocol/sdk`).
 */
export function mcpSdkTokenVerifier(verifier: McpKeyVerifier): McpSdkTokenVerifier {
  return {
    async verifyAccessToken(token) {
      const result = await verifier.verify(token);
      if (result.outcome === 'valid') return authInfoFor(result, token, verifier.resource);
      throw sdkError(mcpDenial(result));
    },
  };
}

/**
 * Refuses an operation needing `scopes` the caller lacks, for a tool of a server behind the SDK's
 * `requireBearerAuth`: throws the SDK's `InsufficientScopeError` with the sentence of the refusal
 * (an OAuth credential's says it asks the person to allow them; an API key's to create a key with
 * them); returns when the caller has them.
 */
export function requireScopes(auth: ScopedCaller, scopes: readonly string[]): void {
  const refusal = scopeRefusal(auth, scopes);
  if (refusal) throw new InsufficientScopeError(describable(messageOf(refusal)));
}

/** What the SDK v2's `ScopeChallengeHandler` returns: the scopes to challenge for, and why. */
export interface ScopeChallenge {
  scopes: readonly [string, ...string[]];
  errorDescription?: string;
}

/**
 * A tool's `scopeChallenge` for the MCP SDK v2 (`server.registerTool(name, { ..., scopeChallenge:
 * scopeChallenge('svc.forms.write') }, handler)`): the SDK answers a call whose credential lacks
 * one of `scopes` with `403 insufficient_scope` naming them and the server's metadata, before the
 * tool runs, so an OAuth client re-authorizes for them (contract §15 revised in turn 5). The
 * description is the refusal's sentence (an API key, which cannot step up, is told to create a key
 * with them).
 */
export function scopeChallenge(
  ...scopes: readonly [string, ...string[]]
): (context: { authInfo?: ScopedCaller | undefined }) => ScopeChallenge | undefined {
  return ({ authInfo }) => {
    const refusal = authInfo && scopeRefusal(authInfo, scopes);
    return refusal ? { scopes, errorDescription: describable(messageOf(refusal)) } : undefined;
  };
}
