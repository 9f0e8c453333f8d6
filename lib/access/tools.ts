import { expandScopes, type Scope } from './scopes.ts';

/**
 * The tools of an MCP server and what a credential may call (contract §19), written once: the
 * catalogue (each tool and the scope it needs), what a workspace's policy leaves a credential
 * there, and the sentence of a refusal. Pure: the verifier, create, consent, the policy fan-out
 * and the reference server all ask it.
 */

/** One tool of the catalogue: its name, the scope a call needs, and whether it destroys data. */
export interface McpTool {
  /** The tool's MCP name, what `tools/call` and `Mcp-Name` carry. */
  name: string;
  /** The scope a credential needs in a workspace to call the tool there. */
  scope: Scope;
  /** A title for people; the name when absent. */
  title?: string;
  /** The deployment's statement that the tool destroys data (never the server's hint). */
  destructive?: boolean;
}

/** The tools of one MCP server, in the order people see them. */
export type ToolCatalogue = readonly McpTool[];

/** The reference server's catalogue (contract §19), which follows the seed's operations. */
export const REFERENCE_TOOLS: ToolCatalogue = [
  { name: 'list_workspaces', scope: 'svc.forms.read', title: 'List workspaces' },
  { name: 'list_forms', scope: 'svc.forms.read', title: 'List forms' },
  { name: 'read_draft', scope: 'svc.forms.read', title: 'Read a draft' },
  { name: 'compile_dsl', scope: 'svc.forms.read', title: 'Compile form DSL' },
  { name: 'validate_definition', scope: 'svc.forms.read', title: 'Validate a form definition' },
  { name: 'create_form', scope: 'svc.forms.write', title: 'Create a form' },
  { name: 'replace_draft', scope: 'svc.forms.write', title: 'Replace a draft', destructive: true },
  { name: 'generate_form_preview', scope: 'svc.forms.generate', title: 'Generate a form preview' },
];

/** What a tool's name may be: MCP's tool name characters, at most 64. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * What a workspace's policy leaves a credential in that workspace (contract §19), written onto
 * the credential at create and by the policy fan-out, so a verification reads it with the key:
 * the tools the policy allows (`allowed_tools`) and, for a credential the policy narrows rather
 * than cuts off, the scopes it allows. Absent fields restrict nothing.
 */
export interface WorkspaceRules {
  tools?: string[];
  scopes?: Scope[];
  /** The policy's `max_calls_per_minute`: a cap on the credential's calls (contract §19). */
  per_minute?: number;
  /** The policy's `max_calls_per_day`. */
  per_day?: number;
}

/** Every credential's rules, by workspace; a workspace without rules is absent. */
export type RulesByWorkspace = Record<string, WorkspaceRules>;

/** The catalogue's tools a credential holding `scopes` (implied ones added) may call, in catalogue order. */
export function toolsOfScopes(catalogue: ToolCatalogue, scopes: readonly Scope[]): string[] {
  const held = expandScopes(scopes);
  return catalogue.filter((t) => held.includes(t.scope)).map((t) => t.name);
}

/**
 * The tools a credential may call in one workspace: with a catalogue, the catalogue's tools its
 * scopes there allow, within its own list and the policy's; without one (another team's server
 * that gave none), the names its own list and the policy allow, or null when neither restricts.
 */
export function toolsIn(
  catalogue: ToolCatalogue | undefined,
  scopes: readonly Scope[],
  own: readonly string[] | null | undefined,
  rules: WorkspaceRules | undefined,
): string[] | null {
  const allowed = (name: string) => (own ?? [name]).includes(name) && (rules?.tools ?? [name]).includes(name);
  if (catalogue) return toolsOfScopes(catalogue, scopes).filter(allowed);
  if (!own && !rules?.tools) return null;
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent, past the line above either `own` or `rules.tools` is set
  return (own ?? rules?.tools ?? []).filter(allowed);
}

/** Why a credential's own list is refused at create, consent or PATCH: one message per tool, empty when none. */
export function toolListProblems(
  catalogue: ToolCatalogue,
  tools: readonly string[],
  scopes: readonly Scope[],
): { index: number; message: string }[] {
  const reachable = toolsOfScopes(catalogue, scopes);
  const problems: { index: number; message: string }[] = [];
  tools.forEach((name, index) => {
    const tool = catalogue.find((t) => t.name === name);
    if (!tool) problems.push({ index, message: `${name} is not a tool of this MCP server` });
    else if (!reachable.includes(name))
      problems.push({ index, message: `${name} needs ${tool.scope}, which the credential does not hold` });
    else if (tools.indexOf(name) !== index) problems.push({ index, message: `${name} is listed twice` });
  });
  return problems;
}

/** A credential's own list in catalogue order; null (every tool its scopes allow) stays null. */
export const inCatalogueOrder = (catalogue: ToolCatalogue, tools: readonly string[] | null | undefined) =>
  tools ? catalogue.map((t) => t.name).filter((name) => tools.includes(name)) : null;

/** The tools of a catalogue that write or destroy: those a least-privilege review looks at first. */
export const riskyTools = (catalogue: ToolCatalogue): string[] =>
  catalogue.filter((t) => t.destructive || t.scope !== 'svc.forms.read').map((t) => t.name);

/** Who refused a tool, and what the credential may call: what the sentence of a refusal names. */
export interface ToolDenial {
  tool: string;
  /** An API key, or an app's OAuth access token. */
  kind: 'api_key' | 'oauth';
  by: 'credential' | 'policy';
  /** What the credential may call. */
  tools: readonly string[];
  /** For a policy's refusal: the workspaces whose policies leave the tool out. */
  workspace_ids: readonly string[];
}

const listed = (names: readonly string[]) => names.join(', ');

/**
 * The sentence a person reads when a tool is refused (contract §19): a key's ("Its owner can
 * create a key for it."), an app's ("Sign in to it again and allow it.") or a policy's. Never a
 * quote or a backslash: a REST API's gateway response carries it in a JSON template as is.
 */
export function toolSentence(denial: ToolDenial): string {
  if (denial.by === 'policy') {
    const [first, ...more] = denial.workspace_ids;
    return more.length === 0
      ? `Workspace ${first} does not allow ${denial.tool} for AI clients.`
      : `Workspaces ${listed(denial.workspace_ids)} do not allow ${denial.tool} for AI clients.`;
  }
  const its = denial.tools.length > 0 ? `its tools are ${listed(denial.tools)}` : 'it may call no tool';
  return denial.kind === 'api_key'
    ? `This key may not call ${denial.tool}: ${its}. Its owner can create a key for it.`
    : `This app may not call ${denial.tool}: ${its}. Sign in to it again and allow it.`;
}

/** Whether any workspace's policy restricts the credential. */
export const hasRules = (rules: RulesByWorkspace): boolean => Object.keys(rules).length > 0;

/** Whether two workspaces' rules restrict alike, whatever the order of their fields (as stored and read back). */
export function sameRules(a: WorkspaceRules | undefined, b: WorkspaceRules | undefined): boolean {
  const fields = ['tools', 'scopes', 'per_minute', 'per_day'] as const;
  return fields.every((f) => JSON.stringify(a?.[f] ?? null) === JSON.stringify(b?.[f] ?? null));
}
