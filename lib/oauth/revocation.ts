import { parseGrantCredential } from '#lib/keys/format';
import type { OAuthDeps } from './deps.ts';
import { grantOf, matches, revokeGrant } from './tokens.ts';

/** The parameters of `POST /oauth/revoke` (RFC 7009 §2.1) this server reads. */
export interface RevocationParams {
  token?: string | undefined;
  token_type_hint?: string | undefined;
  client_id?: string | undefined;
}

/**
 * `POST /oauth/revoke`: a client's access or refresh token revokes its grant. Whatever the token,
 * the answer is the same 200 (RFC 7009 §2.2): an invalid token tells nothing.
 */
export async function revokeToken(deps: OAuthDeps, params: RevocationParams): Promise<void> {
  const parsed = parseGrantCredential(params.token);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: equivalent, a code's secret (or none) matches none of the grant's token digests, so nothing is revoked either way (test/integration/oauth-token-endpoint.test.ts)
  if (!parsed.ok || parsed.kind === 'authorization_code') return;
  const grant = await grantOf(deps, parsed.id);
  if (!grant?.grant || grant.revoked_at) return;
  if (params.client_id !== undefined && params.client_id !== grant.grant.client.id) return;
  const now = deps.now().toISOString();
  const live = [
    grant.grant.refresh,
    // Stryker disable next-line OptionalChaining: equivalent, a grant has tokens only once its code is redeemed, which sets its access token with them
    grant.grant.access?.until && grant.grant.access.until > now ? grant.grant.access.digest : undefined,
    grant.grant.previous_access && grant.grant.previous_access.until > now
      ? grant.grant.previous_access.digest
      : undefined,
  ];
  for (const digest of live)
    if (await matches(deps, grant, parsed.token, digest)) return revokeGrant(deps, grant, 'client');
}
