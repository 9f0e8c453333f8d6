import route from '#lib/routes/list-workspace-keys';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/list-workspace-keys.ts. */
export const handler = routeHandler(route, getRuntime());
