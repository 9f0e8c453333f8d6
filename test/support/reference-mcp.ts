import { expect } from 'vitest';
import type { WorkspaceAccess } from '#lib/access/scopes';
import { type McpCaller, serveMcp } from '#lib/mcp/server';

/**
 * Plain JSON-RPC against the reference MCP server (`serveMcp`), in process: requests without the
 * 2026-07-28 envelope, which it serves statelessly as a 2025-era client's, each one on a fresh
 * server, as a Lambda's requests are.
 */

export const MCP_URL = 'http://mcp.test/mcp';

/** Every scope, as an editor's key holding them all has them. */
export const ALL_SCOPES: WorkspaceAccess['scopes'] = [
  'svc.forms.read',
  'svc.forms.write',
  'svc.forms.generate',
];

/** A caller, an API key unless `kind` says otherwise. */
export const callerOf = (workspaces: WorkspaceAccess[], more: Partial<McpCaller> = {}): McpCaller => ({
  userId: 'u-1',
  keyId: 'k-1',
  kind: 'api_key',
  workspaces,
  ...more,
});

/** The raw answer to one JSON-RPC message (any value: the body is sent as its JSON). */
export const post = (caller: McpCaller, message: unknown, headers: Record<string, string> = {}) =>
  serveMcp(
    new Request(MCP_URL, {
      method: 'POST',
      body: JSON.stringify(message),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    }),
    caller,
  );

/** A request's JSON-RPC result, which must be a 200. */
export async function rpc(
  caller: McpCaller,
  method: string,
  params?: object,
): Promise<Record<string, unknown>> {
  const response = await post(caller, { jsonrpc: '2.0', id: 1, method, ...(params && { params }) });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  expect(body.error).toBeUndefined();
  return body.result as Record<string, unknown>;
}

/** What a tool answers. */
export interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A `tools/call` of `name` with `args`, as the tool answered it. */
export const callTool = async (caller: McpCaller, name: string, args: Record<string, unknown>) =>
  (await rpc(caller, 'tools/call', { name, arguments: args })) as unknown as ToolResult;

/** The names `tools/list` answers. */
export const listedTools = async (caller: McpCaller) =>
  ((await rpc(caller, 'tools/list')).tools as { name: string }[]).map((t) => t.name);

/** The text of a refused call: it must be an `isError` result. */
export function refusalText(result: ToolResult): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return result.content[0]?.text ?? '';
}
