import route from '#lib/routes/deny-oauth-request';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/deny-oauth-request.ts. */
export const handler = routeHandler(route, getRuntime());
