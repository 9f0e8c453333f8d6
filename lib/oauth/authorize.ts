import { randomUUID } from 'node:crypto';
import { SCOPES } from '#lib/access/scopes';
import { grantClient, type OAuthDeps, parseScope, sameResource, secondsAfter, withParams } from './deps.ts';
import { type AuthorizationRequest, OAUTH_LIMITS } from './model.ts';
import { redirectHost, redirectUriMatches, redirectUriProblem } from './redirect-uris.ts';

/** The parameters of `GET /oauth/authorize` (RFC 6749 §4.1.1, OAuth 2.1, RFC 8707), each sent at most once. */
export interface AuthorizeParams {
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  response_type?: string | undefined;
  state?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  resource?: string | undefined;
  scope?: string | undefined;
}

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

/**
 * Checks an authorization request (contract §15 "The flow" 1). Errors found before the client and
 * its redirect URI are known are shown as a page; after, they are redirected with `state` and
 * `iss` (RFC 6749 §4.1.2.1, RFC 9207). A valid request is stored for the consent page.
 */
export async function authorize(deps: OAuthDeps, params: AuthorizeParams): Promise<AuthorizeOutcome> {
  const clientId = params.client_id;
  if (!clientId)
    return page('Invalid request', 'The app sent no client_id; it cannot sign in with this server.');
  const found = await deps.clients(clientId);
  if (!found.ok) return page('Unknown app', found.error_description);
  const client = found.client;
  const redirectUri =
    params.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (!redirectUri)
    return page('Invalid request', 'The app sent no redirect_uri and has several registered.');
  if (!redirectUriMatches(client.redirect_uris, redirectUri))
    return page(
      'Invalid redirect',
      'The redirect_uri is not one the app registered; nothing was sent back to it.',
    );
  // A registration stored before a rule it breaks (a scheme refused since) is not followed either.
  // Stryker disable next-line StringLiteral: equivalent, the label only names the field in the problem's text, which this page does not show
  if (redirectUriProblem(redirectUri, 'The redirect_uri') !== undefined)
    return page(
      'Invalid redirect',
      'The app’s redirect_uri cannot receive a sign-in; nothing was sent back to it.',
    );

  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: withParams(redirectUri, {
      error,
      error_description: description,
      state: params.state,
      iss: deps.oauth.issuer,
    }),
  });
  if (params.response_type !== 'code')
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = params.code_challenge;
  if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail('invalid_request', 'A PKCE code_challenge (S256, 43 characters) is required.');
  if (params.code_challenge_method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
  const named = params.resource;
  if (!named) return fail('invalid_target', 'The resource parameter (the MCP server URL) is required.');
  // Kept as the deployment writes it: the grant, the consent page and the token endpoint name one URL.
  const resource = deps.oauth.resources.find((r) => sameResource(r, named));
  if (!resource)
    return fail('invalid_target', 'The resource is not an MCP server this authorization server protects.');
  const scopes = parseScope(params.scope);
  if (!scopes) return fail('invalid_scope', `Known scopes: ${SCOPES.join(', ')}.`);

  const now = deps.now();
  const request: AuthorizationRequest = {
    id: randomUUID(),
    client: grantClient(client),
    redirect_uri: redirectUri,
    redirect_host: redirectHost(redirectUri),
    // Stryker disable next-line ConditionalExpression: equivalent, an undefined state is not written (the document client removes undefined values)
    ...(params.state !== undefined && { state: params.state }),
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
