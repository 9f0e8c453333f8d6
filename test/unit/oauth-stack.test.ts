import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { OPEN_CORS } from '#lib/oauth/metadata';
import {
  answers,
  defineOAuthRoute,
  jsonReply,
  type OAuthReply,
  type OAuthRouteModule,
  pathsOf,
} from '#lib/routes/oauth/oauth-route';
import { errorPage, oauthRouteHandler, singleParams } from '#lib/routes/oauth/oauth-stack';
import { captureOutput } from '#test/support/logs';

/**
 * The OAuth flavour of the middleware stack (lib/routes/oauth/oauth-stack.ts) around routes of the
 * test's own: how each kind of input is read and validated, how a reply becomes an answer, how a
 * refusal is shown (JSON for a client, a page for a person) and what is logged. The real routes
 * through the OAuth function's handler are test/unit/oauth-routes.test.ts.
 */

const deps = {} as OAuthDeps;

/** A route reading `input` with `schema`, whose use case answers what `reply` makes of its input. */
function route(
  input: OAuthRouteModule['input'],
  options: Partial<OAuthRouteModule> & {
    reply?: (input: unknown, path: string) => OAuthReply | Promise<OAuthReply>;
  } = {},
) {
  const { reply, ...rest } = options;
  return defineOAuthRoute({
    operationId: 'TestOperation',
    method: 'POST',
    path: '/oauth/test',
    deployment: 'oauth-api',
    summary: 's',
    description: 'd',
    input,
    errors: ['invalid_request'],
    success: { status: 200, description: 'ok' },
    grants: { pepper: false, dynamodb: [] },
    handle: () => async (request) =>
      reply
        ? reply(request.input, request.path)
        : jsonReply(200, { input: request.input, path: request.path }),
    ...rest,
  });
}

async function call(
  module: OAuthRouteModule,
  init: { query?: Record<string, string | string[]>; body?: string; headers?: Record<string, string> } = {},
  context = lambdaContext('oauth'),
) {
  const event = httpApiEvent({
    method: module.method,
    routeKey: `${module.method} ${module.path}`,
    rawPath: module.path,
    query: init.query ?? {},
    headers: init.headers ?? {},
    body: init.body === undefined ? undefined : Buffer.from(init.body),
    sourceIp: '127.0.0.1',
    requestId: 'req',
  });
  const result = await oauthRouteHandler(module, deps)(event, context);
  const json = result.headers['content-type'] === 'application/json' ? JSON.parse(result.body) : undefined;
  return { ...result, json };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };
const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store', ...OPEN_CORS };

let output: ReturnType<typeof captureOutput>;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());
const logs = () =>
  output
    .text()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the page an authorization error is shown on', () => {
  it('is HTML that no frame or script can use, with the title and message escaped', () => {
    const page = errorPage(400, `Tom & "Jerry's" <app>`, '<script>alert(1)</script>');
    expect(page.statusCode).toBe(400);
    expect(page.headers).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-frame-options': 'DENY',
    });
    expect(page.body).toContain('<title>Tom &amp; &quot;Jerry&#39;s&quot; &lt;app&gt;</title>');
    expect(page.body).toContain('<h1>Tom &amp; &quot;Jerry&#39;s&quot; &lt;app&gt;</h1>');
    expect(page.body).toContain('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(page.body).not.toContain('<script>');
    expect(page.body).toMatch(/^<!doctype html><html lang="en">/);
    // A page a phone shows at its width, in the system's font.
    expect(page.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.body).toContain('<style>body{font:16px/1.5 system-ui,sans-serif;');
    expect(page.body).toContain('Nothing was sent to the app. Go back to it and try connecting again.');
  });
});

describe('single parameters', () => {
  it('are each parameter’s one value, and a repeated one is invalid_request naming it', () => {
    expect(singleParams(new URLSearchParams('a=1&b=&c=x%20y'))).toEqual({ a: '1', b: '', c: 'x y' });
    expect(() => singleParams(new URLSearchParams('a=1&b=2&a=1'))).toThrow(
      new OAuthError('invalid_request', 'The parameter a was sent more than once.'),
    );
    const refused = (() => {
      try {
        singleParams(new URLSearchParams('x=1&x=2'));
      } catch (err) {
        return err as OAuthError;
      }
    })();
    expect(refused).toMatchObject({
      error: 'invalid_request',
      description: 'The parameter x was sent more than once.',
    });
    // Names of Object.prototype are parameters like any other.
    expect(singleParams(new URLSearchParams('toString=1&constructor=2'))).toEqual({
      toString: '1',
      constructor: '2',
    });
  });
});

