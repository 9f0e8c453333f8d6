import { routeHandler } from '#lib/routes/route-module';
import route from '#lib/routes/update-key';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/update-key.ts. */
export const handler = routeHandler(route, getRuntime());
