import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AppError } from '#lib/errors';
import {
  identify,
  limitBody,
  parseJsonBody,
  parseVerifiedBody,
  requireJsonMediaType,
  requireStepUp,
  routeState,
  validate,
  verifyRequest,
} from '#lib/http/guards';

/**
 * Each guard of the management API's middleware stack on its own (lib/http/guards.ts), called as
 * middy calls it: what it leaves for the handler, and the problem it answers with.
 */
type Event = APIGatewayProxyEventV2WithJWTAuthorizer;

function eventOf(init: {
  body?: string;
  base64?: boolean;
  headers?: Record<string, string> | undefined;
  claims?: Record<string, unknown>;
  query?: Record<string, string>;
  path?: Record<string, string>;
}): Event {
  return {
    ...(init.body !== undefined && { body: init.body }),
    isBase64Encoded: init.base64 ?? false,
    headers: 'headers' in init ? init.headers : { 'content-type': 'application/json' },
    ...(init.query && { queryStringParameters: init.query }),
    ...(init.path && { pathParameters: init.path }),
    requestContext: { authorizer: { jwt: { claims: init.claims ?? {} } } },
  } as unknown as Event;
}

type Guard = { before?: (request: never) => unknown };
const run = async (guard: Guard, event: Event) =>
  (guard.before as (request: unknown) => Promise<void>)({ event, context: {}, internal: {} });
const runAll = async (guards: Guard[], event: Event) => {
  for (const guard of guards) await run(guard, event);
  return routeState(event);
};
const refusal = async (promise: Promise<unknown>): Promise<AppError> => {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('not refused');
};

describe('the state the guards leave for the handler', () => {
  it('is empty before any guard ran, and one object per event', () => {
    const event = eventOf({});
    expect(routeState(event)).toEqual({
      hasBody: false,
      rawBody: Buffer.alloc(0),
      body: {},
      input: { body: {}, query: {}, path: {} },
    });
    expect(routeState(event)).toBe(routeState(event));
    expect(routeState(eventOf({}))).not.toBe(routeState(event));
  });
});

describe('identify and step-up', () => {
  it('keep the caller from the JWT’s claims; no subject is 401', async () => {
    const event = eventOf({ claims: { sub: 'user-1', email_verified: 'true' } });
    await run(identify, event);
    expect(routeState(event).caller).toMatchObject({ userId: 'user-1', emailVerified: true });
    expect((await refusal(run(identify, eventOf({})))).code).toBe('unauthorized');
  });

  it('step-up refuses an unverified email, and has nothing to check without a caller', async () => {
    const event = eventOf({ claims: { sub: 'user-1' } });
    await run(identify, event);
    const now = () => new Date();
    expect((await refusal(run(requireStepUp(now), event))).code).toBe('email_not_verified');
    await expect(run(requireStepUp(now), eventOf({}))).resolves.toBeUndefined();
  });
});

describe('the body limit', () => {
  it('keeps the bytes of a body up to the limit, decoded from base64 when sent so', async () => {
    const text = await runAll([limitBody(4)], eventOf({ body: 'abcd' }));
    expect(text.hasBody).toBe(true);
    expect(text.rawBody).toEqual(Buffer.from('abcd'));
    const base64 = await runAll(
      [limitBody(4)],
      eventOf({ body: Buffer.from([1, 2, 3, 4]).toString('base64'), base64: true }),
    );
    expect(base64.rawBody).toEqual(Buffer.from([1, 2, 3, 4]));
  });

  it('counts bytes, not characters, and refuses one byte over with 413 naming the limit', async () => {
    const err = await refusal(run(limitBody(4), eventOf({ body: 'abcé' })));
    expect(err.code).toBe('payload_too_large');
    expect(err.detail).toBe('The request body must be at most 4 bytes.');
  });

  it('sees no body in an empty one', async () => {
    const state = await runAll([limitBody(4)], eventOf({ body: '' }));
    expect(state.hasBody).toBe(false);
    expect(state.rawBody).toEqual(Buffer.alloc(0));
  });
});

describe('a request’s own check', () => {
  it('gets the headers and the raw bytes, before anything is parsed', async () => {
    const seen: unknown[] = [];
    const verify = async (request: unknown) => void seen.push(request);
    const event = eventOf({ body: '{"a":1}', headers: { 'x-signature': 's' } });
    await runAll([limitBody(100), verifyRequest(verify)], event);
    expect(seen).toEqual([{ headers: { 'x-signature': 's' }, rawBody: Buffer.from('{"a":1}') }]);
    await runAll([verifyRequest(verify)], eventOf({ headers: undefined }));
    expect(seen[1]).toEqual({ headers: {}, rawBody: Buffer.alloc(0) });
  });
});

