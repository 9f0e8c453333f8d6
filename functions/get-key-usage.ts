import route from '#lib/routes/get-key-usage';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/get-key-usage.ts. */
export const handler = routeHandler(route, getRuntime());
