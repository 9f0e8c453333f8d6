import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderOpenApi } from '#lib/api-docs/openapi';
import { ERROR_CATALOG } from '#lib/errors';
import { REAUTHENTICATION_CHALLENGE } from '#lib/http/identity';
import { CLIENT_TYPES_PATH, renderClientTypes } from '../../web/client/generate.ts';
import {
  createKeysClient,
  type KeysClientOptions,
  ProblemError,
  parseChallenge,
} from '../../web/client/index.ts';

const KEY_ID = '5b0b4a47-8d3c-4d8e-9a52-3f1d2c7b9e10';
const problem = (code: keyof typeof ERROR_CATALOG, extra: Record<string, unknown> = {}) => ({
  type: `urn:problem:svc-mcp-api-keys:${code}`,
  title: ERROR_CATALOG[code].title,
  status: ERROR_CATALOG[code].status,
  detail: `detail of ${code}`,
  code,
  request_id: 'req-1',
  ...extra,
});
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
      ...headers,
    },
  });

/** A fetch that answers from a script and records what it was asked. */
function scripted(...answers: (() => Response)[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init: init ?? {} });
    const next = answers.shift();
    if (!next) throw new Error('unexpected request');
    return next();
  };
  return { calls, fetch: fetch as typeof globalThis.fetch };
}

const headerOf = (call: { init: RequestInit } | undefined, name: string) =>
  (call?.init.headers as Record<string, string> | undefined)?.[name];

const client = (fetch: typeof globalThis.fetch, extra: Partial<KeysClientOptions> = {}) => {
  let n = 0;
  return createKeysClient({ baseUrl: 'http://api.test/', token: () => `token-${++n}`, fetch, ...extra });
};

describe('client types', () => {
  it('are committed up to date with the OpenAPI document (run `npm run openapi`)', async () => {
    const fresh = await renderClientTypes(JSON.parse(renderOpenApi()) as object);
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8')).toBe(fresh);
  });
});

describe('typed client requests', () => {
  it('sends the token only in the Authorization header and builds paths and queries', async () => {
    const { calls, fetch } = scripted(
      () => json(200, { data: [], next_cursor: null }),
      () => json(200, { metadata: {} }),
    );
    const keys = client(fetch);
    await keys.list({ limit: 10, status: 'active', cursor: 'a/b+c' });
    await keys.revoke(KEY_ID);
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET http://api.test/v1/mcp/api-keys?limit=10&cursor=a%2Fb%2Bc&status=active',
      `DELETE http://api.test/v1/mcp/api-keys/${KEY_ID}`,
    ]);
    expect(headerOf(calls[0], 'authorization')).toBe('Bearer token-1');
    expect(calls.every((c) => !c.url.includes('token-'))).toBe(true);
    expect(calls[0]?.init.credentials).toBe('omit');
  });

  it('posts a JSON body on create and none on rotate', async () => {
    const { calls, fetch } = scripted(
      () => json(201, { api_key: 'k', metadata: {} }),
      () => json(201, { api_key: 'k2', metadata: {}, revoked_key: {} }),
    );
    const keys = client(fetch);
    const body = { name: 'laptop', workspace_ids: [KEY_ID], scopes: ['svc.forms.read' as const] };
    expect((await keys.create(body)).api_key).toBe('k');
    expect((await keys.rotate(`${KEY_ID}/../x`)).api_key).toBe('k2');
    expect(calls[0]?.init.body).toBe(JSON.stringify(body));
    expect(headerOf(calls[0], 'content-type')).toBe('application/json');
    expect(calls[1]?.init.body).toBeNull();
    expect(calls[1]?.url).toBe(
      `http://api.test/v1/mcp/api-keys/${encodeURIComponent(`${KEY_ID}/../x`)}/rotate`,
    );
  });
  it('pages a key’s events with limit and cursor, and maps a problem+json answer', async () => {
    const { calls, fetch } = scripted(
      () => json(200, { data: [], next_cursor: 'next/1' }),
      () => json(200, { data: [], next_cursor: null }),
      () => json(404, problem('not_found')),
    );
    const keys = client(fetch);
    expect((await keys.events(KEY_ID)).next_cursor).toBe('next/1');
    await keys.events(`${KEY_ID}/x`, { limit: 20, cursor: 'next/1' });
    const error = await keys.events(KEY_ID).catch((e: unknown) => e);
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      `GET http://api.test/v1/mcp/api-keys/${KEY_ID}/events`,
      `GET http://api.test/v1/mcp/api-keys/${encodeURIComponent(`${KEY_ID}/x`)}/events?limit=20&cursor=next%2F1`,
      `GET http://api.test/v1/mcp/api-keys/${KEY_ID}/events`,
    ]);
    expect(calls[0]?.init.body).toBeNull();
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', requestId: 'req-1' });
  });
});

