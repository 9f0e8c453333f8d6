import route from '#lib/routes/get-oauth-request';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/get-oauth-request.ts. */
export const handler = routeHandler(route, getRuntime());
