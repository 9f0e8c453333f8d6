import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { rawBodyOf } from '#lib/http/body';
import { isJsonMediaType } from '#lib/http/media-type';
import { SetError } from '#lib/identity/security-events';
import { RETRY_AFTER_SECONDS } from '#lib/limits';
import { OAUTH_CLIENT_LIMITS } from '#lib/oauth/clients';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { OPEN_CORS } from '#lib/oauth/metadata';
import { countMetric, describeError, logger } from '#lib/observability';
import type { OAuthReply, OAuthRouteModule } from './oauth-route.ts';

type Event = APIGatewayProxyEventV2;
/** A Lambda proxy result (payload 2.0). */
export type OAuthResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
};
type Result = OAuthResult;

/**
 * The OAuth flavour of the one middleware stack (lib/http/route.ts is the management API's):
 * the same first steps (the invocation's logging, header names in lower case), then the request
 * read as the route says (query, form or JSON body, each parameter at most once, at most
 * `OAUTH_CLIENT_LIMITS.maxBodyBytes`) and validated with its schema, and every refusal answered in
 * OAuth's vocabulary: RFC 6749 §5.2 JSON with `Cache-Control: no-store` and CORS for any origin,
 * or a page where the route's refusals are for a person. A failing dependency is
 * `temporarily_unavailable` (503, `Retry-After`). Nothing of a request but its path is logged.
 */

const json = (status: number, body: unknown, extra: Record<string, string> = {}): Result => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...OPEN_CORS, ...extra },
  body: JSON.stringify(body),
});

export const NOT_FOUND = json(404, { message: 'Not Found' });
export const METHOD_NOT_ALLOWED = json(405, {
  error: 'invalid_request',
  error_description: 'Method not allowed.',
});
export const PREFLIGHT: Result = { statusCode: 204, headers: OPEN_CORS, body: '' };

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The page an authorization error is shown on when nothing may be redirected (contract §15). */
export function errorPage(status: number, title: string, message: string): Result {
  return {
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
  };
}

/** The parameters of a query or form body, each sent at most once (RFC 6749 §3.1). */
export function singleParams(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of params) {
    if (Object.hasOwn(out, name))
      throw new OAuthError('invalid_request', `The parameter ${name} was sent more than once.`);
    out[name] = value;
  }
  return out;
}

/** The body's media type, without parameters, in lower case. */
const mediaType = (event: Event) => event.headers?.['content-type']?.split(';')[0]?.trim().toLowerCase();

/** The request's body bytes, refused above the OAuth endpoints' limit. */
function limitedBody(event: Event, error: 'invalid_request' | 'invalid_client_metadata'): string {
  const raw = rawBodyOf(event) ?? Buffer.alloc(0);
  if (raw.length > OAUTH_CLIENT_LIMITS.maxBodyBytes)
    throw new OAuthError(error, `The body is larger than ${OAUTH_CLIENT_LIMITS.maxBodyBytes} bytes.`);
  return raw.toString('utf8');
}

/** What the route reads of the request, before its schema. */
function readInput(module: OAuthRouteModule, event: Event): unknown {
  switch (module.input) {
    case 'none':
      return {};
    case 'query':
      return singleParams(new URLSearchParams(event.rawQueryString ?? ''));
    case 'form':
      if (mediaType(event) !== 'application/x-www-form-urlencoded')
        throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
      return singleParams(new URLSearchParams(limitedBody(event, 'invalid_request')));
    case 'secevent':
      if (mediaType(event) !== 'application/secevent+jwt')
        throw new SetError(
          'invalid_request',
          'The body must be a security event token (application/secevent+jwt).',
        );
      return { token: limitedBody(event, 'invalid_request').trim() };
    case 'json': {
      if (!isJsonMediaType(event.headers?.['content-type']))
        throw new OAuthError('invalid_client_metadata', 'The body must be JSON (application/json).');
      const text = limitedBody(event, 'invalid_client_metadata');
      try {
        return JSON.parse(text);
      } catch {
        throw new OAuthError('invalid_client_metadata', 'The body is not valid JSON.');
      }
    }
  }
}

/** The input as the route's schema reads it; what it refuses is the route's first error. */
function validated(module: OAuthRouteModule, raw: unknown): unknown {
  if (!module.schema) return raw;
  const parsed = (module.schema as z.ZodType).safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  const description = `${where}${issue?.message ?? 'invalid request'}`;
  // An IdP's push is refused in RFC 8935's words, as every other refusal of its route.
  if (module.errorsAs === 'secevent') throw new SetError('invalid_request', description);
  throw new OAuthError(module.errors[0] ?? 'invalid_request', description);
}

function toResult(reply: OAuthReply): Result {
  if (reply.page) return errorPage(reply.status, reply.page.title, reply.page.message);
  if (reply.json === undefined)
    return { statusCode: reply.status, headers: { 'cache-control': 'no-store', ...reply.headers }, body: '' };
  return json(reply.status, reply.json, reply.headers);
}

/** Maps every error through one place: an OAuth refusal as the route shows it, anything else as 503. */
function responder(module: OAuthRouteModule): MiddlewareObj<Event, Result> {
  const page = module.errorsAs === 'page';
  return {
    after: async (request) => {
      logger.info('oauth request completed', {
        operation: module.operationId,
        status: request.response?.statusCode,
      });
    },
    onError: async (request) => {
      const err = request.error;
      if (err instanceof SetError) {
        // RFC 8935 §2.3: the transmitter reads `err`; an IdP whose keys could not be had retries.
        logger.warn('identity signal refused', { operation: module.operationId, err: err.err });
        countMetric('IdentitySignalsRefused');
        request.response = json(
          err.status,
          { err: err.err, description: err.description },
          err.status === 503 ? { 'retry-after': RETRY_AFTER_SECONDS } : {},
        );
        return;
      }
      if (err instanceof OAuthError) {
        logger.info('oauth request refused', { operation: module.operationId, error: err.error });
        request.response = page
          ? errorPage(400, 'Invalid request', err.description)
          : json(
              err.status,
              { error: err.error, error_description: err.description },
              err.status === 503 ? { 'retry-after': RETRY_AFTER_SECONDS } : {},
            );
        return;
      }
      logger.error('oauth request failed', { operation: module.operationId, error: describeError(err) });
      request.response = page
        ? errorPage(503, 'Try again shortly', 'The sign-in service is unavailable right now.')
        : json(
            503,
            {
              error: 'temporarily_unavailable',
              error_description: 'The authorization server is unavailable; retry shortly.',
            },
            { 'retry-after': RETRY_AFTER_SECONDS },
          );
    },
  };
}

/** The handler of one OAuth route: the stack around its use case. */
export function oauthRouteHandler(module: OAuthRouteModule, deps: OAuthDeps) {
  const handle = module.handle(deps);
  return middy<Event, Result>()
    .use({
      before: async ({ event, context }) => logger.startInvocation(context, { rawPath: event.rawPath }),
    })
    .use(responder(module))
    .use(httpHeaderNormalizer())
    .handler(async (event) =>
      toResult(await handle({ input: validated(module, readInput(module, event)), path: event.rawPath })),
    );
}
