import { effectiveAccess } from '#lib/access/scopes';
import { parseGrantCredential } from '#lib/keys/format';
import { type KeyRecord, keyStatus, type TokenDigest } from '#lib/keys/model';
import { assertPolicyAllows } from '#lib/workspace-policy/rules';
import { type OAuthDeps, parseScope } from '../deps.ts';
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

/** Which of a grant's refresh tokens was presented: the current one, a replaced one, or none. */
async function presentedRefresh(
  deps: OAuthDeps,
  grant: KeyRecord,
  token: string,
): Promise<'current' | TokenDigest | undefined> {
  // Stryker disable next-line OptionalChaining: equivalent, a grant record always holds its grant details (grantOf checks them)
  if (await matches(deps, grant, token, grant.grant?.refresh)) return 'current';
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent, the details are always there, and an entry without a digest matches nothing
  for (const old of grant.grant?.replaced_refresh ?? [])
    if (await matches(deps, grant, token, old.digest)) return old;
  return undefined;
}

/**
 * `grant_type=refresh_token` (RFC 6749 §6, OAuth 2.1 rotation): the refresh token rotates on
 * every use; the one just replaced stays usable for its grace, and one presented after it revokes
 * the grant. The policies and the person's roles are applied again.
 */
export async function refresh(deps: OAuthDeps, params: TokenParams): Promise<TokenResponse> {
  const parsed = parseGrantCredential(params.refresh_token);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, a credential of another kind (or none) matches none of the refresh digests of the grant it names: the same invalid_grant follows (test/integration/oauth-token-endpoint.test.ts)
  if (!parsed.ok || parsed.kind !== 'refresh_token') throw invalidGrant('The refresh token is not valid.');
  for (let attempt = 0; attempt < 3; attempt++) {
    const grant = await grantOf(deps, parsed.id);
    if (!grant?.grant) throw invalidGrant('The refresh token is not valid.');
    const now = deps.now();
    const presented = await presentedRefresh(deps, grant, parsed.token);
    if (!presented) throw invalidGrant('The refresh token is not valid.');
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent for the first operand, 'current' has no until and undefined <= a timestamp is false (the comparison is killed by test/integration/oauth-token-endpoint.test.ts)
    if (presented !== 'current' && presented.until <= now.toISOString()) {
      // A replaced refresh token used after its grace: two holders, one of them not the app.
      await revokeGrant(deps, grant, 'refresh_reuse');
      throw invalidGrant('The refresh token was already used; the grant is revoked. Sign in again.');
    }
    const status = keyStatus(grant, now);
    if (status !== 'active') throw invalidGrant(`The grant is ${status}; sign in again.`);
    checkClient(grant, params.client_id);
    checkResource(grant, params.resource);
    if (params.scope !== undefined) {
      const scopes = parseScope(params.scope);
      if (!scopes?.every((s) => grant.scopes.includes(s)))
        throw new OAuthError('invalid_scope', 'A refresh cannot add scopes the person did not grant.');
    }
    await stillAllowed(deps, grant);
    const { tokens, response } = await mintTokens(deps, grant, now, replacing(grant, now));
    if (await deps.store.replaceTokens(grant, tokens)) return response;
    // A concurrent refresh replaced the tokens first: read the grant again.
  }
  throw new OAuthError('temporarily_unavailable', 'Too many concurrent refreshes of this grant; retry.', 503);
}

/** The workspace policies and the person's roles, applied again on every refresh. */
async function stillAllowed(deps: OAuthDeps, grant: KeyRecord): Promise<void> {
  const [roles, policies] = await Promise.all([
    deps.memberships.rolesFor(grant.user_id, grant.workspace_ids),
    deps.policies ? deps.policies.policiesFor(grant.workspace_ids) : Promise.resolve(new Map()),
  ]);
  try {
    // Stryker disable next-line OptionalChaining: equivalent, a grant record always holds its grant details (grantOf checks them)
    assertPolicyAllows(grant.workspace_ids, grant.scopes, policies, grant.grant?.client);
  } catch {
    throw invalidGrant('A workspace policy no longer allows this grant; sign in again.');
  }
  if (effectiveAccess(grant.workspace_ids, grant.scopes, roles).length === 0)
    throw invalidGrant('The person no longer has access to any of the grant’s workspaces.');
}
