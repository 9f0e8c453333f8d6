import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { renderOAuthTable, withOAuthTable } from '#lib/api-docs/oauth-table';
import { oauthHandler } from '#lib/handlers/oauth';
import type { OAuthDeps } from '#lib/oauth/deps';
import { authorizationServerMetadata, OAUTH_PATHS, OPEN_CORS } from '#lib/oauth/metadata';
import { EXCHANGED_GRANT_TYPES } from '#lib/oauth/token';
import { OAUTH_GRANTS, OAUTH_ROUTES, oauthApiRoutes, servedByOAuth } from '#lib/routes/oauth/index';

/**
 * The OAuth endpoints as route modules (lib/routes/oauth/): what derives from the list, and the
 * OAuth flavour of the middleware stack, through the OAuth function's handler with stand-in
 * dependencies (the flow itself on DynamoDB Local is test/integration/oauth-flow.test.ts, over
 * HTTP test/e2e/oauth.test.ts).
 */

const settings = {
  issuer: 'https://auth.example.com',
  consentPageUrl: 'https://dashboard.example.com/consent',
  resources: ['https://mcp.example.com/mcp'],
};

/** Stand-in dependencies: every store call fails unless `overrides` answers it. */
function deps(overrides: Partial<OAuthDeps> = {}): OAuthDeps {
  const failing = new Proxy(
    {},
    {
      get: () => () => Promise.reject(new Error('the store is down')),
    },
  );
  return {
    oauth: settings,
    store: failing,
    keys: failing,
    clients: () => Promise.reject(new Error('the store is down')),
    now: () => new Date('2026-11-28T00:00:00Z'),
    ...overrides,
  } as unknown as OAuthDeps;
}

