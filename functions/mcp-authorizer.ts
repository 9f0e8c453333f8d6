import { endUsageOnShutdown, mcpAuthorizerHandler } from '#lib/handlers/mcp-authorizer';
import { getVerifierRuntime } from '#lib/verifier-runtime';

// The verifier alone (lib/verifier-runtime.ts): the authorizer's bundle holds nothing else.
const runtime = getVerifierRuntime();
await endUsageOnShutdown(runtime);

/** Lambda entry point; see lib/handlers/mcp-authorizer.ts. */
export const handler = mcpAuthorizerHandler(runtime);