describe('a route’s input', () => {
  it('is nothing for a route that reads none, whatever is sent', async () => {
    const answer = await call(route('none'), { query: { a: '1' }, body: 'b=2', headers: FORM });
    expect(answer.json).toEqual({ input: {}, path: '/oauth/test' });
  });

  it('is the query’s parameters, for a query route', async () => {
    const answer = await call(route('query', { method: 'GET' }), { query: { a: '1', b: 'two' } });
    expect(answer.json?.input).toEqual({ a: '1', b: 'two' });
    expect((await call(route('query', { method: 'GET' }))).json?.input).toEqual({});
  });

  it('is a form body of its media type in any case and with parameters, up to 8192 bytes', async () => {
    const form = route('form');
    const answer = await call(form, {
      body: 'a=1&b=x',
      headers: { 'content-type': ' Application/X-WWW-Form-Urlencoded ; charset=UTF-8' },
    });
    expect(answer.json?.input).toEqual({ a: '1', b: 'x' });
    const atLimit = `a=${'x'.repeat(8190)}`;
    expect((await call(form, { body: atLimit, headers: FORM })).json?.input).toEqual({ a: 'x'.repeat(8190) });
    expect((await call(form, { body: `${atLimit}x`, headers: FORM })).json).toEqual({
      error: 'invalid_request',
      error_description: 'The body is larger than 8192 bytes.',
    });
    expect((await call(form, { headers: FORM })).json?.input).toEqual({});
    for (const headers of [{}, { 'content-type': 'text/plain' }, JSON_TYPE]) {
      const refused = await call(form, { body: 'a=1', headers });
      expect(refused.statusCode).toBe(400);
      expect(refused.json).toEqual({
        error: 'invalid_request',
        error_description: 'The body must be application/x-www-form-urlencoded.',
      });
    }
  });

  it('is a JSON body, up to 8192 bytes, else invalid_client_metadata', async () => {
    const json = route('json', { errors: ['invalid_client_metadata'] });
    expect((await call(json, { body: '{"a":[1,2]}', headers: JSON_TYPE })).json?.input).toEqual({
      a: [1, 2],
    });
    expect(
      (
        await call(json, {
          body: '{"a":1}',
          headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
        })
      ).json?.input,
    ).toEqual({ a: 1 });
    const big = JSON.stringify({ a: 'x'.repeat(8185) });
    expect(big).toHaveLength(8193);
    expect((await call(json, { body: big, headers: JSON_TYPE })).json).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'The body is larger than 8192 bytes.',
    });
    expect((await call(json, { body: big.slice(1), headers: JSON_TYPE })).json?.error).toBe(
      'invalid_client_metadata',
    );
    expect((await call(json, { body: '{"a":', headers: JSON_TYPE })).json).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'The body is not valid JSON.',
    });
    expect((await call(json, { body: 'a=1', headers: FORM })).json).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'The body must be JSON (application/json).',
    });
  });

  it('is what the schema reads of it; what it refuses is the route’s first error, with where', async () => {
    const schema = z.object({ grant_type: z.string(), nested: z.object({ n: z.number() }).optional() });
    const module = route('json', { schema, errors: ['invalid_client_metadata', 'invalid_request'] });
    expect(
      (await call(module, { body: '{"grant_type":"x","extra":1}', headers: JSON_TYPE })).json?.input,
    ).toEqual({
      grant_type: 'x',
    });
    const missing = await call(module, { body: '{"nested":{"n":"1"}}', headers: JSON_TYPE });
    expect(missing.json?.error).toBe('invalid_client_metadata');
    expect(missing.json?.error_description).toMatch(/^grant_type: \S/);
    const nested = await call(module, { body: '{"grant_type":"x","nested":{"n":"1"}}', headers: JSON_TYPE });
    expect(nested.json?.error_description).toMatch(/^nested\.n: \S/);
    const whole = await call(module, { body: '[]', headers: JSON_TYPE });
    expect(whole.json?.error_description).toMatch(/^Invalid input/);
    expect(whole.json?.error_description).toMatch(/\S/);
    const noErrors = route('json', { schema, errors: [] });
    expect((await call(noErrors, { body: '{}', headers: JSON_TYPE })).json?.error).toBe('invalid_request');
  });
});

