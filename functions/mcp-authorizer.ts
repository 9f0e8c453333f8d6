import { mcpAuthorizerHandler } from '#lib/handlers/mcp-authorizer';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/mcp-authorizer.ts. */
export const handler = mcpAuthorizerHandler(getRuntime());
