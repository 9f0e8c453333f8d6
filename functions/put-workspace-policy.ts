import { putWorkspacePolicyHandler } from '#lib/handlers/put-workspace-policy';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/put-workspace-policy.ts. */
export const handler = putWorkspacePolicyHandler(getRuntime());
