import type { CallToolResult } from '@modelcontextprotocol/server';
import { type McpTool, REFERENCE_TOOLS } from '#lib/access/tools';
import type { McpCaller } from './caller.ts';
import { refusalIn } from './tool-access.ts';

/**
 * What the reference server's tools share: their results, their catalogue entry as MCP's title
 * and hints, and the guard every tool with a `workspace_id` runs before it does anything.
 */

/** A tool's answer: its structured content, and the same as JSON text for clients that read only text. */
export const answered = (
  structured: Record<string, unknown>,
  text = JSON.stringify(structured),
): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: structured,
});

/** A refusal or failure as MCP reports a tool's: a result with `isError` and the sentence to read. */
export const failed = (sentence: string): CallToolResult => ({
  content: [{ type: 'text', text: sentence }],
  isError: true,
});

/** A tool of the reference catalogue by name; every name asked for is one. */
export const catalogueTool = (name: string): McpTool =>
  REFERENCE_TOOLS.find((t) => t.name === name) as McpTool;

/**
 * The catalogue's word on a tool as MCP's title and hints: read-only when its scope is the read
 * scope, destructive when the deployment says so. Hints help a client ask its user; they never
 * authorize a call.
 */
export function presented(tool: McpTool) {
  const readOnly = tool.scope === 'svc.forms.read';
  return {
    title: tool.title ?? tool.name,
    annotations: {
      readOnlyHint: readOnly,
      ...(!readOnly && { destructiveHint: tool.destructive === true }),
      openWorldHint: false,
    },
  };
}

/**
 * A tool's handler behind the check of the caller's access in the workspace its arguments name
 * (`refusalIn`): a refusal answers `isError` with the sentence, and the tool never runs.
 */
export const guarded =
  <A extends { workspace_id: string }>(caller: McpCaller, tool: McpTool, run: (args: A) => CallToolResult) =>
  async (args: A): Promise<CallToolResult> => {
    const refusal = refusalIn(caller, tool, args.workspace_id);
    return refusal ? failed(refusal) : run(args);
  };
