import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { AppError, type FieldProblem } from '#lib/errors';
import { logger } from '#lib/observability';
import { rawBodyOf } from './body.ts';
import { assertStepUp, type Caller, callerFrom } from './identity.ts';
import { isJsonMediaType } from './media-type.ts';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;
type Result = APIGatewayProxyStructuredResultV2;
type Guard = MiddlewareObj<Event, Result>;

/** What the guards learn about one request, for the handler. */
export interface RouteState {
  caller?: Caller;
  /** Whether the request carried a body at all (an empty one is none). */
  hasBody: boolean;
  rawBody: Buffer;
  body: unknown;
  input: { body: unknown; query: unknown; path: unknown };
}

// Keyed by the invocation's event: each guard adds what it learned, the handler reads it.
const states = new WeakMap<Event, RouteState>();

/** The state the guards left for this event. */
export function routeState(event: Event): RouteState {
  let state = states.get(event);
  if (!state) {
    state = { hasBody: false, rawBody: Buffer.alloc(0), body: {}, input: { body: {}, query: {}, path: {} } };
    states.set(event, state);
  }
  return state;
}

/** The caller from the JWT authorizer's claims; 401 without a usable identity. */
export const identify: Guard = {
  before: async ({ event }) => {
    const caller = callerFrom(event);
    logger.appendKeys({ user_id: caller.userId });
    routeState(event).caller = caller;
  },
};

/** A recent login and a verified email (routes that mint a secret). Runs after `identify`. */
export const requireStepUp = (now: () => Date): Guard => ({
  before: async ({ event }) => {
    const { caller } = routeState(event);
    if (caller) assertStepUp(caller, now());
  },
});

/** The raw body, decoded once; 413 above `maxBytes`. */
export const limitBody = (maxBytes: number): Guard => ({
  before: async ({ event }) => {
    if (!event.body) return;
    const raw = rawBodyOf(event) as Buffer;
    if (raw.length > maxBytes)
      throw new AppError('payload_too_large', `The request body must be at most ${maxBytes} bytes.`);
    const state = routeState(event);
    state.hasBody = true;
    state.rawBody = raw;
  },
});

/** The request's authenticity (a signature over the raw bytes), before anything is parsed. */
export const verifyRequest = (
  verify: (request: { headers: Record<string, string | undefined>; rawBody: Buffer }) => Promise<void>,
): Guard => ({
  before: async ({ event }) => {
    await verify({ headers: event.headers ?? {}, rawBody: routeState(event).rawBody });
  },
});

/** A body must be sent as JSON, by media type (415); a request without one has nothing to check. */
export const requireJsonMediaType: Guard = {
  before: async ({ event }) => {
    if (!routeState(event).hasBody) return;
    if (!isJsonMediaType(event.headers?.['content-type']))
      throw new AppError('unsupported_media_type', 'Send the request body as application/json.');
  },
};

const invalidJson = () => new AppError('invalid_json', 'The request body is not valid JSON.');

/** The body's bytes as JSON; 400 invalid_json when they are not. */
function parseBytes(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidJson();
  }
}

// The media type is decided before, by `isJsonMediaType` (the one rule, which local mode's dev
// routes share): middy's own check refuses `application/json ; charset=utf-8`, which RFC 9110
// allows, so it is off.
const jsonBodyParser = httpJsonBodyParser<Event>({ disableContentTypeCheck: true });

/** A refusal of middy's JSON body parser (a 422 HttpError naming its package). */
const isParserRefusal = (err: unknown): boolean =>
  (err as { cause?: { package?: unknown } } | null)?.cause?.package === '@middy/http-json-body-parser';

/**
 * The body parsed by middy's JSON body parser (a base64 body decoded first), its refusals mapped
 * to the contract's problems: text that is not JSON is 400 invalid_json. It also refuses JSON
 * that holds a key named `__proto__` (or a `constructor` with a `prototype`), which is valid
 * JSON: such a body is parsed as `JSON.parse` does (own properties, never a prototype) and the
 * schemas answer it, as they answer any field they do not take.
 */
export const parseJsonBody: Guard = {
  before: async (request) => {
    const state = routeState(request.event);
    if (!state.hasBody) return;
    try {
      await jsonBodyParser.before?.(request);
    } catch (err) {
      if (!isParserRefusal(err)) throw err;
      state.body = parseBytes(state.rawBody);
      return;
    }
    state.body = request.event.body as unknown;
  },
};

/**
 * The body parsed from exactly the bytes a `verify` check read (a signature over them), for the
 * routes that have one: nothing else reads or rewrites the body first.
 */
export const parseVerifiedBody: Guard = {
  before: async ({ event }) => {
    const state = routeState(event);
    if (state.hasBody) state.body = parseBytes(state.rawBody);
  },
};

/** Zod issues as the contract's `errors` list, every problem and not just the first. */
function fieldProblems(where: 'body' | 'query' | 'path', error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path: path || where, message: `unknown field(s): ${issue.keys.join(', ')}` };
    }
    return { path: path || where, message: issue.message };
  });
}

/** Body, query and path against the route's schemas; 400 with every problem at once. */
export const validate = (schemas: { body: z.ZodType; query?: z.ZodType; path?: z.ZodType }): Guard => ({
  before: async ({ event }) => {
    const state = routeState(event);
    const problems: FieldProblem[] = [];
    const parse = (where: 'body' | 'query' | 'path', schema: z.ZodType, value: unknown) => {
      const out = schema.safeParse(value);
      if (out.success) return out.data;
      problems.push(...fieldProblems(where, out.error));
      return undefined;
    };
    state.input = {
      body: parse('body', schemas.body, state.body),
      query: schemas.query ? parse('query', schemas.query, event.queryStringParameters ?? {}) : {},
      path: schemas.path ? parse('path', schemas.path, event.pathParameters ?? {}) : {},
    };
    if (problems.length > 0)
      throw new AppError('validation_failed', 'The request failed validation.', { errors: problems });
    // The resource ids of the path (`key_id`, `workspace_id`) go on every line of the request.
    logger.appendKeys(state.input.path as Record<string, string>);
  },
});
