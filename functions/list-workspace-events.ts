import { listWorkspaceEventsHandler } from '#lib/handlers/list-workspace-events';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/list-workspace-events.ts. */
export const handler = listWorkspaceEventsHandler(getRuntime());
