import type { ValidResult, VerifyResult } from '#lib/keys/verify';
import { type McpAnswer, toResponse } from '#lib/mcp/answer';
import { bearerToken } from '#lib/mcp/authorizer';
import { MISSING_KEY, mcpDenial } from '#lib/mcp/denial';
import type { McpCall } from '#lib/usage/model';
import type { McpKeyVerifier } from '#lib/verifier';
import { type AuthInfo, authInfoFor } from './auth-info.ts';
import { jsonBodyOf, mcpCallOf } from './mcp-call.ts';
import {
  metadataAnswer,
  PROTECTED_RESOURCE_METADATA_PATH,
  type ProtectedResourceMetadataOptions,
  protectedResourceMetadataUrl,
  resourceUrl,
} from './resource-metadata.ts';

/** How `createMcpKeyGuard` and `mcpKeyAuth` treat a request besides verifying its credential. */
export interface McpKeyGuardOptions extends ProtectedResourceMetadataOptions {
  /**
   * The MCP server's canonical URL (RFC 8707), e.g. `https://mcp.example.com/mcp`. Given, the
   * server advertises OAuth (contract §15): a GET of its Protected Resource Metadata is answered
   * with the document, and every 401 names it (`resource_metadata`). Give it only when the key
   * service runs OAuth, with its issuer in `authorizationServers`: a client that finds the metadata
   * starts OAuth. It is also `AuthInfo.resource` for an API key. @default none: contract §7's
   * answers, no metadata; `AuthInfo.resource` is then the verifier's `resource`
   */
  resource?: string | URL;
  /**
   * Where the metadata is served, as a path on the resource's origin (for a server mounted under a
   * prefix); the root form `/.well-known/oauth-protected-resource` is served too.
   * @default `/.well-known/oauth-protected-resource` followed by the resource's path
   */
  resourceMetadataPath?: string;
}

/** What the guard decided: the caller, or the answer to send instead (a denial, or the metadata). */
export type McpKeyGuardResult = { ok: true; auth: AuthInfo } | { ok: false; response: Response };

/** Checks one request (Web standard): `createMcpKeyGuard`'s result. */
export type McpKeyGuard = (request: Request) => Promise<McpKeyGuardResult>;

/** A request as the guard reads it: what Web and Node requests both have. */
export interface GuardedRequest {
  method: string;
  /** The path, without the query. */
  path: string;
  authorization: string | null | undefined;
  /** The MCP request, counted in the credential's usage (contract §18). */
  call?: McpCall | undefined;
}

export type Checked = { ok: true; auth: AuthInfo } | { ok: false; answer: McpAnswer };

/** The decision both adapters share: metadata, missing credential, verification, denial. */
export function requestChecker(
  verifier: McpKeyVerifier,
  options: McpKeyGuardOptions = {},
): (request: GuardedRequest) => Promise<Checked> {
  const resource = options.resource === undefined ? undefined : resourceUrl(options.resource);
  if (options.resourceMetadataPath !== undefined && !options.resourceMetadataPath.startsWith('/'))
    throw new TypeError('`resourceMetadataPath` must be a path starting with /');
  const metadataUrl = resource && protectedResourceMetadataUrl(resource, options.resourceMetadataPath);
  const metadataPaths = new Set(
    // Stryker disable next-line ArrayDeclaration: equivalent, without a resource there is no metadata to serve at any path
    metadataUrl ? [new URL(metadataUrl).pathname, PROTECTED_RESOURCE_METADATA_PATH] : [],
  );
  const metadata = resource && metadataAnswer(resource, options);
  const serverResource = resource ?? verifier.resource;

  // Every denial, today's and any a later verifier adds, is the denial table's to answer; with a
  // resource, its 401s name the metadata (and, without a credential, the scope to ask for).
  const denied = (result: Exclude<VerifyResult, ValidResult> | typeof MISSING_KEY): Checked => ({
    ok: false,
    answer: mcpDenial(result, { resourceMetadataUrl: metadataUrl }),
  });

  return async ({ method, path, authorization, call }) => {
    if (metadata && (method === 'GET' || method === 'HEAD') && metadataPaths.has(path))
      return { ok: false, answer: metadata };
    const token = bearerToken(authorization);
    if (token === undefined) return denied(MISSING_KEY);
    const result = await verifier.verify(token, call);
    if (result.outcome === 'valid')
      return { ok: true, auth: authInfoFor(result, token, serverResource, metadataUrl) };
    return denied(result);
  };
}

/**
 * Checks each request of a fetch-style server (Hono, Next.js, Bun, Deno, any `Request`) the way
 * contract §7 answers (contract §16): `{ ok: true, auth }` for a valid credential, where `auth` is
 * the MCP SDK's `AuthInfo`; otherwise `{ ok: false, response }` to send as is: the denial (status,
 * `WWW-Authenticate`, JSON-RPC body), or with `resource` the Protected Resource Metadata for a GET
 * of its URL. Throws a `TypeError` at once for a `resource` that is not an absolute URL.
 */
export function createMcpKeyGuard(verifier: McpKeyVerifier, options: McpKeyGuardOptions = {}): McpKeyGuard {
  const check = requestChecker(verifier, options);
  return async (request) => {
    const checked = await check({
      method: request.method,
      path: new URL(request.url).pathname,
      authorization: request.headers.get('authorization'),
      call: mcpCallOf((name) => request.headers.get(name), await jsonBodyOf(request)),
    });
    return checked.ok ? checked : { ok: false, response: toResponse(checked.answer) };
  };
}
