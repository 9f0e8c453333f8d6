import { jsonRpcError, MCP_ERROR_CODES, type McpAnswer } from './answer.ts';

/** The one method the stateless endpoint serves: no SSE stream (GET), no session (DELETE). */
export const MCP_ALLOWED_METHODS = 'POST';

/**
 * What the Streamable HTTP transport spec asks of the endpoint before any JSON-RPC is read: an
 * `Origin` (sent by browsers, never by desktop or server clients) must be one the deployment
 * allows, against DNS rebinding; and a server without an SSE stream answers GET, HEAD and DELETE
 * with 405. Undefined when the request may proceed.
 */
export function transportRefusal(
  request: { method: string; origin: string | null | undefined },
  allowedOrigins: readonly string[],
): McpAnswer | undefined {
  if (typeof request.origin === 'string' && !allowedOrigins.includes(request.origin)) {
    return jsonRpcError(
      403,
      MCP_ERROR_CODES.transport,
      'Forbidden: requests from this origin are not allowed.',
    );
  }
  if (request.method !== MCP_ALLOWED_METHODS) {
    return jsonRpcError(
      405,
      MCP_ERROR_CODES.transport,
      'Method not allowed: this server has no SSE stream and no sessions; send JSON-RPC messages with POST.',
      { allow: MCP_ALLOWED_METHODS },
    );
  }
  return undefined;
}
