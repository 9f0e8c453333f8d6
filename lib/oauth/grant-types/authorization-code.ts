import { createHash, timingSafeEqual } from 'node:crypto';
import { parseGrantCredential } from '#lib/keys/format';
import type { OAuthDeps } from '../deps.ts';
import { OAuthError } from '../errors.ts';
import type { TokenParams } from '../token-params.ts';
import {
  grantOf,
  invalidGrant,
  matches,
  mintTokens,
  replacing,
  revokeGrant,
  type TokenResponse,
} from '../tokens.ts';
import { checkClient, checkResource } from './checks.ts';

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Stryker disable next-line ConditionalExpression: equivalent, a SHA-256 in base64url and a challenge (43 characters, checked at authorize) are always the same length
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, OAuth 2.1): the code is single use and bound to
 * the client, the redirect URI, the resource and the PKCE verifier; a code presented again revokes
 * the grant it made.
 */
export async function redeemCode(deps: OAuthDeps, params: TokenParams): Promise<TokenResponse> {
  const parsed = parseGrantCredential(params.code);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, a credential of another kind (or none) matches no code digest of the grant it names, so the same invalid_grant follows (test/integration/oauth-token-endpoint.test.ts)
  if (!parsed.ok || parsed.kind !== 'authorization_code')
    throw invalidGrant('The authorization code is not valid.');
  const grant = await grantOf(deps, parsed.id);
  if (!grant?.grant) throw invalidGrant('The authorization code is not valid.');
  const now = deps.now();
  const details = grant.grant;
  if (!details.code) {
    // A code presented again after it was redeemed: whoever holds it may have stolen it, so the
    // grant it made is revoked (OAuth 2.1 §4.1.3).
    if (await matches(deps, grant, parsed.token, details.redeemed_code)) {
      await revokeGrant(deps, grant, 'code_replay');
      throw invalidGrant('The authorization code was already used; the grant it made is revoked.');
    }
    throw invalidGrant('The authorization code is not valid.');
  }
  if (!(await matches(deps, grant, parsed.token, details.code.digest)))
    throw invalidGrant('The authorization code is not valid.');
  if (grant.revoked_at) throw invalidGrant('The grant was revoked.');
  if (details.code.until <= now.toISOString())
    throw invalidGrant('The authorization code has expired (60 seconds); sign in again.');
  checkClient(grant, params.client_id);
  if (params.redirect_uri !== details.redirect_uri)
    throw invalidGrant('The redirect_uri differs from the authorization request’s.');
  checkResource(grant, params.resource);
  const verifier = params.code_verifier;
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
    throw new OAuthError('invalid_request', 'A PKCE code_verifier (43–128 characters) is required.');
  if (!sameText(s256(verifier), details.code.challenge))
    throw invalidGrant('The PKCE code_verifier does not match.');
  // A widened grant's code (scope step-up) replaces the tokens it had, which keep their grace.
  const { tokens, response } = await mintTokens(
    deps,
    grant,
    now,
    details.refresh ? replacing(grant, now) : undefined,
  );
  if (!(await deps.store.redeemCode(grant, tokens))) {
    // Redeemed (or revoked) by a concurrent request: only one may win, and the other is a replay.
    const current = await grantOf(deps, grant.id);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, the grant was read before, and revoking a revoked grant does nothing (revokeGrant returns)
    if (current && !current.revoked_at) await revokeGrant(deps, current, 'code_replay');
    throw invalidGrant('The authorization code was already used; the grant it made is revoked.');
  }
  // Stryker disable next-line ConditionalExpression: equivalent for `true`, a verified client has no registration to keep and keeping a missing one changes nothing (`false` is killed by test/integration/oauth-token-endpoint.test.ts)
  if (details.client.verified_domain === null) await deps.store.keepClient(details.client.id, now);
  return response;
}
