import { rotateKeyHandler } from '#lib/handlers/rotate-key';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/rotate-key.ts. */
export const handler = rotateKeyHandler(getRuntime());
