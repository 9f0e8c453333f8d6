import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { effectiveAccess, SCOPES, type Scope } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import { clientActor, grantCreated, grantRevoked, userActor } from '#lib/events/model';
import { derivedGrantCredential, generateGrantCredential, parseGrantCredential } from '#lib/keys/format';
import { admitCredential, insertUnderCap, type KeyServiceDeps } from '#lib/keys/lifecycle';
import {
  canonicalResource,
  type GrantClient,
  type KeyRecord,
  keyStatus,
  type TokenDigest,
} from '#lib/keys/model';
import { digestWithVersion, matchesDigest } from '#lib/keys/pepper';
import { expiryAfterDays } from '#lib/keys/rules';
import { assertPolicyAllows } from '#lib/workspace-policy/rules';
import {
  isMetadataDocumentClientId,
  OAUTH_CLIENT_LIMITS,
  type OAuthClient,
  type RegistrationMetadata,
  validateRegistration,
} from './clients.ts';
import { OAuthError } from './errors.ts';
import {
  type AuthorizationRequest,
  OAUTH_LIMITS,
  type OAuthSettings,
  type RegisteredClient,
} from './model.ts';
import type { GrantTokens, OAuthStore } from './port.ts';
import { redirectHost, redirectUriMatches } from './redirect-uris.ts';

/** Finds a client by its `client_id`: a metadata document's URL (fetched) or a registration. */
export type ClientResolver = (
  clientId: string,
) => Promise<{ ok: true; client: OAuthClient } | { ok: false; error_description: string }>;

/** What the authorization server's use cases need: the key service's ports and its own. */
export interface OAuthDeps extends KeyServiceDeps {
  store: OAuthStore;
  oauth: OAuthSettings;
  clients: ClientResolver;
}

const SCOPE_SET = new Set<string>(SCOPES);
const DEFAULT_SCOPE: Scope = 'svc.forms.read';
const secondsAfter = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
const earlier = (a: string, b: string) => (a < b ? a : b);
const grantClient = (client: OAuthClient): GrantClient => ({
  id: client.client_id,
  name: client.client_name,
  verified_domain: client.verified_domain,
});

const sameResource = (a: string, b: string) => canonicalResource(a) === canonicalResource(b);

/** The scopes of a space-separated `scope`; undefined when one is unknown. None asked: read. */
function parseScope(scope: string | null | undefined): Scope[] | undefined {
  if (!scope?.trim()) return [DEFAULT_SCOPE];
  const asked = [...new Set(scope.trim().split(/ +/))];
  return asked.every((s) => SCOPE_SET.has(s)) ? (asked as Scope[]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Authorization (RFC 6749 §4.1.1, OAuth 2.1, RFC 8707)

/** What `GET /oauth/authorize` answers: a page (nothing is redirected before the redirect URI is trusted) or a redirect. */
export type AuthorizeOutcome =
  | { kind: 'page'; status: 400; title: string; message: string }
  | { kind: 'redirect'; location: string };

const page = (title: string, message: string): AuthorizeOutcome => ({
  kind: 'page',
  status: 400,
  title,
  message,
});

/** The redirect URI with `params` added to its query (the fragment-free URI was validated). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Checks an authorization request (contract §15 "The flow" 1). Errors found before the client and
 * its redirect URI are known are shown as a page; after, they are redirected with `state` and
 * `iss` (RFC 6749 §4.1.2.1, RFC 9207). A valid request is stored for the consent page.
 */
export async function authorize(deps: OAuthDeps, params: URLSearchParams): Promise<AuthorizeOutcome> {
  const single = (name: string) =>
    params.getAll(name).length > 1 ? undefined : (params.get(name) ?? undefined);
  for (const name of [
    'client_id',
    'redirect_uri',
    'response_type',
    'state',
    'code_challenge',
    'resource',
    'scope',
  ])
    if (params.getAll(name).length > 1)
      return page('Invalid request', `The parameter ${name} was sent more than once.`);
  const clientId = single('client_id');
  if (!clientId)
    return page('Invalid request', 'The app sent no client_id; it cannot sign in with this server.');
  const found = await deps.clients(clientId);
  if (!found.ok) return page('Unknown app', found.error_description);
  const client = found.client;
  const asked = single('redirect_uri');
  const redirectUri = asked ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (!redirectUri)
    return page('Invalid request', 'The app sent no redirect_uri and has several registered.');
  if (!redirectUriMatches(client.redirect_uris, redirectUri))
    return page(
      'Invalid redirect',
      'The redirect_uri is not one the app registered; nothing was sent back to it.',
    );

  const state = single('state');
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: withParams(redirectUri, {
      error,
      error_description: description,
      state,
      iss: deps.oauth.issuer,
    }),
  });
  if (single('response_type') !== 'code')
    return { ...fail('unsupported_response_type', 'Only response_type=code is supported.') };
  const challenge = single('code_challenge');
  if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail('invalid_request', 'A PKCE code_challenge (S256, 43 characters) is required.');
  if (single('code_challenge_method') !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
  const named = single('resource');
  if (!named) return fail('invalid_target', 'The resource parameter (the MCP server URL) is required.');
  // Kept as the deployment writes it: the grant, the consent page and the token endpoint name one URL.
  const resource = deps.oauth.resources.find((r) => sameResource(r, named));
  if (!resource)
    return fail('invalid_target', 'The resource is not an MCP server this authorization server protects.');
  const scopes = parseScope(single('scope'));
  if (!scopes) return fail('invalid_scope', `Known scopes: ${SCOPES.join(', ')}.`);

  const now = deps.now();
  const request: AuthorizationRequest = {
    id: randomUUID(),
    client: grantClient(client),
    redirect_uri: redirectUri,
    redirect_host: redirectHost(redirectUri),
    ...(state !== undefined && { state }),
    code_challenge: challenge,
    resource,
    scopes,
    created_at: now.toISOString(),
    expires_at: secondsAfter(now, OAUTH_LIMITS.requestSeconds),
    grant_id: randomUUID(),
  };
  await deps.store.putRequest(request);
  return { kind: 'redirect', location: withParams(deps.oauth.consentPageUrl, { request: request.id }) };
}

// ---------------------------------------------------------------------------------------------
// Consent (the `/v1/mcp/oauth/requests/{id}` API)

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
  const pepper = await deps.peppers.pepper(deps.peppers.currentVersion);
  const seed = createHmac('sha256', pepper).update(`oauth-code\0${request.id}`).digest();
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
  const code = await codeOf(deps, request);
  const version = deps.peppers.currentVersion;
  const record: KeyRecord = {
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
        digest: await digestWithVersion(deps.peppers, code, version),
        until: secondsAfter(now, OAUTH_LIMITS.codeSeconds),
        challenge: request.code_challenge,
      },
    },
  };
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
  return {
    redirect_to: withParams(request.redirect_uri, { code, state: request.state, iss: deps.oauth.issuer }),
  };
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

