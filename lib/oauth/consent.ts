import type { Scope } from '#lib/access/scopes';
import { hasRules } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import { grantCreated, userActor } from '#lib/events/model';
import { derivedGrantCredential } from '#lib/keys/format';
import { type Admitted, admitCredential, insertUnderCap } from '#lib/keys/lifecycle';
import { hasLimits, type Limits } from '#lib/keys/limits';
import type { GrantClient, KeyRecord } from '#lib/keys/model';
import { digestWithVersion, pepperMac } from '#lib/keys/pepper';
import { expiryAfterDays } from '#lib/keys/rules';
import { type OAuthDeps, secondsAfter, withParams } from './deps.ts';
import { type AuthorizationRequest, OAUTH_LIMITS } from './model.ts';
import { addedScopes, grantWorkspaces, liveGrantFor, widened, wideningEvents } from './widening.ts';

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

/** The live grant a request would widen, as the consent page shows it. */
export interface WidenedGrant {
  id: string;
  scopes: Scope[];
  workspace_ids: string[];
  expires_at: string;
}

/** What the consent page shows of a request. */
export interface ConsentView {
  id: string;
  client: GrantClient;
  redirect_host: string;
  /** What the app asks for; when it widens a live grant, only what it adds. */
  requested_scopes: Scope[];
  resource: string;
  expires_at: string;
  /** The live grant the person gave this app for this MCP server, which approving widens; else null. */
  grant: WidenedGrant | null;
}

export async function consentView(deps: OAuthDeps, userId: string, requestId: string): Promise<ConsentView> {
  const request = await ownedRequest(deps, userId, requestId);
  if (request.decision) throw requestNotFound();
  const live = await liveGrantFor(deps, userId, request);
  return {
    id: request.id,
    client: request.client,
    redirect_host: request.redirect_host,
    requested_scopes: live ? addedScopes(live, request.scopes) : request.scopes,
    resource: request.resource,
    expires_at: request.expires_at,
    grant: live
      ? {
          id: live.id,
          scopes: live.scopes,
          workspace_ids: grantWorkspaces(live),
          expires_at: live.expires_at,
        }
      : null,
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
  /** The tools the person left ticked (contract §19); absent or null: every tool its scopes allow. */
  tools?: string[] | null | undefined;
  /** The calls per UTC minute and day the person allowed the app (contract §19). */
  limits?: Limits | undefined;
}

/** The grant an approved request makes, its code's digest and challenge with it. */
async function grantFor(
  deps: OAuthDeps,
  userId: string,
  request: AuthorizationRequest,
  input: ApproveInput,
  { days, tools, workspaceRules }: Admitted,
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
    ...(tools && { tools }),
    ...(hasLimits(input.limits) && { limits: input.limits }),
    ...(hasRules(workspaceRules) && { workspace_rules: workspaceRules }),
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
  const live = await liveGrantFor(deps, userId, request);
  if (live) return widen(deps, request, live, input);
  const admitted = await admitCredential(deps, { userId, ...input }, request.client);
  const now = deps.now();
  const record = await grantFor(deps, userId, request, input, admitted);
  const event = grantCreated({ ...record, client: request.client }, userActor(userId), now);
  const lost = await insertUnderCap(deps, record, [event], now, (r, max, events) =>
    deps.store.approve(request, r, max, events),
  );
  // Stryker disable next-line ConditionalExpression: equivalent, an approval that landed reads back as approved, and decidedElsewhere answers the same redirect (a read more)
  if (lost) return decidedElsewhere(deps, request);
  return { redirect_to: await approvedRedirect(deps, request) };
}

/** Another approval or a denial landed first: what it decided. */
async function decidedElsewhere(deps: OAuthDeps, request: AuthorizationRequest) {
  const current = await deps.store.getRequest(request.id);
  if (current?.decision === 'approved') return { redirect_to: await approvedRedirect(deps, current) };
  throw requestNotFound();
}

/**
 * Approves a request that widens the person's live grant to its app (step-up, or a sign-in again
 * adding workspaces): the grant gets the approved scopes and workspaces besides its own and a new
 * code (its redirect the request's), with `grant.updated`, while the request is marked approved
 * and pointed at the grant, in one transaction. The code redeems for tokens of the widened grant;
 * no second grant is made.
 */
async function widen(
  deps: OAuthDeps,
  request: AuthorizationRequest,
  live: KeyRecord,
  input: ApproveInput,
): Promise<{ redirect_to: string }> {
  const next = await widened(deps, live, input);
  const now = deps.now();
  const target = { ...request, grant_id: live.id };
  const code = await codeOf(deps, target);
  const outcome = await deps.store.widen(
    request,
    live,
    {
      scopes: next.scopes,
      workspace_ids: next.workspaceIds,
      code: {
        digest: await digestWithVersion(deps.peppers, code, live.pepper_version),
        until: secondsAfter(now, OAUTH_LIMITS.codeSeconds),
        challenge: request.code_challenge,
      },
      redirect_uri: request.redirect_uri,
      redirect_host: request.redirect_host,
      tools: next.tools,
      workspace_rules: next.workspaceRules,
    },
    wideningEvents(live, next, now),
    now,
  );
  if (outcome === 'widened') return { redirect_to: await approvedRedirect(deps, target) };
  if (outcome === 'already_decided') return decidedElsewhere(deps, request);
  throw new AppError(
    'conflict',
    'The app’s access changed while you were approving (revoked, cut off or widened elsewhere); start again from the app.',
  );
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
