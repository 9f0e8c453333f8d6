import type { WorkspaceAccess } from '#lib/access/scopes';
import type { ValidResult } from '#lib/keys/verify';

/**
 * What an MCP server's handlers learn of the caller: the MCP SDK's `AuthInfo`
 * (`@modelcontextprotocol/sdk/server/auth/types.js`), declared here so that the verifier entry
 * needs no SDK. A value of this type is an SDK `AuthInfo`, for `requireBearerAuth`, a transport's
 * `handleRequest(request, { authInfo })` or a tool's `extra.authInfo`.
 */
export interface AuthInfo {
  /** The credential as presented: an API key, or an OAuth access token. */
  token: string;
  /** The OAuth client's id for a grant; the key's id for an API key. */
  clientId: string;
  /** The effective scopes across `extra.workspaces`. */
  scopes: string[];
  /** When the credential expires, in whole seconds since the epoch (for a grant, its access token's expiry). */
  expiresAt: number;
  /**
   * The MCP server (RFC 8707 resource) the credential is valid for: an access token's own; for an
   * API key, which every MCP server of the deployment accepts, the verifier's `resource` when the
   * integrations build it.
   */
  resource?: URL;
  /**
   * The MCP server's Protected Resource Metadata URL (RFC 9728), when the guard or middleware
   * serves it: `requireScopes` names it in a step-up challenge, as the SDK's own challenges do.
   */
  resourceMetadataUrl?: string;
  /** Who the caller is and where it may act. */
  extra: AuthInfoExtra;
}

/**
 * The caller beyond OAuth's terms. A type rather than an interface, so that it is assignable to the
 * SDK's `extra: Record<string, unknown>`.
 */
export type AuthInfoExtra = {
  /** The key's (or grant's) creator, on whose behalf the call acts. */
  user_id: string;
  /** The key's id, or the grant's. */
  key_id: string;
  kind: ValidResult['kind'];
  /** The workspaces the credential reaches now, each with the creator's role and the effective scopes. */
  workspaces: WorkspaceAccess[];
};

/** A valid result as read here: an OAuth grant's result also names its client and its resource. */
type Credential = ValidResult & { client_id?: string | undefined; resource?: string | undefined };

const urlOf = (value: string | URL | undefined) =>
  // Stryker disable next-line ConditionalExpression: equivalent for `value === undefined`, String(undefined) does not parse either (the line's other mutants are killed by test/unit/integrations-edges.test.ts)
  value === undefined || !URL.canParse(String(value)) ? undefined : new URL(String(value));

/**
 * The MCP SDK's `AuthInfo` for a valid verification (contract §16): `clientId` is the OAuth
 * client's for a grant and the key's id for an API key, `expiresAt` the credential's expiry in
 * seconds, `resource` the access token's (an API key has none), and `extra` who the caller is.
 */
export function toAuthInfo(result: ValidResult, token: string): AuthInfo {
  return authInfoFor(result, token, undefined);
}

/**
 * `toAuthInfo`, with the MCP server's own resource for a credential bound to none (an API key), and
 * the server's metadata URL when it serves one.
 */
export function authInfoFor(
  result: ValidResult,
  token: string,
  serverResource: URL | undefined,
  resourceMetadataUrl?: string,
): AuthInfo {
  const credential: Credential = result;
  const resource = urlOf(credential.resource) ?? urlOf(serverResource);
  return {
    token,
    clientId: credential.client_id ?? result.key_id,
    scopes: [...result.scopes],
    // Rounded down: a credential is never reported as living longer than it does.
    expiresAt: Math.floor(Date.parse(result.expires_at) / 1000),
    ...(resource && { resource }),
    ...(resourceMetadataUrl && { resourceMetadataUrl }),
    extra: {
      user_id: result.user_id,
      key_id: result.key_id,
      kind: result.kind,
      workspaces: result.workspaces,
    },
  };
}
