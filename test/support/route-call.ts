import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { makeHandlers } from '#lib/handlers/index';
import type { RouteName } from '#lib/routes/index';
import type { Runtime } from '#lib/runtime';
import type { CallOptions, Reply } from './api.ts';
import { recordAnswer } from './route-codes.ts';

type Handler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/**
 * Any management route built from `runtime`, called with a payload 2.0 event as API Gateway sends
 * it: `route('update-key', 'PATCH', '/v1/mcp/api-keys/{key_id}', { key_id }, opts)`.
 */
export function routeCaller(runtime: Runtime) {
  const handlers = makeHandlers(runtime, { githubKeys: async () => [] });
  return async (
    name: RouteName,
    method: string,
    template: string,
    params: Record<string, string>,
    opts: CallOptions,
  ): Promise<Reply> => {
    const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const contentType = opts.contentType === undefined ? body && 'application/json' : opts.contentType;
    const rawPath = Object.entries(params).reduce((path, [k, v]) => path.replace(`{${k}}`, v), template);
    const event = httpApiEvent({
      method,
      routeKey: `${method} ${template}`,
      rawPath,
      pathParameters: params,
      query: opts.query,
      headers: { ...(contentType && { 'content-type': contentType }), 'user-agent': 'vitest' },
      body,
      claims: (opts.caller ?? {}) as Record<string, unknown>,
    });
    const out = await (handlers[name] as unknown as Handler)(event, lambdaContext('test'));
    if (typeof out === 'string') throw new Error('handlers must return structured results');
    const raw = out.body ?? '';
    const headers = Object.fromEntries(
      Object.entries(out.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    const reply = { status: out.statusCode ?? 200, headers, raw, body: raw ? JSON.parse(raw) : {} };
    recordAnswer(method, rawPath, reply.status, reply.body);
    return reply;
  };
}

/** PATCH /v1/mcp/api-keys/{key_id} (contract §19) on `runtime`. */
export function updateRoute(runtime: Runtime) {
  const route = routeCaller(runtime);
  return (keyId: string, opts: CallOptions) =>
    route('update-key', 'PATCH', '/v1/mcp/api-keys/{key_id}', { key_id: keyId }, opts);
}
