import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { OAUTH_CLIENT_LIMITS } from '#lib/oauth/clients';
import { OAuthError } from '#lib/oauth/errors';
import {
  authorizationServerMetadata,
  authorize,
  type OAuthDeps,
  protectedResourceDocument,
  register,
  revokeToken,
  token,
} from '#lib/oauth/flow';
import { logger } from '#lib/observability';
import { describeError } from '#lib/redact';
import type { Grants } from '#lib/routes/route-module';

/** A Lambda proxy result (payload 2.0). */
export interface OAuthResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The paths of the OAuth protocol (contract §15), served by one function: discovery, dynamic
 * registration (and its root fallback), authorization, token and revocation. The consent API is
 * on the management routes (it needs the user's JWT).
 */
export const OAUTH_PATHS = {
  asMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  resourceMetadata: '/.well-known/oauth-protected-resource',
  register: '/oauth/register',
  registerFallback: '/register',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
} as const;

/** Whether the OAuth function serves `path`. */
export const servedByOAuth = (path: string): boolean =>
  Object.values(OAUTH_PATHS).includes(path as never) ||
  path.startsWith(`${OAUTH_PATHS.resourceMetadata}/`) ||
  path.startsWith(`${OAUTH_PATHS.asMetadata}/`);

/** The token, registration and metadata endpoints are called from browser-based clients too (no cookies). */
export const OPEN_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-max-age': '3600',
};

const json = (status: number, body: unknown, extra: Record<string, string> = {}): OAuthResult => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...OPEN_CORS, ...extra },
  body: JSON.stringify(body),
});

