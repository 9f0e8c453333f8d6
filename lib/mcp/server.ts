import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import * as z from 'zod';
import { ROLES, SCOPES, type WorkspaceAccess } from '#lib/access/scopes';
import type { McpAuthContext } from './authorizer.ts';

const WorkspacesSchema = z.array(
  z.object({ id: z.string().min(1), role: z.enum(ROLES), scopes: z.array(z.enum(SCOPES)) }),
);

export interface McpCaller {
  userId: string;
  keyId: string;
  workspaces: WorkspaceAccess[];
}

/** The authorizer's context, or undefined when it is missing or not what the authorizer writes. */
export function accessFromContext(context: Partial<McpAuthContext> | undefined): McpCaller | undefined {
  if (!context?.user_id || !context.key_id || typeof context.workspaces !== 'string') return undefined;
  try {
    const workspaces = WorkspacesSchema.parse(JSON.parse(context.workspaces));
    return { userId: context.user_id, keyId: context.key_id, workspaces };
  } catch {
    return undefined;
  }
}

export const SERVER_INFO = { name: 'svc-mcp-reference', version: '1.0.0' };

/**
 * The SDK's server uses a JSON Schema validator for one thing: checking what a client answers
 * when the server asks it for input (elicitation). This server never asks, so a validator that
 * accepts nothing stands in for the default, an Ajv instance the SDK would build (and compile
 * its formats for) on every request: part of each cold start and each call (`npm run bench`).
 */
const NEVER_ELICITS: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'this server does not elicit input',
  }),
};

/** A fresh MCP server for one request, with the key's effective workspaces as its only data. */
export function buildMcpServer(workspaces: WorkspaceAccess[]): McpServer {
  const server = new McpServer(SERVER_INFO, { jsonSchemaValidator: NEVER_ELICITS });
  server.registerTool(
    'list_workspaces',
    {
      title: 'List workspaces',
      description: 'The workspaces this API key can reach, with the role and scopes it has in each.',
      inputSchema: {},
      outputSchema: {
        workspaces: z.array(
          z.object({ workspace_id: z.string(), role: z.enum(ROLES), scopes: z.array(z.enum(SCOPES)) }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const structured = {
        workspaces: workspaces.map((w) => ({ workspace_id: w.id, role: w.role, scopes: w.scopes })),
      };
      return {
        content: [{ type: 'text', text: JSON.stringify(structured.workspaces) }],
        structuredContent: structured,
      };
    },
  );
  return server;
}

/**
 * Serves one Streamable HTTP request statelessly in JSON response mode: a new server and
 * transport per request, as the SDK advises for stateless servers.
 */
export async function serveMcp(request: Request, workspaces: WorkspaceAccess[]): Promise<Response> {
  const server = buildMcpServer(workspaces);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request);
    // Read the body before closing, so the transport's stream is complete.
    const body = await response.arrayBuffer();
    return new Response(body.byteLength > 0 ? body : null, {
      status: response.status,
      headers: response.headers,
    });
  } finally {
    await server.close();
  }
}
