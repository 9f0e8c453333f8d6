import { oauthHandler } from '#lib/handlers/oauth';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/oauth.ts. */
const runtime = getRuntime();
export const handler = oauthHandler(() => runtime.oauth);
