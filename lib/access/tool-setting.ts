import { SCOPES, type Scope } from './scopes.ts';
import { REFERENCE_TOOLS, TOOL_NAME, type ToolCatalogue } from './tools.ts';

/**
 * The `mcpTools` setting (contract §19): the catalogue of the MCP server the key authorizer
 * guards, checked where every setting is (at synth, and at cold start and in local mode from
 * `MCP_TOOLS`), every problem listed with where it is.
 */

/** At most this many tools: a credential's list and a policy's are bounded by it. */
export const MAX_TOOLS = 100;

const FIELDS = new Set(['name', 'scope', 'title', 'destructive']);

function entryProblems(entry: unknown, at: string): string[] {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return [`${at} must be an object { name, scope, title?, destructive? }`];
  const tool = entry as Record<string, unknown>;
  const problems = Object.keys(tool)
    .filter((field) => !FIELDS.has(field))
    .map((field) => `${at}.${field} is not a field of a tool`);
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
    problems.push(`${at}.name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)`);
  if (!SCOPES.includes(tool.scope as Scope)) problems.push(`${at}.scope must be one of ${SCOPES.join(', ')}`);
  if (
    tool.title !== undefined &&
    (typeof tool.title !== 'string' || tool.title.length === 0 || tool.title.length > 100)
  )
    problems.push(`${at}.title must be text of 1-100 characters`);
  if (tool.destructive !== undefined && typeof tool.destructive !== 'boolean')
    problems.push(`${at}.destructive must be true or false`);
  return problems;
}

/** Every problem of an `mcpTools` value; none when it is a catalogue. */
export function toolCatalogueProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return ['must be a list of { name, scope, title?, destructive? }'];
  if (value.length === 0) return ['must name at least one tool'];
  if (value.length > MAX_TOOLS) return [`must name at most ${MAX_TOOLS} tools`];
  const problems = value.flatMap((entry, i) => entryProblems(entry, `[${i}]`));
  const names = value.map((entry) => (entry as { name?: unknown } | null)?.name);
  names.forEach((name, i) => {
    if (typeof name === 'string' && names.indexOf(name) !== i)
      problems.push(`[${i}].name ${name} is named twice`);
  });
  return problems;
}

/** `MCP_TOOLS` (JSON) as a catalogue; absent, the reference server's. Throws naming every problem. */
export function parseToolCatalogue(json: string | undefined): ToolCatalogue {
  if (json === undefined) return REFERENCE_TOOLS;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('MCP_TOOLS: must be JSON');
  }
  const problems = toolCatalogueProblems(value);
  if (problems.length > 0)
    throw new Error(problems.map((p) => `MCP_TOOLS${p.startsWith('[') ? '' : ': '}${p}`).join('; '));
  return value as ToolCatalogue;
}
