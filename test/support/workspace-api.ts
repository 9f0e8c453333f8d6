import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { type HandlerName, makeHandlers } from '#lib/handlers/index';
import type { Runtime } from '#lib/runtime';
import type { CallOptions, Reply } from './api.ts';
import { recordAnswer } from './route-codes.ts';

type Handler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** The workspace governance handlers (contract §12) and the usage ones (§18) built from `runtime`, called with payload 2.0 events. */
export function loadWorkspaceApi(runtime: Runtime) {
  const handlers = makeHandlers(runtime, { githubKeys: async () => [] });
  const call = async (
    name: HandlerName,
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
  const keys = '/v1/mcp/workspaces/{workspace_id}/api-keys';
  const policy = '/v1/mcp/workspaces/{workspace_id}/policy';
  return {
    listKeys: (workspaceId: string, opts: CallOptions) =>
      call('list-workspace-keys', 'GET', keys, { workspace_id: workspaceId }, opts),
    cutOff: (workspaceId: string, keyId: string, opts: CallOptions) =>
      call('cut-off-key', 'DELETE', `${keys}/{key_id}`, { workspace_id: workspaceId, key_id: keyId }, opts),
    events: (workspaceId: string, opts: CallOptions) =>
      call(
        'list-workspace-events',
        'GET',
        '/v1/mcp/workspaces/{workspace_id}/events',
        { workspace_id: workspaceId },
        opts,
      ),
    getPolicy: (workspaceId: string, opts: CallOptions) =>
      call('get-workspace-policy', 'GET', policy, { workspace_id: workspaceId }, opts),
    putPolicy: (workspaceId: string, opts: CallOptions) =>
      call('put-workspace-policy', 'PUT', policy, { workspace_id: workspaceId }, opts),
    /** The administrators' usage view (contract §18). */
    usage: (workspaceId: string, opts: CallOptions) =>
      call(
        'get-workspace-usage',
        'GET',
        '/v1/mcp/workspaces/{workspace_id}/usage',
        { workspace_id: workspaceId },
        opts,
      ),
    /** A credential's usage, for its creator (contract §18). */
    keyUsage: (keyId: string, opts: CallOptions) =>
      call('get-key-usage', 'GET', '/v1/mcp/api-keys/{key_id}/usage', { key_id: keyId }, opts),
    /** The policy fan-out, as the stream's event source mapping invokes it. */
    applyPolicy: handlers['apply-workspace-policy'],
  };
}
