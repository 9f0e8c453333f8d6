import { listKeysHandler } from '#lib/handlers/list-keys';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/list-keys.ts. */
export const handler = listKeysHandler(getRuntime());
