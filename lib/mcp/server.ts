import {
  createMcpHandler,
  isLegacyRequest,
  type jsonSchemaValidator,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { toResponse } from './answer.ts';
import { headerMismatch, toolRefusal } from './call-check.ts';
import type { McpCaller } from './caller.ts';
import { registerReferenceTools } from './reference-tools.ts';

export { accessFromContext, type McpCaller } from './caller.ts';

export const SERVER_INFO = { name: 'svc-mcp-reference', version: '1.0.0' };

/**
 * The SDK's server uses a JSON Schema validator for one thing: checking what a client answers
 * when the server asks it for input (elicitation). This server never asks, so a validator that
 * accepts nothing stands in for the default, an Ajv instance the SDK would build (and compile
 * its formats for) on every request: part of each cold start and each call (`npm run bench`).
 */
// Stryker disable all: never called, this server never elicits input
const NEVER_ELICITS: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'this server does not elicit input',
  }),
};
// Stryker restore all

/**
 * A fresh MCP server for one request, with the caller's workspaces as its only data: the tools of
 * the catalogue it may call in at least one of them (contract §19). Its words fit both kinds of
 * credential: an API key, or an app's OAuth access token (its user never saw a key).
 */
export function buildMcpServer(caller: McpCaller): McpServer {
  const server = new McpServer(SERVER_INFO, { jsonSchemaValidator: NEVER_ELICITS });
  registerReferenceTools(server, caller);
  return server;
}

/** The largest MCP request body read (the REST API's limit is 10 MB; a tool call is a few hundred bytes). */
const MAX_MCP_BODY_BYTES = 1 << 20;

/** A caller that reaches nothing: what a request without one would be served as. */
const NOBODY: McpCaller = { userId: '', keyId: '', workspaces: [] };

/**
 * The 2026-07-28 handler, one per process: each request's server is built from the caller the
 * request carries (`authInfo.extra`), so the handler holds no caller's data between requests.
 * `auto` answers a single JSON body (the tool emits nothing before its result).
 */
let modern: ReturnType<typeof createMcpHandler> | undefined;
const modernHandler = () =>
  (modern ??= createMcpHandler(
    // Stryker disable next-line ObjectLiteral: never read, serveMcp always passes the caller
    ({ authInfo }) => buildMcpServer((authInfo?.extra?.caller as McpCaller | undefined) ?? NOBODY),
    { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: MAX_MCP_BODY_BYTES },
  ));

/**
 * Serves one Streamable HTTP request statelessly, answering JSON: a 2026-07-28 request
 * (`server/discover`, the per-request envelope) through the SDK's modern handler; a 2025-era
 * request (`initialize`, then calls) through a fresh server and transport in JSON response mode,
 * the stateless idiom of the SDK's legacy fallback. Both eras see one tool set from one factory.
 * Before either, in both eras: headers that disagree with the body, and a tool the caller may
 * call in no workspace, are refused as the key authorizer would (`call-check.ts`).
 */
export async function serveMcp(request: Request, caller: McpCaller): Promise<Response> {
  // Stryker disable next-line ConditionalExpression: equivalent in use, the one caller (lib/routes/mcp.ts) passes POST only: the transport rules answer every other method
  const body = request.method === 'POST' ? await request.text() : undefined;
  // The body is read here and handed to the SDK parsed, so its own size check never runs: the
  // limit is applied here, with the SDK's answer.
  if (body !== undefined && Buffer.byteLength(body) > MAX_MCP_BODY_BYTES) return tooLarge();
  // Stryker disable next-line ConditionalExpression: equivalent in use, a POST's body is always read (above)
  const copy = () => new Request(request, body === undefined ? {} : { body });
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, without a parsed body the SDK parses the request's own
  const parsed = body === undefined ? undefined : safeJson(body);
  const refused = headerMismatch(request.headers, parsed) ?? toolRefusal(caller, parsed);
  if (refused) return toResponse(refused);
  if (await isLegacyRequest(copy(), parsed, { maxRequestBodySize: MAX_MCP_BODY_BYTES }))
    return serveLegacy(copy(), caller);
  // Stryker disable next-line StringLiteral,ArrayDeclaration: equivalent, the server reads only `extra.caller`
  const authInfo = { token: '', clientId: '', scopes: [], extra: { caller } };
  return buffered(
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,ObjectLiteral: equivalent, without a parsed body the SDK parses the request's own
    await modernHandler().fetch(copy(), { authInfo, ...(parsed !== undefined && { parsedBody: parsed }) }),
  );
}

/** The SDK's answer to a body over the limit: 413 with JSON-RPC's server error. */
const tooLarge = () =>
  Response.json(
    {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: `Payload Too Large: Request body must not exceed ${MAX_MCP_BODY_BYTES} bytes`,
      },
    },
    { status: 413 },
  );

// Stryker disable BlockStatement: equivalent, without a parsed body the SDK parses the request's own (this saves a parse)
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
// Stryker restore BlockStatement

/** The response with its body read, so nothing is left streaming once the server closes. */
async function buffered(response: Response): Promise<Response> {
  const body = await response.arrayBuffer();
  return new Response(body.byteLength > 0 ? body : null, {
    status: response.status,
    headers: response.headers,
  });
}

async function serveLegacy(request: Request, caller: McpCaller): Promise<Response> {
  const server = buildMcpServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await buffered(await transport.handleRequest(request));
  } finally {
    await server.close();
  }
}
