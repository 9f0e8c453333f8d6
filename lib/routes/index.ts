import approveOAuthRequest from './approve-oauth-request.ts';
import createKey from './create-key.ts';
import cutOffKey from './cut-off-key.ts';
import denyOAuthRequest from './deny-oauth-request.ts';
import getKeyUsage from './get-key-usage.ts';
import getOAuthRequest from './get-oauth-request.ts';
import getWorkspacePolicy from './get-workspace-policy.ts';
import getWorkspaceUsage from './get-workspace-usage.ts';
import githubSecretScanning from './github-secret-scanning.ts';
import listEvents from './list-events.ts';
import listKeys from './list-keys.ts';
import listMcpTools from './list-mcp-tools.ts';
import listWorkspaceEvents from './list-workspace-events.ts';
import listWorkspaceKeys from './list-workspace-keys.ts';
import { MCP_ROUTE } from './mcp.ts';
import putWorkspacePolicy from './put-workspace-policy.ts';
import reportLeakedKeys from './report-leaked-keys.ts';
import revokeKey from './revoke-key.ts';
import rotateKey from './rotate-key.ts';
import type { RouteAuth, RouteModule, SuppliedDependencies } from './route-module.ts';
import updateKey from './update-key.ts';

/**
 * The management API: one module per endpoint. The OpenAPI document, `makeHandlers`, the CDK
 * functions, routes and grants, the local gateway and the docs' endpoint table all derive from
 * this list; adding an endpoint is adding its module here (docs/architecture.md).
 */
export const MANAGEMENT_ROUTES = [
  createKey,
  listKeys,
  rotateKey,
  revokeKey,
  updateKey,
  listMcpTools,
  listEvents,
  getKeyUsage,
  listWorkspaceKeys,
  cutOffKey,
  getWorkspacePolicy,
  putWorkspacePolicy,
  listWorkspaceEvents,
  getWorkspaceUsage,
  reportLeakedKeys,
  githubSecretScanning,
  getOAuthRequest,
  approveOAuthRequest,
  denyOAuthRequest,
] as const satisfies readonly RouteModule[];

/** The management routes' function names. */
export type RouteName = (typeof MANAGEMENT_ROUTES)[number]['name'];

/**
 * What the routes build for themselves, by the names they give them (`githubKeys`): whoever builds
 * the handlers may supply any of them instead (local mode, tests).
 */
export type RouteDependencies = SuppliedDependencies<(typeof MANAGEMENT_ROUTES)[number]>;

export { MCP_ROUTE };

/** The REST API's stage: a deployment's MCP URL is `<invoke URL>/v1/mcp` (or a custom domain's /mcp). */
export const REST_STAGE = 'v1';

/** One method on one path, as API Gateway routes it. */
export interface ApiRoute {
  /** The HTTP API (management, JWT authorizer) or the REST API of the MCP endpoint (key authorizer). */
  api: 'http' | 'rest';
  /** The HTTP method API Gateway routes on. */
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path template, with `{name}` parameters, as API Gateway writes it. */
  path: string;
  /** The function that serves it (its file in functions/). */
  handler: RouteName | typeof MCP_ROUTE.name;
  /** `jwt`: the user JWT authorizer; `mcp-key`: the key Lambda authorizer; `none`: anyone. */
  auth: 'jwt' | 'mcp-key' | 'none';
  /** The management route's module; absent on the MCP endpoint. */
  module?: RouteModule;
}

/** What the gateway checks: step-up is the function's, a signature is the function's. */
const gatewayAuth = (auth: RouteAuth): ApiRoute['auth'] =>
  auth === 'jwt' || auth === 'step-up' ? 'jwt' : 'none';

/** Every route of both APIs, one entry per method. */
export const ROUTES: readonly ApiRoute[] = [
  ...MANAGEMENT_ROUTES.map((module) => ({
    api: 'http' as const,
    method: module.method,
    path: module.path,
    handler: module.name,
    auth: gatewayAuth(module.auth),
    module,
  })),
  ...MCP_ROUTE.methods.map((method) => ({
    api: 'rest' as const,
    method,
    path: MCP_ROUTE.path,
    handler: MCP_ROUTE.name,
    auth: MCP_ROUTE.auth,
  })),
];

/** The routes one API serves. */
export const routesOf = (api: 'http' | 'rest'): ApiRoute[] => ROUTES.filter((route) => route.api === api);

export const routeKey = (route: Pick<ApiRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;
