import { getWorkspacePolicyHandler } from '#lib/handlers/get-workspace-policy';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/get-workspace-policy.ts. */
export const handler = getWorkspacePolicyHandler(getRuntime());
