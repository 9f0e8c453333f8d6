import type { Scope } from '#lib/access/scopes';
import type { IdentityProvider } from '#lib/identity/providers';
import type { GrantClient } from '#lib/keys/model';

/**
 * The OAuth 2.1 authorization server's own records and limits (contract §15). A grant is a
 * credential of the keys table (`KeyRecord` with `kind: 'oauth_grant'`); what lives here is what
 * exists before a grant does: the authorization request the consent page decides, and the
 * clients that registered themselves.
 */
export const OAUTH_LIMITS = {
  /** How long an authorization request waits for the person's decision. */
  requestSeconds: 600,
  /** How long an authorization code may be redeemed. */
  codeSeconds: 60,
  /** An access token's life. */
  accessTokenSeconds: 3600,
  /** How long a replaced refresh token (and the access token it came with) stays usable. */
  refreshGraceSeconds: 60,
  /** Replaced refresh tokens a grant remembers, to detect their reuse. */
  replacedRefreshTokens: 5,
} as const;

/** A valid `GET /oauth/authorize`, stored until the person approves or denies it (single use). */
export interface AuthorizationRequest {
  id: string;
  client: GrantClient;
  redirect_uri: string;
  redirect_host: string;
  state?: string | undefined;
  code_challenge: string;
  resource: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string;
  /** The id the grant will have once approved: its code is derived from it, so a repeated approve answers the same. */
  grant_id: string;
  /** The first user who opened it; nobody else may see or decide it. */
  user_id?: string;
  decision?: 'approved' | 'denied';
}

/** A client registered by RFC 7591 dynamic registration (a public client: no secret). */
export interface RegisteredClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  created_at: string;
  /** Set once a grant used it: an unused registration expires (`OAUTH_CLIENT_LIMITS`). */
  used_at?: string;
}

/** Where a deployment's OAuth server lives and what it protects; absent when OAuth is off. */
export interface OAuthSettings {
  /** The issuer: the origin (and path) whose `/.well-known/oauth-authorization-server` describes it. */
  issuer: string;
  /** The dashboard page hosting `<svc-mcp-consent>`; `?request=<id>` is added. */
  consentPageUrl: string;
  /** The canonical URLs of the MCP servers tokens may be issued for (RFC 8707 resources). */
  resources: string[];
  /**
   * Whether a `client_id` may be a client metadata document's URL, fetched from the internet
   * (default true). Off where the functions have no route to the internet: the metadata then says
   * so, and every client registers by DCR.
   */
  clientMetadataDocuments?: boolean;
  /** Local mode only: client metadata documents may be `http://127.0.0.1` URLs. */
  loopbackMetadataDocuments?: boolean;
  /**
   * The identity providers whose ID-JAGs the token endpoint exchanges (contract §17). None: the
   * jwt-bearer grant is not offered.
   */
  identityProviders?: IdentityProvider[];
}
