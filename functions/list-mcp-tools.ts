import route from '#lib/routes/list-mcp-tools';
import { routeHandler } from '#lib/routes/route-module';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; everything about the route is in lib/routes/list-mcp-tools.ts. */
export const handler = routeHandler(route, getRuntime());
