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
import { countMetric, logger, metrics } from '#lib/observability';
import { assertStepUp, type Caller, callerFrom } from './identity.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from './problem.ts';
import { EmptyBody } from './schemas.ts';

export const MAX_BODY_BYTES = 16 * 1024;
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
  now: () => Date;
}

export interface RouteRequest<B, Q, P> {
  body: B;
  query: Q;
  path: P;
  caller: Caller;
  requestId: string;
}

interface State {
  requestId: string;
  caller?: Caller;
  input?: { body: unknown; query: unknown; path: unknown };
}
const state = new WeakMap<Event, State>();
const stateOf = (event: Event): State => {
  let s = state.get(event);
  if (!s) {
    s = { requestId: event.requestContext?.requestId ?? 'unknown' };
    state.set(event, s);
  }
  return s;
};

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
function guard(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>): MiddlewareObj<Event, Result> {
  return {
    before: async ({ event }) => {
      const s = stateOf(event);
      const caller = callerFrom(event);
      s.caller = caller;
      logger.appendKeys({ user_id: caller.userId });
      if (spec.stepUp) assertStepUp(caller, spec.now());

      const raw = bodyOf(event);
      if (raw && raw.length > MAX_BODY_BYTES) {
        throw new AppError('payload_too_large', `The request body must be at most ${MAX_BODY_BYTES} bytes.`);
      }
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
      s.input = input;
    },
  };
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

function baseHeaders(requestId: string, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'cache-control': 'no-store', [REQUEST_ID_HEADER]: requestId };
}

/** Serialises replies and maps every error through the one mapper. */
function responder(operation: string): MiddlewareObj<Event, Result> {
  return {
    after: async (request) => {
      const reply = request.response as unknown as Reply;
      const { requestId } = stateOf(request.event);
      request.response = {
        statusCode: reply.status,
        headers: { ...baseHeaders(requestId, 'application/json'), ...reply.headers },
        body: JSON.stringify(reply.body),
      };
      logger.info('request completed', { operation, status: reply.status });
      countMetric('ApiRequests');
    },
    onError: async (request) => {
      const { requestId } = stateOf(request.event);
      const problem = toProblem(request.error, requestId);
      if (problem.status >= 500) {
        logger.error('request failed', {
          operation,
          status: problem.status,
          code: problem.code,
          error: request.error,
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

/**
 * The one middleware stack of the management API. The returned handler takes a payload 2.0
 * event with JWT claims and answers with the contract's statuses and problem+json errors.
 */
export function route<
  B extends z.ZodType = typeof EmptyBody,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
>(
  spec: RouteSpec<B, Q, P>,
  fn: (request: RouteRequest<z.output<B>, z.output<Q>, z.output<P>>) => Promise<Reply>,
) {
  return middy<Event, Result, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(dropUndefinedHeaders)
    .use(httpSecurityHeaders({ poweredBy: false, reportTo: false }))
    .use(responder(spec.operation))
    .use(httpHeaderNormalizer())
    .use({
      before: async ({ event }) => {
        logger.appendKeys({ request_id: stateOf(event).requestId });
      },
    })
    .use(guard(spec as RouteSpec<z.ZodType, z.ZodType, z.ZodType>))
    .handler(async (event) => {
      const s = stateOf(event);
      if (!s.caller || !s.input) throw new Error('route guard did not run');
      const reply = await fn({
        body: s.input.body as z.output<B>,
        query: s.input.query as z.output<Q>,
        path: s.input.path as z.output<P>,
        caller: s.caller,
        requestId: s.requestId,
      });
      return reply as unknown as Result;
    });
}
