import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpSecurityHeaders from '@middy/http-security-headers';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { REQUEST_LIMITS } from '#lib/limits';
import { countMetric, describeError, logger, observeInvocation } from '#lib/observability';
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
} from './guards.ts';
import type { Caller } from './identity.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from './problem.ts';
import { EmptyBody } from './schemas.ts';

/** The management API's request-body limit, for a route that sets none of its own. */
export const API_MAX_REQUEST_BODY_BYTES = REQUEST_LIMITS.maxBodyBytes;
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
  /** Largest accepted body. @default API_MAX_REQUEST_BODY_BYTES (16 KiB) */
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

const requestIdOf = (event: Event): string => event.requestContext?.requestId ?? 'unknown';

/**
 * The guards a route runs, in order, each refusal changing nothing: identity, then step-up, body
 * size, the request's own check (a signature), media type, JSON, and the schemas. The JSON is
 * middy's body parser's, except on a route with a `verify` check: that route parses the very
 * bytes its signature covered (docs/decisions.md, "The package manifest").
 */
function guards(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>, auth: 'user' | 'none') {
  return [
    ...(auth === 'user' ? [identify] : []),
    ...(auth === 'user' && spec.stepUp ? [requireStepUp(spec.now)] : []),
    limitBody(spec.maxBodyBytes ?? API_MAX_REQUEST_BODY_BYTES),
    ...(spec.verify ? [verifyRequest(spec.verify)] : []),
    requireJsonMediaType,
    spec.verify ? parseVerifiedBody : parseJsonBody,
    validate({ body: spec.body ?? EmptyBody, query: spec.query, path: spec.path }),
  ];
}

/** Runs last: middy's security headers may leave `undefined` values, which are not headers. */
const dropUndefinedHeaders: MiddlewareObj<Event, Result> = {
  after: async (request) => {
    const headers = request.response?.headers;
    if (!headers) return;
    for (const [name, value] of Object.entries(headers))
      if (value === undefined || value === '') delete headers[name];
  },
};
dropUndefinedHeaders.onError = dropUndefinedHeaders.after;

/**
 * The security headers of a JSON answer: `nosniff` and HSTS (180 days, subdomains, no `preload`:
 * the preload list takes a year at least, and entering it is the domain owner's decision). Middy 7
 * writes the headers of a browser document (CSP, COEP, COOP, CORP, Permissions-Policy,
 * X-Frame-Options) on every answer, where 6 wrote them on HTML only, so they are off.
 */
const securityHeaders = () =>
  httpSecurityHeaders({
    poweredBy: false,
    reportTo: false,
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    permissionsPolicy: false,
    frameOptions: false,
  });

function baseHeaders(requestId: string, contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'cache-control': 'no-store',
    [REQUEST_ID_HEADER]: requestId,
  };
}

/** Logs and counts every answer, and maps every error through the one mapper. */
function responder(operation: string): MiddlewareObj<Event, Result> {
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
  return middy<Event, Result>()
    .use(observeInvocation as MiddlewareObj<Event, Result>)
    .use(dropUndefinedHeaders)
    .use(securityHeaders())
    .use(responder(spec.operation))
    .use(httpHeaderNormalizer())
    .use({
      before: async ({ event }) => {
        logger.appendKeys({ request_id: requestIdOf(event) });
      },
    })
    .use(guards(spec, auth))
    .handler(async (event) => {
      const state = routeState(event);
      const requestId = requestIdOf(event);
      const reply = await fn(
        { ...state.input, rawBody: state.rawBody, headers: event.headers ?? {}, requestId },
        state.caller,
      );
      return {
        statusCode: reply.status,
        headers: { ...baseHeaders(requestId, 'application/json'), ...reply.headers },
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
