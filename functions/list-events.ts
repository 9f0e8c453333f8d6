import { listEventsHandler } from '#lib/handlers/list-events';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/list-events.ts. */
export const handler = listEventsHandler(getRuntime());
