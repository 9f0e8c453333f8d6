import type { WorkspaceAccess } from '#lib/access/scopes';
import { type McpTool, REFERENCE_TOOLS, toolSentence, toolsIn } from '#lib/access/tools';
import type { McpCaller } from './caller.ts';

/**
 * What the reference server lets a caller call (contract §19), from the authorizer's context
 * alone: the tools it lists, and the check every tool makes in the workspace its arguments name.
 * The catalogue's scopes and the tools the authorizer wrote per workspace decide; a tool's
 * annotations never do.
 */

/**
 * The tools the credential may call in one workspace: the catalogue's tools its scopes there
 * allow, within the workspace's `tools` when the authorizer gave them (an older one gives none).
 */
export const toolsInWorkspace = (workspace: WorkspaceAccess): string[] =>
  // Stryker disable next-line ArrayDeclaration: equivalent, with a catalogue toolsIn never answers null
  toolsIn(REFERENCE_TOOLS, workspace.scopes, undefined, workspace.tools && { tools: workspace.tools }) ?? [];

/**
 * The tools the credential may call in at least one workspace, in catalogue order: what
 * `tools/list` answers, and the only tools a `tools/call` may name. Within the authorizer's
 * union when it gave one.
 */
export function callableTools(caller: McpCaller): string[] {
  const reachable = new Set(caller.workspaces.flatMap(toolsInWorkspace));
  return REFERENCE_TOOLS.map((t) => t.name).filter(
    (name) => reachable.has(name) && (caller.tools?.includes(name) ?? true),
  );
}

/** A workspace id as a sentence may show it: what ids look like, else no echo of the argument. */
const WORKSPACE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Why the caller may not call `tool` in the workspace `workspaceId`, as the sentence a person
 * reads; undefined when it may. The one check every tool that takes a `workspace_id` makes: the
 * workspace must be one the credential reaches, its scopes there must hold the tool's, and the
 * tools the workspace's policy leaves it there (when known) must include the tool.
 */
export function refusalIn(caller: McpCaller, tool: McpTool, workspaceId: string): string | undefined {
  const workspace = caller.workspaces.find((w) => w.id === workspaceId);
  if (!workspace) {
    const named = WORKSPACE_ID.test(workspaceId) ? `workspace ${workspaceId}` : 'that workspace';
    return `This credential does not reach ${named}: list_workspaces names the workspaces it does.`;
  }
  if (!workspace.scopes.includes(tool.scope))
    return `This credential lacks ${tool.scope} in workspace ${workspace.id}, which ${tool.name} needs.`;
  if (workspace.tools && !workspace.tools.includes(tool.name))
    return toolSentence({
      tool: tool.name,
      kind: caller.kind ?? 'api_key',
      by: 'policy',
      tools: [],
      workspace_ids: [workspace.id],
    });
  return undefined;
}
