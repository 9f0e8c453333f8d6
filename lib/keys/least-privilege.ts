import { expandScopes } from '#lib/access/scopes';
import { riskyTools, type ToolCatalogue, toolsIn } from '#lib/access/tools';
import { OTHER_TOOL, type Tally } from '#lib/usage/model';
import type { KeyRecord } from './model.ts';

/**
 * Least privilege from usage (contract §19): what a credential may call, what it called in 30
 * days, and how many of its calls named no tool we could read, so a person restricts it only to
 * what it uses and only when every call's tool is known.
 */

/** Days of usage a least-privilege suggestion looks at. */
export const LEAST_PRIVILEGE_DAYS = 30;

type Held = Pick<KeyRecord, 'scopes' | 'tools' | 'workspace_rules' | 'workspace_ids'>;

/** The tools a credential may call in one of its workspaces, by its scopes, own list and the workspace's policy (roles aside). */
export const toolsInWorkspace = (catalogue: ToolCatalogue, record: Held, workspaceId: string): string[] => {
  const rules = record.workspace_rules?.[workspaceId];
  const scopes = expandScopes(record.scopes).filter((s) => !rules?.scopes || rules.scopes.includes(s));
  // Stryker disable next-line ArrayDeclaration: equivalent, with a catalogue toolsIn answers a list, never null
  return toolsIn(catalogue, scopes, record.tools, rules) ?? [];
};

/** The tools a credential may call in at least one workspace, in catalogue order. */
export function toolsOfCredential(catalogue: ToolCatalogue, record: Held): string[] {
  const names = new Set(record.workspace_ids.flatMap((id) => toolsInWorkspace(catalogue, record, id)));
  return catalogue.map((t) => t.name).filter((name) => names.has(name));
}

/** Calls of the tally whose tool is unknown: no method sent, or a `tools/call` without a usable name. */
export const callsWithUnknownTool = (tally: Tally): number =>
  (tally.unnamed ?? 0) + (tally.tools[OTHER_TOOL] ?? 0);

/** A credential's view of its least privilege over the tally of its last 30 days. */
export function leastPrivilege(catalogue: ToolCatalogue, record: Held, last30Days: Tally) {
  const tools = toolsOfCredential(catalogue, record);
  return {
    tools,
    tools_used_30d: tools.filter((t) => (last30Days.tools[t] ?? 0) > 0),
    calls_tool_unknown_30d: callsWithUnknownTool(last30Days),
  };
}

/** The write or destructive tools a credential may call in a workspace and did not call in the tally's range. */
export const unusedRiskyTools = (
  catalogue: ToolCatalogue,
  record: Held,
  workspaceId: string,
  tally: Tally,
) => {
  const risky = riskyTools(catalogue);
  return toolsInWorkspace(catalogue, record, workspaceId).filter(
    (t) => risky.includes(t) && (tally.tools[t] ?? 0) === 0,
  );
};