// ---------------------------------------------------------------------------------------------
// Tokens (RFC 6749 §4.1.3 and §6, OAuth 2.1 refresh rotation)

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** Compares a presented credential with a stored digest of the grant's pepper version, in constant time. */
const matches = (deps: OAuthDeps, grant: KeyRecord, token: string, digest: string | undefined) =>
  digest
    ? matchesDigest(deps.peppers, token, { digest, pepperVersion: grant.pepper_version })
    : Promise.resolve(false);

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The grant a credential names, if it is one. */
async function grantOf(deps: OAuthDeps, id: string): Promise<KeyRecord | undefined> {
  const record = await deps.keys.get(id);
  return record?.kind === 'oauth_grant' && record.grant ? record : undefined;
}

async function revokeGrant(
  deps: OAuthDeps,
  grant: KeyRecord,
  reason: 'client' | 'code_replay' | 'refresh_reuse',
): Promise<void> {
  const now = deps.now();
  if (grant.revoked_at) return;
  await deps.keys.revoke(grant, now, [
    grantRevoked(grant, reason, clientActor(grant.grant?.client.id ?? ''), now),
  ]);
}

/** Mints an access and a refresh token for a grant, with what replacing `previous` keeps of it. */
async function mintTokens(
  deps: OAuthDeps,
  grant: KeyRecord,
  now: Date,
  previous?: { access?: TokenDigest | undefined; replacedRefresh: TokenDigest[] },
) {
  const access = generateGrantCredential('access_token', grant.id);
  const refresh = generateGrantCredential('refresh_token', grant.id);
  const until = earlier(secondsAfter(now, OAUTH_LIMITS.accessTokenSeconds), grant.expires_at);
  const graceEnd = secondsAfter(now, OAUTH_LIMITS.refreshGraceSeconds);
  const tokens: GrantTokens = {
    access: { digest: await digestWithVersion(deps.peppers, access, grant.pepper_version), until },
    refresh: await digestWithVersion(deps.peppers, refresh, grant.pepper_version),
    ...(previous?.access &&
      previous.access.until > now.toISOString() && {
        previous_access: { digest: previous.access.digest, until: earlier(previous.access.until, graceEnd) },
      }),
    ...(previous && {
      replaced_refresh: previous.replacedRefresh.slice(0, OAUTH_LIMITS.replacedRefreshTokens),
    }),
  };
  const response: TokenResponse = {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.max(1, Math.floor((Date.parse(until) - now.getTime()) / 1000)),
    refresh_token: refresh,
    scope: grant.scopes.join(' '),
  };
  return { tokens, response };
}

