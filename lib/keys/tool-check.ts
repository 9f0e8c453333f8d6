import { TOOL_NAME, toolsIn } from '#lib/access/tools';
import type { McpCall } from '#lib/usage/model';
import type { ToolRefusal, VerifyResult } from './verification.ts';
import type { Verified, VerifierState } from './verifier-state.ts';

/**
 * A `tools/call` checked against what the credential may call (contract §19): the refusal when
 * it may call the tool in none of its workspaces (one the catalogue does not name included), else
 * undefined (a tool allowed in some
 * workspaces only is the tool's own check, in the workspace its arguments name). Who refused it:
 * the policies of the workspaces where the credential's own list and scopes allow it, else the
 * credential itself.
 */
export function toolRefusal(
  { deps }: VerifierState,
  { result, narrowing }: Verified,
  call: McpCall | undefined,
): ToolRefusal | undefined {
  if (result.outcome !== 'valid' || call?.method !== 'tools/call' || call.name === undefined)
    return undefined;
  const tool = call.name;
  if (result.workspaces.some((w) => !w.tools || w.tools.includes(tool))) return undefined;
  const own = narrowing?.tools;
  const byPolicy = result.workspaces
    .filter((w) => toolsIn(deps.tools, w.scopes, own, undefined)?.includes(tool) ?? true)
    .map((w) => w.id);
  return {
    outcome: 'tool_not_allowed',
    key_id: result.key_id,
    kind: result.kind,
    // A name no tool can have is never repeated: the sentence reaches a JSON template as is.
    tool: TOOL_NAME.test(tool) ? tool : 'a tool of that name',
    by: byPolicy.length > 0 ? 'policy' : 'credential',
    tools: result.tools ?? [],
    workspace_ids: byPolicy,
  };
}

/** The outcome a verification answers once its call's tool is checked. */
export const checkedResult = (
  verifier: VerifierState,
  verified: Verified,
  call: McpCall | undefined,
): VerifyResult => toolRefusal(verifier, verified, call) ?? verified.result;