async function call(
  method: string,
  path: string,
  init: { query?: Record<string, string | string[]>; body?: string; headers?: Record<string, string> } = {},
  on: OAuthDeps | null = deps(),
) {
  const event = httpApiEvent({
    method,
    routeKey: `${method} ${path}`,
    rawPath: path,
    query: init.query ?? {},
    headers: init.headers ?? {},
    body: init.body === undefined ? undefined : Buffer.from(init.body),
    sourceIp: '127.0.0.1',
    requestId: 'req',
  });
  const result = await oauthHandler(() => on ?? undefined)(event, lambdaContext('oauth'));
  const json = result.headers['content-type']?.startsWith('application/json')
    ? JSON.parse(result.body)
    : undefined;
  return { ...result, json };
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the OAuth route modules', () => {
  it('keep the endpoint table of docs/oauth.md as generated (run `npm run openapi` after changing one)', () => {
    const page = readFileSync('docs/oauth.md', 'utf8');
    expect(page).toContain(renderOAuthTable());
    expect(withOAuthTable(page)).toBe(page);
  });

  it('name each operation once, and each method on a path once', () => {
    const ids = OAUTH_ROUTES.map((m) => m.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = OAUTH_ROUTES.map((m) => `${m.method} ${m.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('give the OAuth API its routes, throttles and preflights; the MCP API keeps the metadata and the root registration', () => {
    expect(oauthApiRoutes('oauth-api')).toEqual([
      { method: 'GET', path: OAUTH_PATHS.asMetadata },
      { method: 'GET', path: OAUTH_PATHS.openidConfiguration },
      { method: 'GET', path: OAUTH_PATHS.authorize },
      { method: 'POST', path: OAUTH_PATHS.register, throttle: 'registration' },
      { method: 'POST', path: OAUTH_PATHS.token, throttle: 'token' },
      { method: 'POST', path: OAUTH_PATHS.revoke },
      // An identity provider's pushes (RFC 8935), from its servers: no preflight.
      { method: 'POST', path: '/v1/identity-signals' },
      { method: 'OPTIONS', path: OAUTH_PATHS.asMetadata },
      { method: 'OPTIONS', path: OAUTH_PATHS.openidConfiguration },
      { method: 'OPTIONS', path: OAUTH_PATHS.register },
      { method: 'OPTIONS', path: OAUTH_PATHS.token },
      { method: 'OPTIONS', path: OAUTH_PATHS.revoke },
    ]);
    expect(oauthApiRoutes('mcp-api')).toEqual([
      { method: 'GET', path: OAUTH_PATHS.resourceMetadata },
      { method: 'POST', path: OAUTH_PATHS.registerFallback, throttle: 'registration' },
      { method: 'OPTIONS', path: OAUTH_PATHS.registerFallback },
    ]);
  });

  it('give the OAuth function the union of their grants, one statement per set of actions', () => {
    expect(OAUTH_GRANTS).toEqual({
      pepper: true,
      dynamodb: [
        {
          actions: [
            'dynamodb:BatchGetItem',
            'dynamodb:DeleteItem',
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
          ],
          on: ['keys'],
        },
        // An ID-JAG's exchange reads every membership of the person and their live enterprise grant.
        { actions: ['dynamodb:BatchGetItem', 'dynamodb:Query'], on: ['memberships'] },
        { actions: ['dynamodb:Query'], on: ['keys-by-user'] },
      ],
    });
  });

  it('advertise every grant type the token endpoint exchanges, and no other; the ID-JAG only with a trusted IdP', () => {
    const enterprise = { ...settings, identityProviders: [{ issuer: 'https://idp.example' }] };
    expect(authorizationServerMetadata(enterprise).grant_types_supported).toEqual([...EXCHANGED_GRANT_TYPES]);
    expect(authorizationServerMetadata(enterprise).authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
    const plain = authorizationServerMetadata(settings);
    expect(plain.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    expect(plain).not.toHaveProperty('authorization_grant_profiles_supported');
  });

  it('are what local mode sends to the OAuth function, the paths under the well-known ones included', () => {
    for (const path of [
      OAUTH_PATHS.token,
      OAUTH_PATHS.registerFallback,
      `${OAUTH_PATHS.resourceMetadata}/mcp`,
      `${OAUTH_PATHS.asMetadata}/tenant`,
    ])
      expect(servedByOAuth(path), path).toBe(true);
    for (const path of [
      '/mcp',
      '/oauth',
      '/oauth/tokens',
      `${OAUTH_PATHS.token}/x`,
      '/.well-known/jwks.json',
    ])
      expect(servedByOAuth(path), path).toBe(false);
  });
});

describe('the OAuth stack', () => {
  it('refuses a repeated parameter, as JSON at the token endpoint and as a page at authorize', async () => {
    const token = await call('POST', OAUTH_PATHS.token, {
      body: 'grant_type=refresh_token&grant_type=authorization_code',
      headers: form,
    });
    expect(token.statusCode).toBe(400);
    expect(token.json).toEqual({
      error: 'invalid_request',
      error_description: 'The parameter grant_type was sent more than once.',
    });
    expect(token.headers).toMatchObject({ 'cache-control': 'no-store', ...OPEN_CORS });

    const page = await call('GET', OAUTH_PATHS.authorize, { query: { client_id: ['a', 'b'] } });
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(page.body).toContain('The parameter client_id was sent more than once.');
  });

  it('reads form bodies only as application/x-www-form-urlencoded, base64 or not, up to 8 KiB', async () => {
    const json = await call('POST', OAUTH_PATHS.token, {
      body: '{"grant_type":"refresh_token"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.json?.error).toBe('invalid_request');
    expect(json.json?.error_description).toMatch(/x-www-form-urlencoded/);

    const large = await call('POST', OAUTH_PATHS.token, { body: `scope=${'a'.repeat(8193)}`, headers: form });
    expect(large.json).toEqual({
      error: 'invalid_request',
      error_description: 'The body is larger than 8192 bytes.',
    });

    const unknown = await call('POST', OAUTH_PATHS.token, { body: 'grant_type=password', headers: form });
    expect(unknown.json?.error).toBe('unsupported_grant_type');
    const none = await call('POST', OAUTH_PATHS.token, { body: 'grant_type=', headers: form });
    expect(none.json?.error).toBe('invalid_request');
  });

  it('reads a registration as a JSON object, or answers invalid_client_metadata', async () => {
    for (const body of ['[1]', 'not json', '"text"']) {
      const refused = await call('POST', OAUTH_PATHS.register, {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.statusCode, body).toBe(400);
      expect(refused.json?.error, body).toBe('invalid_client_metadata');
    }
    const form = await call('POST', OAUTH_PATHS.registerFallback, {
      body: 'redirect_uris=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.json?.error).toBe('invalid_client_metadata');
  });

  it('answers a failing dependency 503 temporarily_unavailable with Retry-After, and a page at authorize', async () => {
    const register = await call('POST', OAUTH_PATHS.register, {
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(register.statusCode).toBe(503);
    expect(register.json?.error).toBe('temporarily_unavailable');
    expect(register.headers['retry-after']).toBe('2');
    expect(register.body).not.toContain('the store is down');

    const authorize = await call('GET', OAUTH_PATHS.authorize, { query: { client_id: 'x' } });
    expect(authorize.statusCode).toBe(503);
    expect(authorize.body).toContain('The sign-in service is unavailable right now.');
  });

  it('never redirects to a scheme refused since the app registered it (ms-msdt:): a page instead', async () => {
    const stale = deps({
      clients: async () => ({
        ok: true,
        client: {
          client_id: 'old',
          client_name: 'Old app',
          redirect_uris: ['ms-msdt:?id=x'],
          verified_domain: null,
          registration: 'dynamic',
        },
      }),
    });
    const page = await call(
      'GET',
      OAUTH_PATHS.authorize,
      { query: { client_id: 'old', redirect_uri: 'ms-msdt:?id=x', response_type: 'token' } },
      stale,
    );
    expect(page.statusCode).toBe(400);
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('cannot receive a sign-in');
  });

  it('answers a preflight, another method 405, an unknown path or OAuth off 404', async () => {
    const preflight = await call('OPTIONS', OAUTH_PATHS.token);
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toEqual(OPEN_CORS);
    expect((await call('GET', OAUTH_PATHS.token)).statusCode).toBe(405);
    expect((await call('GET', '/oauth/other')).statusCode).toBe(404);
    expect((await call('GET', OAUTH_PATHS.asMetadata, {}, null)).statusCode).toBe(404);
  });

  it('serves the metadata documents, the protected resource by its path', async () => {
    const as = await call('GET', `${OAUTH_PATHS.asMetadata}/anything`);
    expect(as.json?.token_endpoint).toBe('https://auth.example.com/oauth/token');
    expect(as.headers['cache-control']).toBe('public, max-age=3600');
    const prm = await call('GET', `${OAUTH_PATHS.resourceMetadata}/mcp`);
    expect(prm.json?.resource).toBe('https://mcp.example.com/mcp');
    expect((await call('GET', `${OAUTH_PATHS.resourceMetadata}/other`)).statusCode).toBe(404);
    expect((await call('GET', OAUTH_PATHS.openidConfiguration)).statusCode).toBe(404);
  });
});
