import { expirySweepHandler } from '#lib/handlers/expiry-sweep';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/expiry-sweep.ts. */
export const handler = expirySweepHandler(getRuntime());
