import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AppError } from '#lib/errors';
import { API_MAX_REQUEST_BODY_BYTES, publicRoute, REQUEST_ID_HEADER, route } from '#lib/http/route';
import { captureOutput } from '#test/support/logs';

/**
 * The one middleware stack of the management API (lib/http/route.ts), with a handler of the
 * test's own: the headers of every answer, the problem answer of every refusal, and the lines
 * each request leaves (metrics are off in the tests: POWERTOOLS_METRICS_DISABLED).
 */
type Event = APIGatewayProxyEventV2WithJWTAuthorizer;
type Result = APIGatewayProxyStructuredResultV2;

const NOW = new Date('2026-11-26T12:00:00.000Z');
const SECURITY = {
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
};

function eventOf(
  init: { body?: string; claims?: Record<string, unknown>; headers?: Record<string, string> } = {},
) {
  return {
    rawPath: '/v1/x',
    headers: { 'content-type': 'application/json', ...init.headers },
    ...(init.body !== undefined && { body: init.body }),
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      authorizer: { jwt: { claims: init.claims ?? { sub: 'user-1' } } },
    },
  } as unknown as Event;
}
const CONTEXT = {
  functionName: 'f',
  awsRequestId: 'aws-1',
  invokedFunctionArn: 'arn',
  memoryLimitInMB: '128',
} as unknown as Context;
const lower = (headers: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

let output: ReturnType<typeof captureOutput>;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());
const lines = () =>
  output
    .text()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('an answer of a route', () => {
  it('is the handler’s status and JSON body, never cached, with the request id and HSTS', async () => {
    const handler = route({ operation: 'op', now: () => NOW }, async ({ caller, requestId }) => ({
      status: 201,
      body: { user: caller.userId, requestId },
      headers: { location: '/v1/x/1' },
    }));
    const result = (await handler(eventOf(), CONTEXT)) as Result;
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body as string)).toEqual({ user: 'user-1', requestId: 'req-1' });
    const headers = lower(result.headers);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      [REQUEST_ID_HEADER]: 'req-1',
      location: '/v1/x/1',
      ...SECURITY,
      'x-content-type-options': 'nosniff',
    });
    expect(Object.values(headers).every((v) => v !== undefined && v !== '')).toBe(true);
    expect(headers['x-powered-by']).toBeUndefined();
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['x-frame-options']).toBeUndefined();
  });

  it('is logged with the operation and status, the request id on the line', async () => {
    const handler = route({ operation: 'list-keys', now: () => NOW }, async () => ({
      status: 200,
      body: {},
    }));
    await handler(eventOf(), CONTEXT);
    const logged = lines();
    expect(logged).toContainEqual(
      expect.objectContaining({
        message: 'request completed',
        operation: 'list-keys',
        status: 200,
        request_id: 'req-1',
        user_id: 'user-1',
      }),
    );
  });

  it('hands the handler the parsed body, the raw bytes and the headers', async () => {
    const seen: unknown[] = [];
    const handler = publicRoute(
      { operation: 'report', body: z.object({ a: z.number() }), now: () => NOW },
      async ({ body, rawBody, headers, query, path }) => {
        seen.push({ body, raw: rawBody.toString(), header: headers['x-h'], query, path });
        return { status: 202, body: null };
      },
    );
    const result = (await handler(eventOf({ body: '{"a":1}', headers: { 'x-h': 'v' } }), CONTEXT)) as Result;
    expect(result.statusCode).toBe(202);
    expect(seen).toEqual([{ body: { a: 1 }, raw: '{"a":1}', header: 'v', query: {}, path: {} }]);
  });
});

