import route from '#lib/routes/put-workspace-policy';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/put-workspace-policy.ts. */
export const handler = routeHandler(route, getRuntime());