describe('ProblemError', () => {
  it('carries the code, the field errors and the request id of a problem+json answer', async () => {
    const errors = [{ path: 'workspace_ids.0', message: 'must be a UUID' }];
    const { fetch } = scripted(() => json(400, problem('validation_failed', { errors })));
    const error = await client(fetch)
      .create({ name: 'x', workspace_ids: ['nope'], scopes: ['svc.forms.read'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors,
      requestId: 'req-1',
      message: 'detail of validation_failed',
    });
  });

  it('parses the RFC 9470 challenge of reauthentication_required', async () => {
    const { fetch } = scripted(() =>
      json(401, problem('reauthentication_required'), { 'www-authenticate': REAUTHENTICATION_CHALLENGE }),
    );
    const error = (await client(fetch)
      .rotate(KEY_ID)
      .catch((e: unknown) => e)) as ProblemError;
    expect(error.code).toBe('reauthentication_required');
    expect(error.needsSignIn).toBe(true);
    expect(error.challenge).toMatchObject({
      scheme: 'Bearer',
      error: 'insufficient_user_authentication',
      maxAge: 900,
    });
  });

  it('turns API Gateway’s own 401 into code unauthorized, and a non-JSON answer into unexpected_response', async () => {
    const { fetch } = scripted(
      () => json(401, { message: 'Unauthorized' }, { 'apigw-requestid': 'gw-1' }),
      () => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const keys = client(fetch);
    expect(await keys.list().catch((e: unknown) => e)).toMatchObject({
      code: 'unauthorized',
      status: 401,
      requestId: 'gw-1',
    });
    expect(await keys.list().catch((e: unknown) => e)).toMatchObject({
      code: 'unexpected_response',
      status: 502,
    });
  });

  it('reads Retry-After on 503 and replaced_by on key_revoked', async () => {
    const { fetch } = scripted(
      () => json(503, problem('dependency_unavailable'), { 'retry-after': '2' }),
      () => json(409, problem('key_revoked', { replaced_by: KEY_ID })),
    );
    const keys = client(fetch);
    expect(await keys.list().catch((e: unknown) => e)).toMatchObject({ retryAfter: 2 });
    expect(await keys.rotate(KEY_ID).catch((e: unknown) => e)).toMatchObject({
      code: 'key_revoked',
      replacedBy: KEY_ID,
    });
  });
});

describe('the re-authentication hook', () => {
  it('retries once with a fresh token after the user signed in again', async () => {
    const { calls, fetch } = scripted(
      () =>
        json(401, problem('reauthentication_required'), { 'www-authenticate': REAUTHENTICATION_CHALLENGE }),
      () => json(201, { api_key: 'k', metadata: {}, revoked_key: {} }),
    );
    const seen: string[] = [];
    const keys = client(fetch, {
      onReauthenticationRequired: (error) => {
        seen.push(`${error.code} ${error.challenge?.maxAge}`);
        return true;
      },
    });
    expect((await keys.rotate(KEY_ID)).api_key).toBe('k');
    expect(seen).toEqual(['reauthentication_required 900']);
    expect(calls.map((c) => headerOf(c, 'authorization'))).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('gives up with the error when the user declines, or when the retry fails again', async () => {
    const reauth = () => json(401, problem('reauthentication_required'));
    const declined = scripted(reauth);
    await expect(
      client(declined.fetch, { onReauthenticationRequired: async () => false }).rotate(KEY_ID),
    ).rejects.toMatchObject({ code: 'reauthentication_required' });
    const twice = scripted(reauth, reauth);
    let asked = 0;
    await expect(
      client(twice.fetch, { onReauthenticationRequired: () => ++asked > 0 }).rotate(KEY_ID),
    ).rejects.toMatchObject({ code: 'reauthentication_required' });
    expect(asked).toBe(1);
  });

  it('is not asked for errors that signing in cannot fix', async () => {
    const { fetch } = scripted(() => json(403, problem('email_not_verified')));
    let asked = false;
    await expect(
      client(fetch, {
        onReauthenticationRequired: () => {
          asked = true;
          return true;
        },
      }).create({ name: 'x', workspace_ids: [KEY_ID], scopes: ['svc.forms.read'] }),
    ).rejects.toMatchObject({ code: 'email_not_verified', status: 403 });
    expect(asked).toBe(false);
  });
});

describe('parseChallenge', () => {
  it('reads quoted and token parameters, and refuses nothing', () => {
    expect(parseChallenge('Bearer realm="svc", error=invalid_token, acr_values="urn:a urn:b"')).toMatchObject(
      {
        scheme: 'Bearer',
        error: 'invalid_token',
        acrValues: 'urn:a urn:b',
        params: { realm: 'svc' },
      },
    );
    expect(parseChallenge('Bearer max_age="soon"')?.maxAge).toBeUndefined();
    expect(parseChallenge(null)).toBeUndefined();
    expect(parseChallenge('')).toBeUndefined();
  });
});
