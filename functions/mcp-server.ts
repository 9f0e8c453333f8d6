import { parseMcpServerConfig } from '#lib/config';
import { mcpServerHandler } from '#lib/routes/mcp';

/** Lambda entry point; see lib/routes/mcp.ts. */
export const handler = mcpServerHandler(parseMcpServerConfig());
