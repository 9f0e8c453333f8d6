import { toolSentence } from '#lib/access/tools';
import { rateSentence } from '#lib/keys/limits';
import type { RateRefusal, ToolRefusal, VerifyResult } from '#lib/keys/verify';
import { RETRY_AFTER_SECONDS } from '#lib/limits';
import { jsonRpcError, MCP_ERROR_CODES, type McpAnswer, toResponse } from './answer.ts';

/** The `realm` of every challenge the MCP endpoint sends. */
export const REALM = 'svc-mcp';

/**
 * Every reason an MCP request is refused before it reaches the server: a verification outcome
 * other than `valid`, plus `missing` (no `Authorization: Bearer` header), `unavailable` (the
 * verification itself failed) and `unauthorized` (any 401 case, undistinguished: what a REST API
 * answers, since API Gateway cannot vary one gateway response per case).
 */
export type DenialCase =
  | {
      outcome:
        | 'missing'
        | 'malformed'
        | 'not_found'
        | 'revoked'
        | 'no_access'
        | 'unavailable'
        | 'unauthorized'
        | 'refresh_token'
        | 'wrong_resource';
    }
  | { outcome: 'expired'; expires_at: string }
  /** A tool the credential may call in none of its workspaces (contract §19). */
  | ToolRefusal
  /** A call over one of the credential's limits (contract §19). */
  | RateRefusal
  /**
   * A valid credential without a scope the operation needs (contract §15 revised in turn 5):
   * `scopes` are the operation's, `kind` says whether the credential can step up (an OAuth grant)
   * or not (an API key).
   */
  | { outcome: 'insufficient_scope'; scopes: readonly string[]; kind: 'api_key' | 'oauth' };

/** What to do with a refresh token sent as a bearer (contract §15 revised in turn 5). */
const REFRESH_TOKEN_ADVICE = 'send the access token it came with, or refresh it at the token endpoint.';
/** The refresh token's own sentence, wherever its refusal can be told apart from the others. */
export const REFRESH_TOKEN_SENTENCE = `This is a refresh token: ${REFRESH_TOKEN_ADVICE}`;

/** The denial for a request that carried no bearer key. */
export const MISSING_KEY = { outcome: 'missing' } as const satisfies DenialCase;

interface Row {
  status: 401 | 403 | 429 | 503;
  /** Seconds until it can call again (`Retry-After`). */
  retryAfter?: string;
  /**
   * RFC 6750 error code in the challenge; none for a missing key (RFC 6750 §3.1), and none for
   * an API key's 403: clients read `insufficient_scope` as an OAuth step-up and show only that
   * phrase, while without it they show the body's message (RFC 6750 makes the code a SHOULD). An
   * OAuth credential's missing scope is `insufficient_scope`: its client steps up (SEP-2350).
   */
  error?: 'invalid_token' | 'insufficient_scope';
  /** The scopes the challenge names: what the operation needs (SEP-2350). */
  scope?: string;
  /** For the challenge: printable ASCII without quotes or backslashes (RFC 6750 §3). */
  description?: string;
  message: string;
}

const invalid = (description: string, message: string): Row => ({
  status: 401,
  error: 'invalid_token',
  description,
  message,
});

