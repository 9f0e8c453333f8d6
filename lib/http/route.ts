import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpSecurityHeaders from '@middy/http-security-headers';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { z } from 'zod';
import { AppError, type FieldProblem } from '#lib/errors';
import { REQUEST_LIMITS } from '#lib/limits';
import { countMetric, describeError, logEventRedacted, logger, metrics } from '#lib/observability';
import { assertStepUp, type Caller, callerFrom } from './identity.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from './problem.ts';
import { EmptyBody } from './schemas.ts';

export const MAX_BODY_BYTES = REQUEST_LIMITS.maxBodyBytes;
export const REQUEST_ID_HEADER = 'x-request-id';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;
type Result = APIGatewayProxyStructuredResultV2;

/** What a route's function returns; the stack serialises it. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  /** Operation name for logs and metrics. */
  operation: string;
  body?: B;
  query?: Q;
  path?: P;
  /** Create and rotate mint a secret and need a recent login and a verified email. */
  stepUp?: boolean;
  /** Largest accepted body. @default REQUEST_LIMITS.maxBodyBytes (16 KiB) */
  maxBodyBytes?: number;
  /**
   * Checks the request's authenticity from its headers and raw body (a signature) before the body
   * is parsed; throws an AppError to refuse it.
   */
  verify?: (request: { headers: Record<string, string | undefined>; rawBody: Buffer }) => Promise<void>;
  now: () => Date;
}

export interface PublicRouteRequest<B, Q, P> {
  body: B;
  query: Q;
  path: P;
  /** The body's bytes exactly as received, for signatures computed over them. */
  rawBody: Buffer;
  /** Request headers, names in lower case. */
  headers: Record<string, string | undefined>;
  requestId: string;
}

export interface RouteRequest<B, Q, P> extends PublicRouteRequest<B, Q, P> {
  caller: Caller;
}

/** Per-request state the guard hands to the handler on the invocation's own context. */
interface RouteState {
  requestId: string;
  caller: Caller | undefined;
  rawBody: Buffer;
  input: { body: unknown; query: unknown; path: unknown };
}
type RouteContext = Context & { route?: RouteState };

const requestIdOf = (event: Event): string => event.requestContext?.requestId ?? 'unknown';

const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/** The raw body bytes, decoded once; undefined when there is no body. */
function bodyOf(event: Event): Buffer | undefined {
  if (!event.body) return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

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

/** Identity, then step-up, then body size, media type, JSON and schema: each refusal changes nothing. */
function guard(
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>,
  auth: 'user' | 'none',
): MiddlewareObj<Event, Result, Error, RouteContext> {
  const maxBodyBytes = spec.maxBodyBytes ?? MAX_BODY_BYTES;
  return {
    before: async (request) => {
      const { event } = request;
      const caller = auth === 'user' ? callerFrom(event) : undefined;
      if (caller) logger.appendKeys({ user_id: caller.userId });
      if (caller && spec.stepUp) assertStepUp(caller, spec.now());

      const raw = bodyOf(event);
      if (raw && raw.length > maxBodyBytes) {
        throw new AppError('payload_too_large', `The request body must be at most ${maxBodyBytes} bytes.`);
      }
      if (spec.verify) await spec.verify({ headers: event.headers ?? {}, rawBody: raw ?? Buffer.alloc(0) });
      let body: unknown = {};
      if (raw) {
        const contentType = event.headers?.['content-type'] ?? '';
        if (!JSON_MEDIA_TYPE.test(contentType)) {
          throw new AppError('unsupported_media_type', 'Send the request body as application/json.');
        }
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new AppError('invalid_json', 'The request body is not valid JSON.');
        }
      }

      const problems: FieldProblem[] = [];
      const parse = (where: 'body' | 'query' | 'path', schema: z.ZodType, value: unknown) => {
        const out = schema.safeParse(value);
        if (out.success) return out.data;
        problems.push(...fieldProblems(where, out.error));
        return undefined;
      };
      const input = {
        body: parse('body', spec.body ?? EmptyBody, body),
        query: spec.query ? parse('query', spec.query, event.queryStringParameters ?? {}) : {},
        path: spec.path ? parse('path', spec.path, event.pathParameters ?? {}) : {},
      };
      if (problems.length > 0) {
        throw new AppError('validation_failed', 'The request failed validation.', { errors: problems });
      }
      request.context.route = {
        requestId: requestIdOf(event),
        caller,
        rawBody: raw ?? Buffer.alloc(0),
        input,
      };
    },
  };
}

