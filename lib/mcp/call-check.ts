import { REFERENCE_TOOLS, TOOL_NAME } from '#lib/access/tools';
import { jsonRpcError, MCP_ERROR_CODES, type McpAnswer } from './answer.ts';
import type { McpCaller } from './caller.ts';
import { mcpDenial } from './denial.ts';
import { callableTools } from './tool-access.ts';

/**
 * What the reference server checks of a request before the SDK reads it (contract §19), in every
 * protocol era: the key authorizer trusted the `Mcp-Method` and `Mcp-Name` headers (SEP-2243),
 * so a header that disagrees with the body is refused (400, JSON-RPC -32020); and the body's
 * tool is checked against the credential, since an older client sends no `Mcp-Name` and the
 * authorizer then saw no tool.
 */

/** A JSON-RPC message of the body, as far as these checks read it. */
interface Message {
  method?: unknown;
  params?: unknown;
}

const messagesOf = (body: unknown): Message[] =>
  (Array.isArray(body) ? body : [body]).filter(
    (m): m is Message => typeof m === 'object' && m !== null && !Array.isArray(m),
  );

/** The tool a `tools/call` names, when it names one as a string. */
const toolOf = (message: Message): string | undefined => {
  const name = (message.params as { name?: unknown } | null | undefined)?.name;
  return message.method === 'tools/call' && typeof name === 'string' ? name : undefined;
};

/** A header value in SEP-2243's Base64 form (`=?base64?…?=`) decoded; any other value as sent. */
function decoded(header: string): string {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(header);
  return sentinel ? Buffer.from(sentinel[1] as string, 'base64').toString('utf8') : header;
}

/** A method as a sentence may show it: what MCP's method names look like, else no echo. */
const shownMethod = (method: unknown) =>
  typeof method === 'string' && /^[A-Za-z0-9_/.-]{1,64}$/.test(method)
    ? method
    : 'a method that is not MCP’s';
/** A tool name as a sentence may show it (contract §19): never a name no tool can have. */
const shownName = (name: string | undefined) =>
  name === undefined ? 'no tool' : TOOL_NAME.test(name) ? name : 'a name that is not a tool’s';

const mismatch = (disagreement: string): McpAnswer =>
  jsonRpcError(
    400,
    MCP_ERROR_CODES.headerMismatch,
    `Bad Request: the request headers and body disagree: ${disagreement}; send headers that repeat the body (SEP-2243).`,
  );

/**
 * The 400 for an `Mcp-Method` header that is not the body's method, or an `Mcp-Name` header that
 * is not the tool the body's `tools/call` names; undefined when the headers agree or are absent.
 */
export function headerMismatch(headers: Headers, body: unknown): McpAnswer | undefined {
  const method = headers.get('mcp-method');
  const name = headers.get('mcp-name');
  for (const message of messagesOf(body)) {
    if (method !== null && message.method !== undefined && message.method !== method)
      return mismatch(
        `the Mcp-Method header names ${shownMethod(method)} but the body’s method is ${shownMethod(message.method)}`,
      );
    if (name === null || message.method !== 'tools/call') continue;
    const tool = toolOf(message);
    const named = decoded(name);
    if (tool !== named)
      return mismatch(`the Mcp-Name header names ${shownName(named)} but the body calls ${shownName(tool)}`);
  }
  return undefined;
}

/**
 * The workspaces whose policies leave out a tool the credential's own list and scopes there allow:
 * a refusal of theirs is the policy's sentence, as the authorizer says it from `Mcp-Name`.
 */
function refusingPolicies(caller: McpCaller, tool: string): string[] {
  const scope = REFERENCE_TOOLS.find((t) => t.name === tool)?.scope;
  if (!scope || (caller.ownTools && !caller.ownTools.includes(tool))) return [];
  return caller.workspaces
    .filter((w) => w.scopes.includes(scope) && w.tools && !w.tools.includes(tool))
    .map((w) => w.id);
}

/**
 * The 403 the key authorizer answers (contract §19) for a `tools/call` whose tool the credential
 * may call in no workspace, read from the body; undefined when every call's tool is callable.
 */
export function toolRefusal(caller: McpCaller, body: unknown): McpAnswer | undefined {
  const callable = callableTools(caller);
  for (const message of messagesOf(body)) {
    const tool = toolOf(message);
    if (tool === undefined || callable.includes(tool)) continue;
    const byPolicy = refusingPolicies(caller, tool);
    return mcpDenial({
      outcome: 'tool_not_allowed',
      key_id: caller.keyId,
      kind: caller.kind ?? 'api_key',
      // A name no tool can have is never repeated, as the authorizer does.
      tool: TOOL_NAME.test(tool) ? tool : 'a tool of that name',
      by: byPolicy.length > 0 ? 'policy' : 'credential',
      tools: callable,
      workspace_ids: byPolicy,
    });
  }
  return undefined;
}
