import { SCOPES, type Scope } from '#lib/access/scopes';
import { verifyIdJag } from '#lib/identity/id-jag';
import { type OAuthDeps, parseScope, sameResource } from '../deps.ts';
import { exchangeForGrant } from '../enterprise-grants.ts';
import { OAuthError } from '../errors.ts';
import type { TokenParams } from '../token-params.ts';
import { type AccessTokenResponse, invalidGrant } from '../tokens.ts';

const KNOWN = new Set<string>(SCOPES);

/**
 * The scopes issued (the extension's MUST): those asked for (all of the ID-JAG's when none are)
 * that the ID-JAG allows; the read scope when neither names any. Unknown scopes asked for are
 * `invalid_scope`; those only the ID-JAG names are not this server's and are ignored.
 */
function issuedScopes(asked: string | undefined, allowed: string[] | undefined): Scope[] {
  const jag = allowed?.filter((s): s is Scope => KNOWN.has(s));
  if (asked === undefined || asked.trim() === '') {
    const scopes = jag ?? parseScope(undefined) ?? [];
    if (scopes.length === 0)
      throw new OAuthError('invalid_scope', 'The ID-JAG allows none of this server’s scopes.');
    return scopes;
  }
  const requested = parseScope(asked);
  if (!requested)
    throw new OAuthError('invalid_scope', `Unknown scope; this server knows ${SCOPES.join(', ')}.`);
  const scopes = jag ? requested.filter((s) => jag.includes(s)) : requested;
  if (scopes.length === 0)
    throw new OAuthError('invalid_scope', 'The identity provider did not allow any of the scopes asked for.');
  return scopes;
}

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` with an ID-JAG (RFC 7523, the MCP
 * Enterprise-Managed Authorization extension, contract §17): the identity provider decided, so
 * there is no consent screen. The ID-JAG must pass every rule of `lib/identity/`, name the
 * client that presents it and one of this deployment's MCP servers, and be used once.
 */
export async function exchangeIdJag(deps: OAuthDeps, params: TokenParams): Promise<AccessTokenResponse> {
  const enterprise = deps.enterprise;
  const providers = deps.oauth.identityProviders ?? [];
  if (!enterprise || providers.length === 0)
    throw new OAuthError('unsupported_grant_type', 'This server trusts no identity provider.');
  if (!params.assertion) throw new OAuthError('invalid_request', 'assertion (the ID-JAG) is required.');
  if (!params.client_id) throw new OAuthError('invalid_request', 'client_id is required.');
  const client = await deps.clients(params.client_id);
  if (!client.ok) throw new OAuthError('invalid_client', client.error_description);
  const verified = await verifyIdJag(params.assertion, {
    providers,
    keySets: enterprise.keySets,
    audience: deps.oauth.issuer,
    now: deps.now(),
  });
  if (!verified.ok) {
    if (verified.reason === 'keys_unavailable')
      throw new OAuthError('temporarily_unavailable', `${verified.description} Retry later.`, 503);
    throw invalidGrant(verified.description);
  }
  const { jag } = verified;
  if (jag.clientId !== client.client.client_id)
    throw invalidGrant('The ID-JAG was issued to another client.');
  const resource = deps.oauth.resources.find((r) => sameResource(r, jag.resource));
  if (!resource)
    throw new OAuthError('invalid_target', 'The ID-JAG’s resource is not an MCP server of this service.');
  if (params.resource !== undefined && !sameResource(params.resource, resource))
    throw new OAuthError('invalid_target', 'The resource differs from the ID-JAG’s.');
  return exchangeForGrant(deps, enterprise, {
    userId: jag.userId,
    client: client.client,
    resource,
    idp: jag.provider.issuer,
    scopes: issuedScopes(params.scope, jag.scopes),
    assertion: { issuer: jag.provider.issuer, jti: jag.jti, until: jag.expiresAt },
  });
}
