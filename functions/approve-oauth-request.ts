import route from '#lib/routes/approve-oauth-request';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/approve-oauth-request.ts. */
export const handler = routeHandler(route, getRuntime());
