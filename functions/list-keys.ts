import route from '#lib/routes/list-keys';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/list-keys.ts. */
export const handler = routeHandler(route, getRuntime());
