import { SCOPES } from '#lib/access/scopes';
import type { OAuthSettings } from './model.ts';

/**
 * Where the authorization server and the MCP servers it protects describe themselves (RFC 8414,
 * RFC 9728), and the paths of the protocol's endpoints: what the route modules serve and what
 * infrastructure that serves a document of its own (`McpKeyAuthorizer`) needs, without loading
 * any endpoint's code.
 */
export const OAUTH_PATHS = {
  asMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  resourceMetadata: '/.well-known/oauth-protected-resource',
  register: '/oauth/register',
  registerFallback: '/register',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
} as const;

/** The token, registration and metadata endpoints are called from browser-based clients too (no cookies). */
export const OPEN_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-max-age': '3600',
};

/** RFC 7523's grant type, with which a client presents an ID-JAG (contract §17). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The ID-JAG's profile of it (draft-ietf-oauth-identity-assertion-authz-grant). */
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

/** Whether the deployment trusts an identity provider, so exchanges ID-JAGs. */
export const enterpriseOn = (settings: OAuthSettings) => (settings.identityProviders?.length ?? 0) > 0;

/** The grant types the token endpoint exchanges here: the ID-JAG's only with a trusted IdP. */
export const grantTypesSupported = (settings: OAuthSettings): string[] => [
  'authorization_code',
  'refresh_token',
  ...(enterpriseOn(settings) ? [JWT_BEARER_GRANT] : []),
];

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/** The authorization server's metadata (RFC 8414), at `/.well-known/oauth-authorization-server`. */
export function authorizationServerMetadata(settings: OAuthSettings) {
  const at = (path: string) => new URL(path.slice(1), withSlash(settings.issuer)).href;
  return {
    issuer: settings.issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    registration_endpoint: at(OAUTH_PATHS.register),
    revocation_endpoint: at(OAUTH_PATHS.revoke),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: grantTypesSupported(settings),
    ...(enterpriseOn(settings) && { authorization_grant_profiles_supported: [ID_JAG_PROFILE] }),
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: settings.clientMetadataDocuments !== false,
    authorization_response_iss_parameter_supported: true,
  };
}

/** Protected Resource Metadata (RFC 9728) of one MCP server. */
export function protectedResourceDocument(resource: string, issuer: string) {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
  };
}

/**
 * Where an MCP server's Protected Resource Metadata is (RFC 9728 §3.1): the well-known prefix
 * inserted between the origin and the resource's path.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${OAUTH_PATHS.resourceMetadata}${path}`;
}

/**
 * The resource whose metadata a `/.well-known/oauth-protected-resource…` path asks for: the
 * first resource at the bare path, else the one whose path follows the prefix.
 */
export function resourceForMetadataPath(resources: readonly string[], path: string): string | undefined {
  const suffix = path.slice(OAUTH_PATHS.resourceMetadata.length);
  if (suffix === '') return resources[0];
  return resources.find((r) => new URL(r).pathname === suffix);
}
