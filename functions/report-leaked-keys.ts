import { reportLeakedKeysHandler } from '#lib/handlers/report-leaked-keys';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/report-leaked-keys.ts. */
export const handler = reportLeakedKeysHandler(getRuntime());
