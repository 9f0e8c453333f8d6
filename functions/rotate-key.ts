import route from '#lib/routes/rotate-key';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/rotate-key.ts. */
export const handler = routeHandler(route, getRuntime());
