import { SCOPES, type Scope } from '#lib/access/scopes';
import { type McpAnswer, toResponse } from '#lib/mcp/answer';

/** Where RFC 9728 puts a resource's metadata, before the resource's own path. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The Protected Resource Metadata document (RFC 9728) of an MCP server using this service (contract §15). */
export interface ProtectedResourceMetadata {
  /** The MCP server's canonical URL. */
  resource: string;
  /** The issuers of the authorization servers that issue its access tokens. */
  authorization_servers?: string[];
  /** The scopes a credential may carry (contract §4). */
  scopes_supported: Scope[];
  /** Credentials are sent in the `Authorization` header only. */
  bearer_methods_supported: ['header'];
}

/** What the metadata names besides the resource. */
export interface ProtectedResourceMetadataOptions {
  /**
   * The issuer URLs of the authorization servers: the key service's, when it runs OAuth (contract
   * §15). Without one, an OAuth client finds no server to sign in with. @default none listed
   */
  authorizationServers?: readonly string[];
}

/** The resource as a URL; throws a `TypeError` when it cannot identify an MCP server (RFC 8707 §2). */
export function resourceUrl(resource: string | URL): URL {
  const url = URL.canParse(String(resource)) ? new URL(String(resource)) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash)
    throw new TypeError(
      `the resource must be the MCP server's absolute http(s) URL without a fragment, not ${JSON.stringify(String(resource))}`,
    );
  return url;
}

/**
 * The Protected Resource Metadata document of an MCP server (contract §15), for servers that
 * answer with something other than a `Response`. Throws a `TypeError` for a resource that is not
 * an absolute http(s) URL without a fragment.
 */
export function protectedResourceMetadataDocument(
  resource: string | URL,
  options: ProtectedResourceMetadataOptions = {},
): ProtectedResourceMetadata {
  const servers = options.authorizationServers ?? [];
  return {
    resource: resourceUrl(resource).href,
    ...(servers.length > 0 && { authorization_servers: [...servers] }),
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
  };
}

/** The document as an HTTP answer: JSON, readable from any origin (it is public, and browser clients fetch it). */
export function metadataAnswer(
  resource: string | URL,
  options: ProtectedResourceMetadataOptions = {},
): McpAnswer {
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
    body: JSON.stringify(protectedResourceMetadataDocument(resource, options)),
  };
}

/**
 * The Protected Resource Metadata of an MCP server as a `Response` (contract §15):
 * `{ resource, authorization_servers, scopes_supported, bearer_methods_supported: ["header"] }`,
 * `application/json`. Serve it at `protectedResourceMetadataUrl(resource)`.
 */
export function protectedResourceMetadata(
  resource: string | URL,
  options: ProtectedResourceMetadataOptions = {},
): Response {
  return toResponse(metadataAnswer(resource, options));
}

/**
 * Where a client looks for the resource's metadata (RFC 9728 §3.1): the resource's origin,
 * `/.well-known/oauth-protected-resource`, then the resource's path, e.g.
 * `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`; or `path` on that origin.
 * For `requireBearerAuth({ resourceMetadataUrl })` and `WWW-Authenticate`'s `resource_metadata`.
 */
export function protectedResourceMetadataUrl(resource: string | URL, path?: string): string {
  const url = resourceUrl(resource);
  const own = url.pathname === '/' ? '' : url.pathname;
  return new URL(path ?? `${PROTECTED_RESOURCE_METADATA_PATH}${own}`, url.origin).href;
}
