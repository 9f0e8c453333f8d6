import route from '#lib/routes/report-leaked-keys';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/report-leaked-keys.ts. */
export const handler = routeHandler(route, getRuntime());
