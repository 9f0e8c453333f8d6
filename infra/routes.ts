/**
 * The HTTP routes of the service, declared once: the CDK stateless stack and the local
 * API Gateway emulation both build from this list.
 */
export interface RouteDefinition {
  /**
   * The API Gateway API that serves the route: the HTTP API (management, JWT authorizer) or the
   * REST API of the MCP endpoint (key authorizer with contract §7 gateway responses).
   * @default 'http'
   */
  api?: 'http' | 'rest';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** File in functions/ (without .ts) that serves the route. */
  handler:
    | 'create-key'
    | 'list-keys'
    | 'rotate-key'
    | 'revoke-key'
    | 'list-events'
    | 'report-leaked-keys'
    | 'github-secret-scanning'
    | 'mcp-server'
    | 'list-workspace-keys'
    | 'cut-off-key'
    | 'list-workspace-events'
    | 'get-workspace-policy'
    | 'put-workspace-policy';
  /** `jwt`: the user JWT authorizer; `mcp-key`: the key Lambda authorizer; `none`: anyone (leak reports). */
  auth: 'jwt' | 'mcp-key' | 'none';
}

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'POST', path: '/v1/mcp/api-keys', handler: 'create-key', auth: 'jwt' },
  { method: 'GET', path: '/v1/mcp/api-keys', handler: 'list-keys', auth: 'jwt' },
  { method: 'POST', path: '/v1/mcp/api-keys/{key_id}/rotate', handler: 'rotate-key', auth: 'jwt' },
  { method: 'DELETE', path: '/v1/mcp/api-keys/{key_id}', handler: 'revoke-key', auth: 'jwt' },
  { method: 'GET', path: '/v1/mcp/api-keys/{key_id}/events', handler: 'list-events', auth: 'jwt' },
  // Workspace governance (contract §12): the caller's role in the workspace is checked by the handler.
  {
    method: 'GET',
    path: '/v1/mcp/workspaces/{workspace_id}/api-keys',
    handler: 'list-workspace-keys',
    auth: 'jwt',
  },
  {
    method: 'DELETE',
    path: '/v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}',
    handler: 'cut-off-key',
    auth: 'jwt',
  },
  {
    method: 'GET',
    path: '/v1/mcp/workspaces/{workspace_id}/events',
    handler: 'list-workspace-events',
    auth: 'jwt',
  },
  {
    method: 'GET',
    path: '/v1/mcp/workspaces/{workspace_id}/policy',
    handler: 'get-workspace-policy',
    auth: 'jwt',
  },
  {
    method: 'PUT',
    path: '/v1/mcp/workspaces/{workspace_id}/policy',
    handler: 'put-workspace-policy',
    auth: 'jwt',
  },
  // Possession of a key is the authority to kill it (contract §11); each route is throttled on its own.
  { method: 'POST', path: '/v1/mcp/leaked-keys', handler: 'report-leaked-keys', auth: 'none' },
  { method: 'POST', path: '/v1/mcp/secret-scanning/github', handler: 'github-secret-scanning', auth: 'none' },
  // GET and DELETE reach the function too, which answers 405 (no SSE stream, no sessions).
  { api: 'rest', method: 'POST', path: '/mcp', handler: 'mcp-server', auth: 'mcp-key' },
  { api: 'rest', method: 'GET', path: '/mcp', handler: 'mcp-server', auth: 'mcp-key' },
  { api: 'rest', method: 'DELETE', path: '/mcp', handler: 'mcp-server', auth: 'mcp-key' },
];

/** The REST API's stage: a deployment's MCP URL is `<invoke URL>/v1/mcp` (or a custom domain's /mcp). */
export const REST_STAGE = 'v1';

/** The routes one API serves. */
export const routesOf = (api: 'http' | 'rest'): RouteDefinition[] =>
  ROUTES.filter((route) => (route.api ?? 'http') === api);

export const routeKey = (route: RouteDefinition): string => `${route.method} ${route.path}`;
