/**
 * An HTTP answer of an MCP endpoint as plain data. One value feeds an in-process `Response`, a
 * Lambda result, a REST API gateway response and local mode, so they cannot drift apart.
 */
export interface McpAnswer {
  /** The HTTP status (401, 403, 503...). */
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Serialised JSON: a JSON-RPC error `{"jsonrpc":"2.0","id":null,"error":{…}}`, or the registration refusal. */
  body: string;
}

/** JSON-RPC error codes of the MCP endpoint's HTTP-level refusals (contract §7). */
export const MCP_ERROR_CODES = {
  /** The transport refused the request (method, origin, path): the MCP SDK's own code. */
  transport: -32000,
  unauthorized: -32001,
  unavailable: -32002,
  forbidden: -32003,
  /** A call over one of the credential's limits (contract §19), with HTTP 429 and `Retry-After`. */
  rateLimited: -32004,
  /** An `Mcp-Method` or `Mcp-Name` header that disagrees with the body (SEP-2243's HeaderMismatch). */
  headerMismatch: -32020,
} as const;

export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): McpAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }),
  };
}

export const toResponse = (answer: McpAnswer): Response =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });
