import route from '#lib/routes/cut-off-key';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/cut-off-key.ts. */
export const handler = routeHandler(route, getRuntime());
