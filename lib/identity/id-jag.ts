import type { IdentityKeySets } from './key-sets.ts';
import type { IdentityProvider } from './providers.ts';
import { claimText, MAX_JTI_LENGTH, type TokenRefusalReason, verifySignedToken } from './signed-tokens.ts';

/**
 * The Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant;
 * the MCP Enterprise-Managed Authorization extension): what a trusted IdP issues after its own
 * policy check, for one person, one client and one MCP server, and the client trades at the token
 * endpoint. Contract §17's rules; the single use of its `jti` is the token endpoint's (it is
 * written with the grant, in one transaction).
 */

/** The ID-JAG's media type, as its header's `typ` says it. */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** The longest an ID-JAG may live (`exp − iat`). */
export const ID_JAG_MAX_LIFETIME_SECONDS = 600;

/** What a verified ID-JAG says. */
export interface IdJag {
  /** The IdP that issued it. */
  provider: IdentityProvider;
  /** The person (this service's user id: the IdP's `userClaim`). */
  userId: string;
  /** The client it was issued to. */
  clientId: string;
  /** The MCP server it is for. */
  resource: string;
  /** The scopes the IdP allowed; undefined when it named none. */
  scopes: string[] | undefined;
  jti: string;
  /** Its `exp` (ISO 8601): the `jti` is kept until then. */
  expiresAt: string;
}

export type IdJagResult =
  | { ok: true; jag: IdJag }
  | { ok: false; reason: TokenRefusalReason | 'claims'; description: string };

/** Verifies an ID-JAG for this service (`audience`: its issuer). */
export async function verifyIdJag(
  assertion: string,
  context: {
    providers: readonly IdentityProvider[];
    keySets: IdentityKeySets;
    audience: string;
    now: Date;
  },
): Promise<IdJagResult> {
  const verified = await verifySignedToken(
    assertion,
    context.providers,
    context.keySets,
    { typ: ID_JAG_TYP, audience: context.audience, maxLifetimeSeconds: ID_JAG_MAX_LIFETIME_SECONDS },
    context.now,
  );
  if (!verified.ok) return verified;
  const { provider, payload } = verified;
  const claims = (description: string): IdJagResult => ({ ok: false, reason: 'claims', description });
  const userId = claimText(payload[provider.userClaim ?? 'sub'], 256);
  if (!userId) return claims(`The ID-JAG has no ${provider.userClaim ?? 'sub'} claim naming the person.`);
  const clientId = claimText(payload.client_id);
  if (!clientId) return claims('The ID-JAG has no client_id claim.');
  const resource = claimText(payload.resource);
  if (!resource) return claims('The ID-JAG has no resource claim naming the MCP server.');
  const jti = claimText(payload.jti, MAX_JTI_LENGTH);
  if (!jti) return claims('The ID-JAG has no jti claim.');
  const scope = payload.scope;
  if (scope !== undefined && typeof scope !== 'string')
    return claims('The ID-JAG’s scope claim must be a string.');
  return {
    ok: true,
    jag: {
      provider,
      userId,
      clientId,
      resource,
      scopes: scope === undefined ? undefined : scope.split(' ').filter(Boolean),
      jti,
      expiresAt: new Date((payload.exp as number) * 1000).toISOString(),
    },
  };
}
