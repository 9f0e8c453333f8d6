import { createKeyHandler } from '#lib/handlers/create-key';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/create-key.ts. */
export const handler = createKeyHandler(getRuntime());
