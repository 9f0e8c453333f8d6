import { cutOffKeyHandler } from '#lib/handlers/cut-off-key';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/cut-off-key.ts. */
export const handler = cutOffKeyHandler(getRuntime());