describe('a route’s reply', () => {
  it('as JSON: never cached, open to any origin, with the route’s own headers over those', async () => {
    const answer = await call(
      route('none', { reply: () => jsonReply(201, { ok: true }, { 'cache-control': 'public, max-age=60' }) }),
    );
    expect(answer.statusCode).toBe(201);
    expect(answer.headers).toEqual({ ...JSON_HEADERS, 'cache-control': 'public, max-age=60' });
    expect(answer.json).toEqual({ ok: true });
    expect((await call(route('none', { reply: () => jsonReply(200, null) }))).body).toBe('null');
  });

  it('as a redirect: no body, never cached, its headers', async () => {
    const answer = await call(
      route('none', { reply: () => ({ status: 302, headers: { location: 'https://app.example.com/cb' } }) }),
    );
    expect(answer).toMatchObject({
      statusCode: 302,
      headers: { 'cache-control': 'no-store', location: 'https://app.example.com/cb' },
      body: '',
    });
    const bare = await call(route('none', { reply: () => ({ status: 204 }) }));
    expect(bare.headers).toEqual({ 'cache-control': 'no-store' });
  });

  it('as a page: the error page with the reply’s status', async () => {
    const answer = await call(
      route('none', { reply: () => ({ status: 400, page: { title: 'Unknown app', message: 'Go away.' } }) }),
    );
    expect(answer.statusCode).toBe(400);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body).toContain('<h1>Unknown app</h1><p>Go away.</p>');
  });

  it('is logged with the operation and status, and nothing of the request but its path', async () => {
    await call(
      route('query', { method: 'GET' }),
      { query: { secret: 'do-not-log' } },
      { ...lambdaContext('oauth'), awsRequestId: 'invocation-1' },
    );
    expect(logs()).toContainEqual(
      expect.objectContaining({
        message: 'oauth request completed',
        operation: 'TestOperation',
        status: 200,
        function_request_id: 'invocation-1',
      }),
    );
    expect(output.text()).not.toContain('do-not-log');
  });
});

describe('a refusal', () => {
  const throwing = (err: unknown, extra: Partial<OAuthRouteModule> = {}) =>
    route('none', {
      ...extra,
      reply: () => {
        throw err;
      },
    });

  it('is RFC 6749 §5.2 JSON with its status, never cached, logged with its code', async () => {
    const answer = await call(throwing(new OAuthError('invalid_grant', 'No.')));
    expect(answer.statusCode).toBe(400);
    expect(answer.headers).toEqual(JSON_HEADERS);
    expect(answer.json).toEqual({ error: 'invalid_grant', error_description: 'No.' });
    expect(logs()).toContainEqual(
      expect.objectContaining({
        message: 'oauth request refused',
        operation: 'TestOperation',
        error: 'invalid_grant',
      }),
    );
  });

  it('of 503 says when to retry', async () => {
    const answer = await call(throwing(new OAuthError('temporarily_unavailable', 'Later.', 503)));
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    expect(answer.json).toEqual({ error: 'temporarily_unavailable', error_description: 'Later.' });
  });

  it('is a page for a person where the route shows pages', async () => {
    const answer = await call(
      throwing(new OAuthError('invalid_request', 'Bad <thing>.'), { errorsAs: 'page' }),
    );
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toContain('<title>Invalid request</title>');
    expect(answer.body).toContain('<p>Bad &lt;thing&gt;.</p>');
  });

  it('from a failing dependency is 503 temporarily_unavailable, logged as an error without reaching the client', async () => {
    const json = await call(throwing(new Error('the table is gone')));
    expect(json.statusCode).toBe(503);
    expect(json.headers).toEqual({ ...JSON_HEADERS, 'retry-after': '2' });
    expect(json.json).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The authorization server is unavailable; retry shortly.',
    });
    expect(logs()).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'oauth request failed',
        operation: 'TestOperation',
      }),
    );
    const page = await call(throwing(new Error('the table is gone'), { errorsAs: 'page' }));
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain(
      '<h1>Try again shortly</h1><p>The sign-in service is unavailable right now.</p>',
    );
    expect(page.body).not.toContain('the table is gone');
  });
});

describe('the paths a route answers', () => {
  const module = route('none', {
    path: '/.well-known/thing',
    under: true,
    alsoAt: [{ path: '/thing', deployment: 'mcp-api' }],
  });

  it('are its path and its others, each with its deployment; with `under`, the paths below each', () => {
    expect(pathsOf(module)).toEqual([
      { path: '/.well-known/thing', deployment: 'oauth-api' },
      { path: '/thing', deployment: 'mcp-api' },
    ]);
    expect(pathsOf(route('none'))).toEqual([{ path: '/oauth/test', deployment: 'oauth-api' }]);
    for (const path of ['/.well-known/thing', '/.well-known/thing/a', '/thing', '/thing/a/b'])
      expect(answers(module, path), path).toBe(true);
    for (const path of ['/.well-known/things', '/.well-known', '/thingy', '/x/thing'])
      expect(answers(module, path), path).toBe(false);
    expect(answers(route('none'), '/oauth/test/below')).toBe(false);
    expect(answers(route('none'), '/oauth/test')).toBe(true);
  });

  it('and a JSON reply names no headers unless given', () => {
    expect(jsonReply(200, { a: 1 })).toEqual({ status: 200, json: { a: 1 }, headers: {} });
  });
});
