import { listWorkspaceKeysHandler } from '#lib/handlers/list-workspace-keys';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/list-workspace-keys.ts. */
export const handler = listWorkspaceKeysHandler(getRuntime());
