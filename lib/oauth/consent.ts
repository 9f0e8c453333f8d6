import type { Scope } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import { grantCreated, userActor } from '#lib/events/model';
import { derivedGrantCredential } from '#lib/keys/format';
import { admitCredential, insertUnderCap } from '#lib/keys/lifecycle';
import type { GrantClient, KeyRecord } from '#lib/keys/model';
import { digestWithVersion, pepperMac } from '#lib/keys/pepper';
import { expiryAfterDays } from '#lib/keys/rules';
import { type OAuthDeps, secondsAfter, withParams } from './deps.ts';
import { type AuthorizationRequest, OAUTH_LIMITS } from './model.ts';

/** The consent API's use cases (`/v1/mcp/oauth/requests/{id}`, contract §15 "The flow" 2). */

const requestNotFound = () =>
  new AppError(
    'request_not_found',
    'This sign-in request does not exist, has expired or was already used; start again from the app.',
  );

/** The request, claimed for `userId` when nobody opened it yet; another user's, or an expired one, is not found. */
async function ownedRequest(
  deps: OAuthDeps,
  userId: string,
  requestId: string,
): Promise<AuthorizationRequest> {
  const request = await deps.store.claimRequest(requestId, userId);
  if (!request || request.user_id !== userId || request.expires_at <= deps.now().toISOString())
    throw requestNotFound();
  return request;
}

/** What the consent page shows of a request. */
export interface ConsentView {
  id: string;
  client: GrantClient;
  redirect_host: string;
  requested_scopes: Scope[];
  resource: string;
  expires_at: string;
}

export async function consentView(deps: OAuthDeps, userId: string, requestId: string): Promise<ConsentView> {
  const request = await ownedRequest(deps, userId, requestId);
  if (request.decision) throw requestNotFound();
  return {
    id: request.id,
    client: request.client,
    redirect_host: request.redirect_host,
    requested_scopes: request.scopes,
    resource: request.resource,
    expires_at: request.expires_at,
  };
}

/** The authorization code of an approved request, derived (never stored) so a repeated approve answers the same one. */
async function codeOf(deps: OAuthDeps, request: AuthorizationRequest): Promise<string> {
  const seed = await pepperMac(deps.peppers, `oauth-code\0${request.id}`);
  return derivedGrantCredential('authorization_code', request.grant_id, seed);
}

const approvedRedirect = async (deps: OAuthDeps, request: AuthorizationRequest) =>
  withParams(request.redirect_uri, {
    code: await codeOf(deps, request),
    state: request.state,
    iss: deps.oauth.issuer,
  });

const deniedRedirect = (deps: OAuthDeps, request: AuthorizationRequest) =>
  withParams(request.redirect_uri, {
    error: 'access_denied',
    error_description: 'The person declined to connect the app.',
    state: request.state,
    iss: deps.oauth.issuer,
  });

export interface ApproveInput {
  workspaceIds: string[];
  scopes: Scope[];
  expiresInDays?: number | undefined;
}

/** The grant an approved request makes, its code's digest and challenge with it. */
async function grantFor(
  deps: OAuthDeps,
  userId: string,
  request: AuthorizationRequest,
  input: ApproveInput,
  days: number,
): Promise<KeyRecord> {
  const now = deps.now();
  const version = deps.peppers.currentVersion;
  return {
    id: request.grant_id,
    user_id: userId,
    lineage_id: request.grant_id,
    name: request.client.name,
    workspace_ids: input.workspaceIds,
    scopes: input.scopes,
    digest: '',
    pepper_version: version,
    key_hint: `${request.client.verified_domain ?? request.redirect_host}`,
    created_at: now.toISOString(),
    expires_at: expiryAfterDays(now, days),
    kind: 'oauth_grant',
    grant: {
      client: request.client,
      redirect_uri: request.redirect_uri,
      redirect_host: request.redirect_host,
      resource: request.resource,
      code: {
        digest: await digestWithVersion(deps.peppers, await codeOf(deps, request), version),
        until: secondsAfter(now, OAUTH_LIMITS.codeSeconds),
        challenge: request.code_challenge,
      },
    },
  };
}

/**
 * Approves a request: create's rules apply to the grant (memberships, roles, policies, lifetime
 * and the active-credential cap), and the grant is inserted with `grant.created` while the
 * request is marked approved, in one transaction. A repeated approve answers the same redirect.
 */
export async function approve(
  deps: OAuthDeps,
  userId: string,
  requestId: string,
  input: ApproveInput,
): Promise<{ redirect_to: string }> {
  const request = await ownedRequest(deps, userId, requestId);
  if (request.decision === 'approved') return { redirect_to: await approvedRedirect(deps, request) };
  if (request.decision === 'denied') throw requestNotFound();
  const days = await admitCredential(deps, { userId, ...input }, request.client);
  const now = deps.now();
  const record = await grantFor(deps, userId, request, input, days);
  const event = grantCreated({ ...record, client: request.client }, userActor(userId), now);
  const lost = await insertUnderCap(deps, record, [event], now, (r, max, events) =>
    deps.store.approve(request, r, max, events),
  );
  if (lost) {
    // Another approval or a denial landed first: answer what it decided.
    const current = await deps.store.getRequest(request.id);
    if (current?.decision === 'approved') return { redirect_to: await approvedRedirect(deps, current) };
    throw requestNotFound();
  }
  return { redirect_to: await approvedRedirect(deps, request) };
}

export async function deny(
  deps: OAuthDeps,
  userId: string,
  requestId: string,
): Promise<{ redirect_to: string }> {
  const request = await ownedRequest(deps, userId, requestId);
  if (request.decision === 'approved') throw requestNotFound();
  if (!request.decision && !(await deps.store.deny(request))) {
    const current = await deps.store.getRequest(request.id);
    if (current?.decision !== 'denied') throw requestNotFound();
  }
  return { redirect_to: deniedRedirect(deps, request) };
}
