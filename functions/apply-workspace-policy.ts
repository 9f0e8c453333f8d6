import { applyWorkspacePolicyHandler } from '#lib/handlers/apply-workspace-policy';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/apply-workspace-policy.ts. */
export const handler = applyWorkspacePolicyHandler(getRuntime());