/** Runs last: middy's security headers may leave `undefined` values, which are not headers. */
const dropUndefinedHeaders: MiddlewareObj<Event, Result, Error, RouteContext> = {
  after: async (request) => {
    const headers = request.response?.headers;
    if (!headers) return;
    for (const [name, value] of Object.entries(headers))
      if (value === undefined || value === '') delete headers[name];
  },
};
dropUndefinedHeaders.onError = dropUndefinedHeaders.after;

function baseHeaders(requestId: string, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'cache-control': 'no-store', [REQUEST_ID_HEADER]: requestId };
}

/** Logs and counts every answer, and maps every error through the one mapper. */
function responder(operation: string): MiddlewareObj<Event, Result, Error, RouteContext> {
  return {
    after: async (request) => {
      logger.info('request completed', { operation, status: request.response?.statusCode });
      countMetric('ApiRequests');
    },
    onError: async (request) => {
      const requestId = requestIdOf(request.event);
      const problem = toProblem(request.error, requestId);
      if (problem.status >= 500) {
        logger.error('request failed', {
          operation,
          status: problem.status,
          code: problem.code,
          error: describeError(request.error),
        });
      } else {
        logger.info('request refused', { operation, status: problem.status, code: problem.code });
      }
      countMetric('ApiRequests');
      countMetric('ApiErrors', { code: problem.code });
      request.response = {
        statusCode: problem.status,
        headers: { ...baseHeaders(requestId, PROBLEM_CONTENT_TYPE), ...problem.headers },
        body: JSON.stringify(problem.body),
      };
    },
  };
}

/** The one middleware stack; `auth: 'none'` for the few routes anyone may call. */
function stack(
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>,
  auth: 'user' | 'none',
  fn: (request: PublicRouteRequest<unknown, unknown, unknown>, caller: Caller | undefined) => Promise<Reply>,
) {
  return middy<Event, Result, Error, RouteContext>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logEventRedacted)
    .use(logMetrics(metrics))
    .use(dropUndefinedHeaders)
    .use(httpSecurityHeaders({ poweredBy: false, reportTo: false }))
    .use(responder(spec.operation))
    .use(httpHeaderNormalizer())
    .use({
      before: async ({ event }) => {
        logger.appendKeys({ request_id: requestIdOf(event) });
      },
    })
    .use(guard(spec, auth))
    .handler(async (event, context) => {
      const state = context.route;
      if (!state) throw new Error('route guard did not run');
      const reply = await fn(
        {
          ...state.input,
          rawBody: state.rawBody,
          headers: event.headers ?? {},
          requestId: state.requestId,
        },
        state.caller,
      );
      return {
        statusCode: reply.status,
        headers: { ...baseHeaders(state.requestId, 'application/json'), ...reply.headers },
        body: JSON.stringify(reply.body),
      };
    });
}

/**
 * A management API route: the handler takes a payload 2.0 event with JWT claims and answers
 * with the contract's statuses and problem+json errors. The guard parsed each part of the
 * request with the spec's own schema, hence the casts to their outputs.
 */
export function route<
  B extends z.ZodType = typeof EmptyBody,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
>(
  spec: RouteSpec<B, Q, P>,
  fn: (request: RouteRequest<z.output<B>, z.output<Q>, z.output<P>>) => Promise<Reply>,
) {
  return stack(spec, 'user', (request, caller) => {
    if (!caller) throw new Error('route guard did not identify the caller');
    return fn({ ...(request as PublicRouteRequest<z.output<B>, z.output<Q>, z.output<P>>), caller });
  });
}

/** A route without a user token (leak reports): the same stack, errors and limits. */
export function publicRoute<
  B extends z.ZodType = typeof EmptyBody,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
>(
  spec: Omit<RouteSpec<B, Q, P>, 'stepUp'>,
  fn: (request: PublicRouteRequest<z.output<B>, z.output<Q>, z.output<P>>) => Promise<Reply>,
) {
  return stack(spec, 'none', (request) =>
    fn(request as PublicRouteRequest<z.output<B>, z.output<Q>, z.output<P>>),
  );
}
