import { MANAGEMENT_ROUTES, type RouteDependencies, type RouteName } from '#lib/routes/index';
import { mcpServerHandler } from '#lib/routes/mcp';
import { routeHandler } from '#lib/routes/route-module';
import type { Runtime } from '#lib/runtime';
import { applyWorkspacePolicyHandler } from './apply-workspace-policy.ts';
import { expirySweepHandler } from './expiry-sweep.ts';
import { mcpAuthorizerHandler } from './mcp-authorizer.ts';
import { oauthHandler } from './oauth.ts';

/**
 * Every Lambda handler of the service built from one runtime, keyed by its file in functions/:
 * one per route module, then the key authorizer, the MCP endpoint, the expiry sweep and the
 * workspace policy fan-out. The local service and the tests build handlers here, supplying any of
 * the routes' dependencies they replace (`dependencies`); each Lambda entry point builds only its
 * own. The event publisher (publish-events) needs a sink rather than a runtime and is built from
 * `publishEventsHandler`.
 */
export function makeHandlers(runtime: Runtime, dependencies: RouteDependencies = {}) {
  const routes = Object.fromEntries(
    MANAGEMENT_ROUTES.map((module) => [module.name, routeHandler(module, runtime, dependencies)]),
  ) as Record<RouteName, ReturnType<typeof routeHandler>>;
  return {
    ...routes,
    'mcp-authorizer': mcpAuthorizerHandler(runtime),
    'mcp-server': mcpServerHandler({ allowedOrigins: runtime.config.mcpAllowedOrigins }),
    'expiry-sweep': expirySweepHandler(runtime),
    'apply-workspace-policy': applyWorkspacePolicyHandler(runtime),
    oauth: oauthHandler(() => runtime.oauth),
  };
}

export type Handlers = ReturnType<typeof makeHandlers>;
export type HandlerName = keyof Handlers;
