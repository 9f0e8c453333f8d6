import { clientActor, grantRevoked } from '#lib/events/model';
import { generateGrantCredential } from '#lib/keys/format';
import type { KeyRecord, TokenDigest } from '#lib/keys/model';
import { digestWithVersion, matchesDigest } from '#lib/keys/pepper';
import { earlier, type OAuthDeps, secondsAfter } from './deps.ts';
import { OAuthError } from './errors.ts';
import { OAUTH_LIMITS } from './model.ts';
import type { GrantTokens } from './port.ts';

/**
 * What every grant type of the token endpoint shares: the answer, the grant a credential names,
 * the comparison of a presented secret with a stored digest, minting, and revoking a grant for
 * what a client did.
 */

/** The token endpoint's answer (RFC 6749 §5.1) for a code or a refresh token. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** The answer to an ID-JAG: an access token alone, so the client asks its IdP again (contract §17). */
export type AccessTokenResponse = Omit<TokenResponse, 'refresh_token'>;

/** A new access token for a grant: the token, its digest and expiry as stored, and its `expires_in`. */
export async function mintAccessToken(deps: OAuthDeps, grant: KeyRecord, now: Date) {
  const token = generateGrantCredential('access_token', grant.id);
  const until = earlier(secondsAfter(now, OAUTH_LIMITS.accessTokenSeconds), grant.expires_at);
  return {
    token,
    stored: {
      digest: await digestWithVersion(deps.peppers, token, grant.pepper_version),
      until,
    } as TokenDigest,
    expiresIn: Math.max(1, Math.floor((Date.parse(until) - now.getTime()) / 1000)),
  };
}

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** Compares a presented credential with a stored digest of the grant's pepper version, in constant time. */
export const matches = (deps: OAuthDeps, grant: KeyRecord, token: string, digest: string | undefined) =>
  digest
    ? matchesDigest(deps.peppers, token, { digest, pepperVersion: grant.pepper_version })
    : Promise.resolve(false);

/** The grant a credential names, if it is one. */
export async function grantOf(deps: OAuthDeps, id: string): Promise<KeyRecord | undefined> {
  const record = await deps.keys.get(id);
  // Stryker disable next-line ConditionalExpression: equivalent, a record holds `grant` exactly when its kind is oauth_grant, and every caller checks `grant` again (the other mutants of this line are killed by test/integration/oauth-token-endpoint.test.ts)
  return record?.kind === 'oauth_grant' && record.grant ? record : undefined;
}

/** Revokes a grant for what its client did (or what was done with its tokens), with its event. */
export async function revokeGrant(
  deps: OAuthDeps,
  grant: KeyRecord,
  reason: 'client' | 'code_replay' | 'refresh_reuse',
): Promise<void> {
  const now = deps.now();
  // Stryker disable next-line ConditionalExpression: equivalent, the key store refuses to revoke a revoked key and writes no event; this saves the write
  if (grant.revoked_at) return;
  await deps.keys.revoke(grant, now, [
    // Stryker disable next-line OptionalChaining,StringLiteral: equivalent, a grant record always holds its grant details
    grantRevoked(grant, reason, clientActor(grant.grant?.client.id ?? ''), now),
  ]);
}

/** What a new pair of tokens keeps of the pair it replaces. */
export interface ReplacedTokens {
  access?: TokenDigest | undefined;
  replacedRefresh: TokenDigest[];
}

/** Mints an access and a refresh token for a grant, with what replacing `previous` keeps of it. */
export async function mintTokens(deps: OAuthDeps, grant: KeyRecord, now: Date, previous?: ReplacedTokens) {
  const access = await mintAccessToken(deps, grant, now);
  const refresh = generateGrantCredential('refresh_token', grant.id);
  const graceEnd = secondsAfter(now, OAUTH_LIMITS.refreshGraceSeconds);
  const tokens: GrantTokens = {
    access: access.stored,
    refresh: await digestWithVersion(deps.peppers, refresh, grant.pepper_version),
    ...(previous?.access &&
      previous.access.until > now.toISOString() && {
        previous_access: { digest: previous.access.digest, until: earlier(previous.access.until, graceEnd) },
      }),
    ...(previous && {
      replaced_refresh: previous.replacedRefresh.slice(0, OAUTH_LIMITS.replacedRefreshTokens),
    }),
  };
  const response = {
    access_token: access.token,
    token_type: 'Bearer' as const,
    expires_in: access.expiresIn,
    refresh_token: refresh,
    scope: grant.scopes.join(' '),
  };
  return { tokens, response };
}

/** What replacing a grant's current tokens now keeps of them: the refresh token for its grace. */
export function replacing(grant: KeyRecord, now: Date): ReplacedTokens {
  const details = grant.grant;
  const graceEnd = secondsAfter(now, OAUTH_LIMITS.refreshGraceSeconds);
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent, a grant's details are always there, and both callers replace tokens that exist (a refresh token is current)
  const current = details?.refresh ? [{ digest: details.refresh, until: graceEnd }] : [];
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent, a grant's details are always there, and an entry without a digest matches nothing
  return { access: details?.access, replacedRefresh: [...current, ...(details?.replaced_refresh ?? [])] };
}
