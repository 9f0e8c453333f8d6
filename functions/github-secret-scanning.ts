import route from '#lib/routes/github-secret-scanning';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/github-secret-scanning.ts. */
export const handler = routeHandler(route, getRuntime());
