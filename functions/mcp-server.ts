import { parseMcpServerConfig } from '#lib/config';
import { mcpServerHandler } from '#lib/handlers/mcp-server';

/** Lambda entry point; see lib/handlers/mcp-server.ts. */
export const handler = mcpServerHandler(parseMcpServerConfig(process.env));