/** Contract §7, row by row. */
function rowFor(denial: DenialCase): Row {
  switch (denial.outcome) {
    case 'missing':
      return { status: 401, message: 'An MCP API key is required: send Authorization: Bearer svc_mcp_v1_…' };
    case 'malformed':
      return invalid('The API key is malformed', 'The API key is malformed; copy it again in full.');
    case 'not_found':
      // An unknown id and a wrong secret are one outcome: nobody learns whether an id exists.
      return invalid('The API key is not valid', 'The API key is not valid.');
    case 'revoked':
      return invalid('The API key was revoked', 'The API key was revoked; create or rotate a key.');
    case 'expired':
      return invalid(
        `The API key expired on ${denial.expires_at}`,
        `The API key expired on ${denial.expires_at}; create a new key.`,
      );
    case 'unauthorized':
      // One sentence for every credential: behind OAuth, an app's access token is refused with it too.
      return invalid(
        'The API key or access token is missing, malformed, not valid, revoked or expired',
        'The API key or access token is missing, malformed, not valid, revoked or expired: send a current key as ' +
          'Authorization: Bearer svc_mcp_v1_… (create or rotate one if yours was revoked or has expired), ' +
          'or have the app sign in again. ' +
          `An OAuth refresh token is never accepted here: ${REFRESH_TOKEN_ADVICE}`,
      );
    case 'refresh_token':
      return invalid('This is a refresh token', REFRESH_TOKEN_SENTENCE);
    case 'wrong_resource':
      return invalid(
        'The access token was issued for another MCP server',
        'The access token was issued for another MCP server; sign in to this one again.',
      );
    case 'no_access':
      return { status: 403, message: "The key's creator no longer has access to any of its workspaces." };
    case 'insufficient_scope':
      return denial.kind === 'oauth'
        ? {
            status: 403,
            error: 'insufficient_scope',
            scope: denial.scopes.join(' '),
            description: 'The app needs more access for this operation',
            message: `This app was not allowed ${denial.scopes.join(', ')}, which this operation needs: it asks you to allow it.`,
          }
        : {
            status: 403,
            message: `This API key lacks ${denial.scopes.join(', ')}, which this operation needs: create a key with it.`,
          };
    case 'tool_not_allowed':
      // No RFC 6750 code: a tool is no scope, and stepping up would not allow it.
      return { status: 403, message: toolSentence(denial) };
    case 'rate_limited':
      return { status: 429, retryAfter: String(denial.retry_after), message: rateSentence(denial) };
    case 'unavailable':
      return {
        status: 503,
        retryAfter: RETRY_AFTER_SECONDS,
        message: 'The key service is unavailable; retry shortly.',
      };
  }
}

const CODES = {
  401: MCP_ERROR_CODES.unauthorized,
  403: MCP_ERROR_CODES.forbidden,
  429: MCP_ERROR_CODES.rateLimited,
  503: MCP_ERROR_CODES.unavailable,
};

/** What a denial's challenge may add when the MCP server advertises OAuth (contract §15). */
export interface DenialOptions {
  /** The URL of the server's Protected Resource Metadata (RFC 9728): `resource_metadata` in every 401. */
  resourceMetadataUrl?: string | undefined;
}

/** The scope a client asks for when it sent no credential at all (RFC 6750 §3, MCP's scope selection). */
const CHALLENGE_SCOPE = 'svc.forms.read';

/**
 * The answer to a refused MCP request (contract §7): status, `WWW-Authenticate` challenge and a
 * JSON-RPC error body whose message a person can act on. With OAuth on (`resourceMetadataUrl`),
 * every 401 names the Protected Resource Metadata, and one without a credential the scope to ask
 * for; with it off, there is no OAuth server to discover. Revoked and expired only come from a
 * verification whose secret matched; everything else about a key answers like an unknown one.
 */
export function mcpDenial(denial: DenialCase, options: DenialOptions = {}): McpAnswer {
  const row = rowFor(denial);
  const headers: Record<string, string> = {};
  if (row.retryAfter) headers['retry-after'] = row.retryAfter;
  else {
    const params = [`realm="${REALM}"`];
    if (row.error) params.push(`error="${row.error}"`);
    if (row.description) params.push(`error_description="${row.description}"`);
    if (row.scope) params.push(`scope="${row.scope}"`);
    if ((row.status === 401 || row.error === 'insufficient_scope') && options.resourceMetadataUrl)
      params.push(`resource_metadata="${options.resourceMetadataUrl}"`);
    if (
      // Stryker disable next-line ConditionalExpression: equivalent for `row.status === 401` as true, only a missing or unauthorized credential gets past the condition below and both are 401; the condition's other mutants are killed by test/unit/integrations.test.ts and integrations-scopes.test.ts
      row.status === 401 &&
      options.resourceMetadataUrl &&
      (denial.outcome === 'missing' || denial.outcome === 'unauthorized')
    )
      params.push(`scope="${CHALLENGE_SCOPE}"`);
    headers['www-authenticate'] = `Bearer ${params.join(', ')}`;
  }
  return jsonRpcError(row.status, CODES[row.status], row.message, headers);
}

/**
 * The HTTP answer an MCP server that verifies in-process gives a denied request; undefined for
 * a valid key. Pass `MISSING_KEY` when the request carried no bearer key.
 */
export function denialResponse(
  result: VerifyResult | typeof MISSING_KEY,
  options: DenialOptions = {},
): Response | undefined {
  if (result.outcome === 'valid') return undefined;
  return toResponse(mcpDenial(result, options));
}
