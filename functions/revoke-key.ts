import { revokeKeyHandler } from '#lib/handlers/revoke-key';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/revoke-key.ts. */
export const handler = revokeKeyHandler(getRuntime());