describe('a refusal of a route', () => {
  it('is a problem answer with the catalog’s status, logged as refused', async () => {
    const handler = route({ operation: 'op', now: () => NOW }, async () => {
      throw new AppError('not_found', 'No API key with this id.');
    });
    const result = (await handler(eventOf(), CONTEXT)) as Result;
    expect(result.statusCode).toBe(404);
    expect(lower(result.headers)).toMatchObject({
      'content-type': 'application/problem+json',
      'cache-control': 'no-store',
      [REQUEST_ID_HEADER]: 'req-1',
      ...SECURITY,
    });
    expect(JSON.parse(result.body as string)).toMatchObject({
      status: 404,
      code: 'not_found',
      request_id: 'req-1',
    });
    const logged = lines();
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'INFO',
        message: 'request refused',
        operation: 'op',
        status: 404,
        code: 'not_found',
      }),
    );
    expect(logged.some((l) => l.message === 'request failed')).toBe(false);
  });

  it('of an unexpected error is 500, logged as failed with the error', async () => {
    const handler = route({ operation: 'op', now: () => NOW }, async () => {
      throw new Error('boom');
    });
    const result = (await handler(eventOf(), CONTEXT)) as Result;
    expect(result.statusCode).toBe(500);
    expect(lines()).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'request failed',
        operation: 'op',
        status: 500,
        code: 'internal_error',
      }),
    );
  });

  it('carries the problem’s own headers (a step-up challenge)', async () => {
    const handler = route({ operation: 'create', stepUp: true, now: () => NOW }, async () => ({
      status: 201,
      body: {},
    }));
    const result = (await handler(
      eventOf({ claims: { sub: 'user-1', email_verified: true } }),
      CONTEXT,
    )) as Result;
    expect(result.statusCode).toBe(401);
    expect(lower(result.headers)['www-authenticate']).toContain('max_age="900"');
  });

  it('refuses a body above the route’s limit, else the API’s 16 KiB', async () => {
    const ok = async () => ({ status: 200, body: {} });
    const body = JSON.stringify({ a: 'x'.repeat(API_MAX_REQUEST_BODY_BYTES) });
    const byDefault = publicRoute({ operation: 'p', body: z.object({ a: z.string() }), now: () => NOW }, ok);
    expect(((await byDefault(eventOf({ body }), CONTEXT)) as Result).statusCode).toBe(413);
    const larger = publicRoute(
      {
        operation: 'p',
        body: z.object({ a: z.string() }),
        maxBodyBytes: 2 * API_MAX_REQUEST_BODY_BYTES,
        now: () => NOW,
      },
      ok,
    );
    expect(((await larger(eventOf({ body }), CONTEXT)) as Result).statusCode).toBe(200);
  });

  it('runs the request’s own check before parsing, over the raw bytes', async () => {
    const handler = publicRoute(
      {
        operation: 'p',
        body: z.object({}).passthrough(),
        now: () => NOW,
        verify: async ({ rawBody }) => {
          if (rawBody.toString() !== '{"signed":true}') throw new AppError('unauthorized', 'Bad signature.');
        },
      },
      async ({ body }) => ({ status: 200, body }),
    );
    expect(((await handler(eventOf({ body: '{"signed":false}' }), CONTEXT)) as Result).statusCode).toBe(401);
    const ok = (await handler(eventOf({ body: '{"signed":true}' }), CONTEXT)) as Result;
    expect(JSON.parse(ok.body as string)).toEqual({ signed: true });
  });

  it('needs a caller on a user route: no subject is 401 before the handler runs', async () => {
    let ran = false;
    const handler = route({ operation: 'op', now: () => NOW }, async () => {
      ran = true;
      return { status: 200, body: {} };
    });
    expect(((await handler(eventOf({ claims: {} }), CONTEXT)) as Result).statusCode).toBe(401);
    expect(ran).toBe(false);
  });

  it('names the request id `unknown` when API Gateway gave none', async () => {
    const handler = publicRoute({ operation: 'p', now: () => NOW }, async ({ requestId }) => ({
      status: 200,
      body: { requestId },
    }));
    const event = eventOf();
    (event.requestContext as { requestId?: string }).requestId = undefined;
    const result = (await handler(event, CONTEXT)) as Result;
    expect(JSON.parse(result.body as string)).toEqual({ requestId: 'unknown' });
    expect(lower(result.headers)[REQUEST_ID_HEADER]).toBe('unknown');
  });
});

describe('the headers of an answer', () => {
  it('leave out a header whose value is empty', async () => {
    const handler = publicRoute({ operation: 'p', now: () => NOW }, async () => ({
      status: 200,
      body: {},
      headers: { 'x-empty': '', 'x-kept': 'v' },
    }));
    const headers = lower(((await handler(eventOf(), CONTEXT)) as Result).headers);
    expect('x-empty' in headers).toBe(false);
    expect(headers['x-kept']).toBe('v');
  });

  it('name the request `unknown` for an event without a request context', async () => {
    const handler = publicRoute({ operation: 'p', now: () => NOW }, async ({ requestId }) => ({
      status: 200,
      body: { requestId },
    }));
    const event = eventOf();
    delete (event as { requestContext?: unknown }).requestContext;
    expect(JSON.parse(((await handler(event, CONTEXT)) as Result).body as string)).toEqual({
      requestId: 'unknown',
    });
  });
});
