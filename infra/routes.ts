/**
 * The HTTP routes of the service, declared once: the CDK stateless stack and the local
 * API Gateway emulation both build from this list.
 */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** File in functions/ (without .ts) that serves the route. */
  handler: 'create-key' | 'list-keys' | 'rotate-key' | 'revoke-key' | 'list-events' | 'mcp-server';
  /** `jwt`: the user JWT authorizer; `mcp-key`: the key Lambda authorizer. */
  auth: 'jwt' | 'mcp-key';
}

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'POST', path: '/v1/mcp/api-keys', handler: 'create-key', auth: 'jwt' },
  { method: 'GET', path: '/v1/mcp/api-keys', handler: 'list-keys', auth: 'jwt' },
  { method: 'POST', path: '/v1/mcp/api-keys/{key_id}/rotate', handler: 'rotate-key', auth: 'jwt' },
  { method: 'DELETE', path: '/v1/mcp/api-keys/{key_id}', handler: 'revoke-key', auth: 'jwt' },
  { method: 'GET', path: '/v1/mcp/api-keys/{key_id}/events', handler: 'list-events', auth: 'jwt' },
  { method: 'POST', path: '/mcp', handler: 'mcp-server', auth: 'mcp-key' },
];

export const routeKey = (route: RouteDefinition): string => `${route.method} ${route.path}`;
