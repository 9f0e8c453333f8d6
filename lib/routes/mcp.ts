import type { McpServerConfig } from '#lib/config';
import { jsonRpcError, MCP_ERROR_CODES, type McpAnswer } from '#lib/mcp/answer';
import { authorizerContext, type McpProxyEvent, toRequest } from '#lib/mcp/request';
import { accessFromContext, serveMcp } from '#lib/mcp/server';
import { transportRefusal } from '#lib/mcp/transport';
import { logger } from '#lib/observability';
import type { Grants } from './route-module.ts';

/** A Lambda proxy result both payload versions accept. */
export interface McpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const NO_CONTEXT = jsonRpcError(403, MCP_ERROR_CODES.forbidden, 'Forbidden');

const result = (answer: McpAnswer): McpResult => ({
  statusCode: answer.status,
  headers: answer.headers,
  body: answer.body,
});

/**
 * /mcp: the reference MCP endpoint (contract §7), behind the key authorizer on a REST API
 * (payload 1.0) or, for reuse, an HTTP API (payload 2.0). It trusts only the authorizer's
 * context and never re-verifies the key or reads identity from a header; then it applies the
 * transport's rules (Origin, POST only) and serves one stateless JSON-mode request.
 */
export function mcpServerHandler(config: McpServerConfig) {
  return async (event: McpProxyEvent): Promise<McpResult> => {
    const access = accessFromContext(authorizerContext(event));
    if (!access) {
      logger.error('mcp request without a usable authorizer context; refusing');
      return result(NO_CONTEXT);
    }
    const request = toRequest(event);
    const refused = transportRefusal(
      { method: request.method, origin: request.headers.get('origin') },
      config.allowedOrigins,
    );
    if (refused) {
      logger.info('mcp request refused by the transport rules', { status: refused.status });
      return result(refused);
    }
    const response = await serveMcp(request, access);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { statusCode: response.status, headers, body: await response.text() };
  };
}

/**
 * The reference MCP endpoint's route on the REST API, behind the key authorizer. GET, HEAD and
 * DELETE reach the function too, which answers 405 (no SSE stream, no sessions): some clients
 * probe the endpoint with HEAD before they POST, and must meet the same 401 challenge as a GET
 * rather than a 404. Its function reads no table and derives no pepper.
 */
export const MCP_ROUTE = {
  name: 'mcp-server',
  methods: ['POST', 'GET', 'HEAD', 'DELETE'],
  path: '/mcp',
  auth: 'mcp-key',
  grants: { pepper: false, dynamodb: [] },
} as const satisfies {
  name: string;
  methods: readonly ('GET' | 'HEAD' | 'POST' | 'DELETE')[];
  path: string;
  auth: 'mcp-key';
  grants: Grants;
};