const oauthError = (err: OAuthError) =>
  json(
    err.status,
    { error: err.error, error_description: err.description },
    err.status === 503 ? { 'retry-after': '1' } : {},
  );

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The page an authorization error is shown on when nothing may be redirected (contract §15). */
const errorPage = (status: number, title: string, message: string): OAuthResult => ({
  statusCode: status,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-frame-options': 'DENY',
  },
  body:
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}</style></head>' +
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` +
    '<p>Nothing was sent to the app. Go back to it and try connecting again.</p></main></body></html>',
});

function bodyOf(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

const header = (event: APIGatewayProxyEventV2, name: string) =>
  Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];

/** The form body of a token or revocation request; anything else is an OAuth `invalid_request`. */
function formOf(event: APIGatewayProxyEventV2): URLSearchParams {
  const type = header(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  const body = bodyOf(event);
  if (Buffer.byteLength(body) > OAUTH_CLIENT_LIMITS.maxBodyBytes)
    throw new OAuthError('invalid_request', 'The body is too large.');
  return new URLSearchParams(body);
}

function registrationBody(event: APIGatewayProxyEventV2): unknown {
  const type = header(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json')
    throw new OAuthError(
      'invalid_client_metadata',
      'The registration must be a JSON body (application/json).',
    );
  const body = bodyOf(event);
  if (Buffer.byteLength(body) > OAUTH_CLIENT_LIMITS.maxBodyBytes)
    throw new OAuthError(
      'invalid_client_metadata',
      `The registration is larger than ${OAUTH_CLIENT_LIMITS.maxBodyBytes} bytes.`,
    );
  try {
    return JSON.parse(body);
  } catch {
    throw new OAuthError('invalid_client_metadata', 'The registration is not valid JSON.');
  }
}

const NOT_FOUND = json(404, { message: 'Not Found' });
const METHOD_NOT_ALLOWED = json(405, { error: 'invalid_request', error_description: 'Method not allowed.' });

/** The resource whose metadata a `/.well-known/oauth-protected-resource…` path asks for. */
function resourceFor(deps: OAuthDeps, path: string): string | undefined {
  const suffix = path.slice(OAUTH_PATHS.resourceMetadata.length);
  const { resources } = deps.oauth;
  if (suffix === '') return resources[0];
  return resources.find((r) => new URL(r).pathname === suffix);
}

async function route(
  deps: OAuthDeps,
  method: string,
  path: string,
  event: APIGatewayProxyEventV2,
): Promise<OAuthResult> {
  if (method === 'OPTIONS') return { statusCode: 204, headers: OPEN_CORS, body: '' };
  if (path === OAUTH_PATHS.openidConfiguration) return NOT_FOUND;
  if (path === OAUTH_PATHS.asMetadata || path.startsWith(`${OAUTH_PATHS.asMetadata}/`)) {
    if (method !== 'GET') return METHOD_NOT_ALLOWED;
    return json(200, authorizationServerMetadata(deps.oauth), { 'cache-control': 'public, max-age=3600' });
  }
  if (path === OAUTH_PATHS.resourceMetadata || path.startsWith(`${OAUTH_PATHS.resourceMetadata}/`)) {
    if (method !== 'GET') return METHOD_NOT_ALLOWED;
    const resource = resourceFor(deps, path);
    if (!resource) return NOT_FOUND;
    return json(200, protectedResourceDocument(resource, deps.oauth.issuer), {
      'cache-control': 'public, max-age=3600',
    });
  }
  if (path === OAUTH_PATHS.register || path === OAUTH_PATHS.registerFallback) {
    if (method !== 'POST') return METHOD_NOT_ALLOWED;
    return json(201, await register(deps, registrationBody(event)));
  }
  if (path === OAUTH_PATHS.authorize) {
    if (method !== 'GET') return METHOD_NOT_ALLOWED;
    const outcome = await authorize(deps, new URLSearchParams(event.rawQueryString ?? ''));
    if (outcome.kind === 'page') return errorPage(outcome.status, outcome.title, outcome.message);
    return {
      statusCode: 302,
      headers: { location: outcome.location, 'cache-control': 'no-store' },
      body: '',
    };
  }
  if (path === OAUTH_PATHS.token) {
    if (method !== 'POST') return METHOD_NOT_ALLOWED;
    return json(200, await token(deps, formOf(event)), { pragma: 'no-cache' });
  }
  if (path === OAUTH_PATHS.revoke) {
    if (method !== 'POST') return METHOD_NOT_ALLOWED;
    await revokeToken(deps, formOf(event));
    return json(200, {});
  }
  return NOT_FOUND;
}

/**
 * The OAuth protocol function (API Gateway HTTP API, payload 2.0). OAuth errors are RFC 6749
 * JSON with `Cache-Control: no-store`; an authorization error that may not be redirected is a
 * page. A failing dependency answers `temporarily_unavailable` (503); nothing of a request's
 * credentials is ever logged (only the path and the outcome).
 */
export function oauthHandler(deps: () => OAuthDeps | undefined) {
  return async (event: APIGatewayProxyEventV2, context?: Context): Promise<OAuthResult> => {
    logger.startInvocation(context, { rawPath: event.rawPath });
    const oauth = deps();
    if (!oauth) return NOT_FOUND;
    const method = event.requestContext.http.method;
    const path = event.rawPath;
    try {
      return await route(oauth, method, path, event);
    } catch (err) {
      if (err instanceof OAuthError) {
        logger.info('oauth request refused', { path, error: err.error });
        return oauthError(err);
      }
      logger.error('oauth request failed', { path, error: describeError(err) });
      if (path === OAUTH_PATHS.authorize)
        return errorPage(503, 'Try again shortly', 'The sign-in service is unavailable right now.');
      return oauthError(
        new OAuthError(
          'temporarily_unavailable',
          'The authorization server is unavailable; retry shortly.',
          503,
        ),
      );
    }
  };
}

/**
 * The OAuth function's role: the grant is a key item (read, insert with its slot, index entries
 * and event, token updates, revocation); requests and registrations are items of the same table;
 * memberships and policies are read on refresh; the pepper digests tokens.
 */
export const OAUTH_GRANTS: Grants = {
  pepper: true,
  dynamodb: [
    {
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
      on: ['keys'],
    },
    { actions: ['dynamodb:BatchGetItem'], on: ['memberships'] },
  ],
};
