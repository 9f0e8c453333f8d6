import type { McpCall } from '#lib/usage/model';

/**
 * The MCP request a verification is for, counted in the credential's usage (contract §18): the
 * 2026-07-28 `Mcp-Method` / `Mcp-Name` headers when the client sent them, else the JSON-RPC body
 * when the server already parsed it (a batch or anything else: no call named).
 */
export function mcpCallOf(
  header: (name: 'mcp-method' | 'mcp-name') => string | null | undefined,
  body?: unknown,
): McpCall | undefined {
  const method = header('mcp-method');
  if (method) return { method, name: header('mcp-name') ?? undefined };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof message.method !== 'string') return undefined;
  const name = message.params?.name;
  return { method: message.method, name: typeof name === 'string' ? name : undefined };
}

/** The JSON-RPC body of a fetch `Request`, read from a clone (the server reads the original); undefined if none. */
export async function jsonBodyOf(request: Request): Promise<unknown> {
  if (request.method !== 'POST' || !request.headers.get('content-type')?.includes('json')) return undefined;
  try {
    return await request.clone().json();
  } catch {
    return undefined;
  }
}