describe('the media type', () => {
  it('must be JSON when there is a body: 415 otherwise, even without a content type', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, undefined]) {
      const err = await refusal(
        runAll([limitBody(100), requireJsonMediaType], eventOf({ body: '{}', headers })),
      );
      expect(err.code).toBe('unsupported_media_type');
      expect(err.detail).toBe('Send the request body as application/json.');
    }
    const ok = eventOf({ body: '{}', headers: { 'content-type': 'application/json ; charset=utf-8' } });
    await expect(runAll([limitBody(100), requireJsonMediaType], ok)).resolves.toBeDefined();
  });

  it('is not looked at without a body', async () => {
    await expect(
      runAll([limitBody(100), requireJsonMediaType], eventOf({ headers: {} })),
    ).resolves.toBeDefined();
  });
});

describe('the JSON body', () => {
  for (const [name, parser] of [
    ['middy’s parser', parseJsonBody],
    ['the verified bytes', parseVerifiedBody],
  ] as const) {
    it(`${name}: the parsed body, {} without one, 400 invalid_json for text that is not JSON`, async () => {
      expect((await runAll([limitBody(100), parser], eventOf({ body: '{"a":[1]}' }))).body).toEqual({
        a: [1],
      });
      expect((await runAll([limitBody(100), parser], eventOf({}))).body).toEqual({});
      const err = await refusal(runAll([limitBody(100), parser], eventOf({ body: '{"a":' })));
      expect(err.code).toBe('invalid_json');
      expect(err.detail).toBe('The request body is not valid JSON.');
    });
  }

  it('parses a base64 body', async () => {
    const body = Buffer.from('{"b":2}').toString('base64');
    expect((await runAll([limitBody(100), parseJsonBody], eventOf({ body, base64: true }))).body).toEqual({
      b: 2,
    });
  });

  it('takes a `__proto__` key as JSON.parse does, an own property, never a prototype', async () => {
    const state = await runAll(
      [limitBody(100), parseJsonBody],
      eventOf({ body: '{"__proto__":{"x":1},"a":2}' }),
    );
    const body = state.body as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.hasOwn(body, '__proto__')).toBe(true);
    expect(body.a).toBe(2);
    expect((body as { x?: unknown }).x).toBeUndefined();
  });
});

describe('validation', () => {
  const schemas = {
    body: z.strictObject({ name: z.string() }),
    query: z.strictObject({ limit: z.string().optional() }),
    path: z.strictObject({ key_id: z.string() }),
  };

  it('leaves each part as its schema parsed it', async () => {
    const event = eventOf({ body: '{"name":"k"}', query: { limit: '5' }, path: { key_id: 'k-1' } });
    const state = await runAll([limitBody(100), parseJsonBody, validate(schemas)], event);
    expect(state.input).toEqual({ body: { name: 'k' }, query: { limit: '5' }, path: { key_id: 'k-1' } });
  });

  it('reads a missing query or path as empty, and a route without their schemas gets {}', async () => {
    const state = await runAll([validate({ body: z.object({}) })], eventOf({ query: { a: '1' } }));
    expect(state.input).toEqual({ body: {}, query: {}, path: {} });
    const err = await refusal(runAll([validate(schemas)], eventOf({})));
    expect(err.errors).toEqual([
      { path: 'name', message: expect.any(String) },
      { path: 'key_id', message: expect.any(String) },
    ]);
  });

  it('answers every problem of every part at once, unknown fields by name, where they were', async () => {
    const event = eventOf({ body: '{"name":1,"x":1,"y":2}', query: { z: '1' }, path: { key_id: 'k' } });
    const err = await refusal(runAll([limitBody(100), parseJsonBody, validate(schemas)], event));
    expect(err.code).toBe('validation_failed');
    expect(err.detail).toBe('The request failed validation.');
    expect(err.errors).toEqual([
      { path: 'name', message: expect.stringContaining('string') },
      { path: 'body', message: 'unknown field(s): x, y' },
      { path: 'query', message: 'unknown field(s): z' },
    ]);
  });
});