/** `resource`, when sent, must be the grant's (RFC 8707), in any form of its URL; a grant is for one MCP server. */
function checkResource(grant: KeyRecord, resource: string | undefined) {
  if (resource !== undefined && !sameResource(resource, grant.grant?.resource ?? ''))
    throw new OAuthError('invalid_target', 'The resource is not the MCP server this grant was given for.');
}

function checkClient(grant: KeyRecord, clientId: string | undefined) {
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
  if (clientId !== grant.grant?.client.id) throw invalidGrant('The grant was not given to this client.');
}

/** The token endpoint (`POST /oauth/token`, form-encoded). */
export async function token(deps: OAuthDeps, form: URLSearchParams): Promise<TokenResponse> {
  for (const name of new Set(form.keys()))
    if (form.getAll(name).length > 1)
      throw new OAuthError('invalid_request', `The parameter ${name} was sent more than once.`);
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code') return redeemCode(deps, form);
  if (grantType === 'refresh_token') return refresh(deps, form);
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  throw new OAuthError('unsupported_grant_type', 'Supported: authorization_code, refresh_token.');
}

async function redeemCode(deps: OAuthDeps, form: URLSearchParams): Promise<TokenResponse> {
  const parsed = parseGrantCredential(form.get('code'));
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
  checkClient(grant, form.get('client_id') ?? undefined);
  const redirectUri = form.get('redirect_uri');
  if (redirectUri !== details.redirect_uri)
    throw invalidGrant('The redirect_uri differs from the authorization request’s.');
  checkResource(grant, form.get('resource') ?? undefined);
  const verifier = form.get('code_verifier');
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
    throw new OAuthError('invalid_request', 'A PKCE code_verifier (43–128 characters) is required.');
  if (!sameText(s256(verifier), details.code.challenge))
    throw invalidGrant('The PKCE code_verifier does not match.');
  const { tokens, response } = await mintTokens(deps, grant, now);
  if (!(await deps.store.redeemCode(grant, tokens))) {
    // Redeemed (or revoked) by a concurrent request: only one may win, and the other is a replay.
    const current = await grantOf(deps, grant.id);
    if (current && !current.revoked_at) await revokeGrant(deps, current, 'code_replay');
    throw invalidGrant('The authorization code was already used; the grant it made is revoked.');
  }
  if (details.client.verified_domain === null) await deps.store.keepClient(details.client.id, now);
  return response;
}

async function refresh(deps: OAuthDeps, form: URLSearchParams): Promise<TokenResponse> {
  const parsed = parseGrantCredential(form.get('refresh_token'));
  if (!parsed.ok || parsed.kind !== 'refresh_token') throw invalidGrant('The refresh token is not valid.');
  for (let attempt = 0; attempt < 3; attempt++) {
    const grant = await grantOf(deps, parsed.id);
    if (!grant?.grant) throw invalidGrant('The refresh token is not valid.');
    const details = grant.grant;
    const now = deps.now();
    const replaced = details.replaced_refresh ?? [];
    let presented: 'current' | TokenDigest | undefined;
    if (await matches(deps, grant, parsed.token, details.refresh)) presented = 'current';
    else
      for (const old of replaced)
        if (await matches(deps, grant, parsed.token, old.digest)) {
          presented = old;
          break;
        }
    if (!presented) throw invalidGrant('The refresh token is not valid.');
    if (presented !== 'current' && presented.until <= now.toISOString()) {
      // A replaced refresh token used after its grace: two holders, one of them not the app.
      await revokeGrant(deps, grant, 'refresh_reuse');
      throw invalidGrant('The refresh token was already used; the grant is revoked. Sign in again.');
    }
    const status = keyStatus(grant, now);
    if (status !== 'active') throw invalidGrant(`The grant is ${status}; sign in again.`);
    checkClient(grant, form.get('client_id') ?? undefined);
    checkResource(grant, form.get('resource') ?? undefined);
    const asked = form.get('scope');
    if (asked !== null) {
      const scopes = parseScope(asked);
      if (!scopes?.every((s) => grant.scopes.includes(s)))
        throw new OAuthError('invalid_scope', 'A refresh cannot add scopes the person did not grant.');
    }
    await stillAllowed(deps, grant);
    const graceEnd = secondsAfter(now, OAUTH_LIMITS.refreshGraceSeconds);
    const current = details.refresh ? [{ digest: details.refresh, until: graceEnd }] : [];
    const { tokens, response } = await mintTokens(deps, grant, now, {
      access: details.access,
      replacedRefresh: [...current, ...replaced],
    });
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
    assertPolicyAllows(grant.workspace_ids, grant.scopes, policies, grant.grant?.client);
  } catch {
    throw invalidGrant('A workspace policy no longer allows this grant; sign in again.');
  }
  if (effectiveAccess(grant.workspace_ids, grant.scopes, roles).length === 0)
    throw invalidGrant('The person no longer has access to any of the grant’s workspaces.');
}

