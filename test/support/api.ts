import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { makeHandlers } from '#lib/handlers/index';
import type { Runtime } from '#lib/runtime';
import { recordAnswer } from './route-codes.ts';

type Handler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  raw: string;
}

export interface Caller {
  sub?: string;
  email_verified?: unknown;
  auth_time?: unknown;
}

export const freshCaller = (sub: string): Caller => ({
  sub,
  email_verified: 'true',
  auth_time: String(Math.floor(Date.now() / 1000) - 5),
});

export interface CallOptions {
  caller?: Caller;
  body?: unknown;
  rawBody?: string;
  contentType?: string | null;
  query?: Record<string, string>;
}

/** The management handlers built from `runtime`, as each Lambda entry point builds its own. */
export function loadApi(runtime: Runtime) {
  // No GitHub keys: a generated signature can never verify, and nothing is fetched.
  const handlers = makeHandlers(runtime, { githubKeys: async () => [] });
  const [create, list, rotate, revoke, events] = [
    { handler: handlers['create-key'] },
    { handler: handlers['list-keys'] },
    { handler: handlers['rotate-key'] },
    { handler: handlers['revoke-key'] },
    { handler: handlers['list-events'] },
  ];
  const invoke = async (handler: Handler, event: APIGatewayProxyEventV2WithJWTAuthorizer): Promise<Reply> => {
    const out = await handler(event, lambdaContext('test'));
    if (typeof out === 'string') throw new Error('handlers must return structured results');
    const raw = out.body ?? '';
    const headers = Object.fromEntries(
      Object.entries(out.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    const reply = { status: out.statusCode ?? 200, headers, raw, body: raw ? JSON.parse(raw) : {} };
    recordAnswer(event.requestContext.http.method, event.rawPath, reply.status, reply.body);
    return reply;
  };
  const request = (
    opts: CallOptions,
    extra: { method: string; routeKey: string; rawPath: string; key_id?: string },
  ) => {
    const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const contentType =
      opts.contentType === undefined
        ? body === undefined
          ? undefined
          : 'application/json'
        : opts.contentType;
    return httpApiEvent({
      method: extra.method,
      routeKey: extra.routeKey,
      rawPath: extra.rawPath,
      ...(extra.key_id !== undefined && { pathParameters: { key_id: extra.key_id } }),
      query: opts.query,
      headers: { ...(contentType && { 'content-type': contentType }), 'user-agent': 'vitest' },
      body,
      claims: (opts.caller ?? {}) as Record<string, unknown>,
    });
  };
  return {
    runtime,
    create: (opts: CallOptions) =>
      invoke(
        create.handler as Handler,
        request(opts, { method: 'POST', routeKey: 'POST /v1/mcp/api-keys', rawPath: '/v1/mcp/api-keys' }),
      ),
    list: (opts: CallOptions) =>
      invoke(
        list.handler as Handler,
        request(opts, { method: 'GET', routeKey: 'GET /v1/mcp/api-keys', rawPath: '/v1/mcp/api-keys' }),
      ),
    rotate: (keyId: string, opts: CallOptions) =>
      invoke(
        rotate.handler as Handler,
        request(opts, {
          method: 'POST',
          routeKey: 'POST /v1/mcp/api-keys/{key_id}/rotate',
          rawPath: `/v1/mcp/api-keys/${keyId}/rotate`,
          key_id: keyId,
        }),
      ),
    revoke: (keyId: string, opts: CallOptions) =>
      invoke(
        revoke.handler as Handler,
        request(opts, {
          method: 'DELETE',
          routeKey: 'DELETE /v1/mcp/api-keys/{key_id}',
          rawPath: `/v1/mcp/api-keys/${keyId}`,
          key_id: keyId,
        }),
      ),
    events: (keyId: string, opts: CallOptions) =>
      invoke(
        events.handler as Handler,
        request(opts, {
          method: 'GET',
          routeKey: 'GET /v1/mcp/api-keys/{key_id}/events',
          rawPath: `/v1/mcp/api-keys/${keyId}/events`,
          key_id: keyId,
        }),
      ),
    leakReport: (opts: CallOptions) =>
      invoke(
        handlers['report-leaked-keys'] as Handler,
        request(opts, {
          method: 'POST',
          routeKey: 'POST /v1/mcp/leaked-keys',
          rawPath: '/v1/mcp/leaked-keys',
        }),
      ),
    githubReport: (opts: CallOptions) =>
      invoke(
        handlers['github-secret-scanning'] as Handler,
        request(opts, {
          method: 'POST',
          routeKey: 'POST /v1/mcp/secret-scanning/github',
          rawPath: '/v1/mcp/secret-scanning/github',
        }),
      ),
  };
}
