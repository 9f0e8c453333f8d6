import { type McpAnswer, toResponse } from '#lib/mcp/answer';
import { mcpDenial } from '#lib/mcp/denial';
import type { AuthInfo } from './auth-info.ts';

/**
 * Scopes per operation (contract §15 revised in turn 5): an MCP server protects a tool with one
 * call. A credential is valid for the workspaces and scopes it was given; an operation that needs
 * a scope it lacks is refused with a 403 the client can act on: an OAuth credential's names the
 * scope with `insufficient_scope`, so its client asks the person again (SEP-2350, the grant is
 * widened); an API key's is contract §7's 403 with a sentence, since a key cannot step up.
 */

/**
 * What the scope checks read of a caller: an `AuthInfo` of these integrations, or the MCP SDK's
 * own (whose `extra` is any record: without this verifier's `kind`, it counts as an API key).
 */
export type ScopedCaller = Pick<AuthInfo, 'scopes' | 'resourceMetadataUrl'> & {
  extra?: { kind?: unknown } | Record<string, unknown> | undefined;
};

/** The scopes of `scopes` the credential does not have. */
export const missingScopes = (auth: Pick<AuthInfo, 'scopes'>, scopes: readonly string[]): string[] =>
  scopes.filter((scope) => !auth.scopes.includes(scope));

/** The refusal of an operation needing `scopes`, as data; undefined when the credential has them. */
export function scopeRefusal(auth: ScopedCaller, scopes: readonly string[]): McpAnswer | undefined {
  if (missingScopes(auth, scopes).length === 0) return undefined;
  return mcpDenial(
    { outcome: 'insufficient_scope', scopes, kind: auth.extra?.kind === 'oauth' ? 'oauth' : 'api_key' },
    { resourceMetadataUrl: auth.resourceMetadataUrl },
  );
}

/**
 * The answer to send instead of running an operation that needs `scopes` the caller lacks
 * (a fetch-style server behind `createMcpKeyGuard`); undefined when it has them:
 *
 * ```ts
 * if (request.headers.get('mcp-name') === 'submit_form') {
 *   const refused = requireScopes(auth, ['svc.forms.write']);
 *   if (refused) return refused;
 * }
 * ```
 *
 * An OAuth credential gets `403` with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="<scopes>", resource_metadata="…"` (its client re-authorizes for them); an API key gets
 * contract §7's 403. The JSON-RPC body says what is missing either way.
 */
export function requireScopes(auth: ScopedCaller, scopes: readonly string[]): Response | undefined {
  const refusal = scopeRefusal(auth, scopes);
  return refusal && toResponse(refusal);
}