// ---------------------------------------------------------------------------------------------
// Revocation (RFC 7009)

/**
 * `POST /oauth/revoke`: a client's access or refresh token revokes its grant. Whatever the token,
 * the answer is the same 200 (RFC 7009 §2.2): an invalid token tells nothing.
 */
export async function revokeToken(deps: OAuthDeps, form: URLSearchParams): Promise<void> {
  const parsed = parseGrantCredential(form.get('token'));
  if (!parsed.ok || parsed.kind === 'authorization_code') return;
  const grant = await grantOf(deps, parsed.id);
  if (!grant?.grant || grant.revoked_at) return;
  const clientId = form.get('client_id');
  if (clientId !== null && clientId !== grant.grant.client.id) return;
  const now = deps.now().toISOString();
  const live = [
    grant.grant.refresh,
    grant.grant.access?.until && grant.grant.access.until > now ? grant.grant.access.digest : undefined,
    grant.grant.previous_access && grant.grant.previous_access.until > now
      ? grant.grant.previous_access.digest
      : undefined,
  ];
  for (const digest of live)
    if (await matches(deps, grant, parsed.token, digest)) return revokeGrant(deps, grant, 'client');
}

// ---------------------------------------------------------------------------------------------
// Clients: Dynamic Client Registration (RFC 7591) and the resolver authorize uses

/** What `POST /oauth/register` answers (RFC 7591 §3.2.1): the metadata accepted, and the client's id. */
export interface RegistrationResponse extends RegistrationMetadata {
  client_id: string;
  client_id_issued_at: number;
}

/** Registers a public client; it is shown as unverified and expires unless a grant uses it. */
export async function register(
  deps: Pick<OAuthDeps, 'store' | 'now'>,
  body: unknown,
): Promise<RegistrationResponse> {
  const result = validateRegistration(body);
  if (!result.ok) throw new OAuthError(result.error, result.error_description);
  const now = deps.now();
  const client: RegisteredClient = {
    client_id: randomUUID(),
    client_name: result.metadata.client_name,
    redirect_uris: result.metadata.redirect_uris,
    created_at: now.toISOString(),
  };
  await deps.store.putClient(client, new Date(now.getTime() + OAUTH_CLIENT_LIMITS.unusedRegistrationMs));
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...result.metadata,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The client of a `client_id`: a metadata document's URL is fetched (with the SSRF rules of
 * `client-metadata.ts`); anything else must be a live registration of this server.
 */
export function clientResolver(
  deps: Pick<OAuthDeps, 'store' | 'now'>,
  fetchDocument: ClientResolver,
  options: { allowLoopbackHttp?: boolean; metadataDocuments?: boolean | undefined } = {},
): ClientResolver {
  const unknown = {
    ok: false,
    error_description:
      'This app is not registered with this server, or its registration expired; remove the server from the app and add it again.',
  } as const;
  const documentsOff = {
    ok: false,
    error_description:
      'This server does not accept apps that identify themselves by a metadata document URL: the app has to register with the server (dynamic client registration) instead.',
  } as const;
  return async (clientId) => {
    if (isMetadataDocumentClientId(clientId, options))
      return options.metadataDocuments === false ? documentsOff : fetchDocument(clientId);
    if (!UUID.test(clientId)) return unknown;
    const registered = await deps.store.getClient(clientId);
    const expired =
      registered &&
      !registered.used_at &&
      Date.parse(registered.created_at) + OAUTH_CLIENT_LIMITS.unusedRegistrationMs <= deps.now().getTime();
    if (!registered || expired) return unknown;
    return {
      ok: true,
      client: {
        client_id: registered.client_id,
        client_name: registered.client_name,
        redirect_uris: registered.redirect_uris,
        verified_domain: null,
        registration: 'dynamic',
      },
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Discovery (RFC 8414, RFC 9728)

/** The authorization server's metadata (RFC 8414), at `/.well-known/oauth-authorization-server`. */
export function authorizationServerMetadata(settings: OAuthSettings) {
  const at = (path: string) => new URL(path, withSlash(settings.issuer)).href;
  return {
    issuer: settings.issuer,
    authorization_endpoint: at('oauth/authorize'),
    token_endpoint: at('oauth/token'),
    registration_endpoint: at('oauth/register'),
    revocation_endpoint: at('oauth/revoke'),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: settings.clientMetadataDocuments !== false,
    authorization_response_iss_parameter_supported: true,
  };
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/** Protected Resource Metadata (RFC 9728) of one MCP server. */
export function protectedResourceDocument(resource: string, issuer: string) {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
  };
}

/**
 * Where an MCP server's Protected Resource Metadata is (RFC 9728 §3.1): the well-known prefix
 * inserted between the origin and the resource's path.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
