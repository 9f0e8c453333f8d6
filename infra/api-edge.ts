import { REST_GATEWAY_RESPONSES } from '#lib/mcp/gateway-responses';
import { REGISTRATION_PATH } from '#lib/mcp/registration';
import { MCP_ROUTE, REST_STAGE, ROUTES, routeKey, routesOf } from '#lib/routes/index';
import { type OAuthApiRoute, oauthApiRoutes } from '#lib/routes/oauth/index';

/**
 * The edge of the API, described once: what the CDK stacks deploy and what local mode emulates
 * (infra/local/emulation/). Local mode owns no rule of its own; a change here changes both.
 */

export { REST_GATEWAY_RESPONSES, REST_STAGE, ROUTES, routeKey, routesOf };

/**
 * The HTTP API's CORS configuration (contract §8), used when origins are configured. The
 * expose list makes the Location, the request id, Retry-After and the RFC 9470 challenge
 * readable by a dashboard.
 */
export const CORS = {
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: ['authorization', 'content-type'],
  exposeHeaders: ['location', 'x-request-id', 'retry-after', 'www-authenticate', 'apigw-requestid'],
  maxAgeSeconds: 3600,
} as const;

/** The request id header API Gateway's HTTP API puts on every response, its own 401s included. */
export const GATEWAY_REQUEST_ID_HEADER = 'apigw-requestid';

/** The HTTP API's JWT authorizer's refusal: a missing, invalid or expired user token. */
export const HTTP_API_UNAUTHORIZED = { status: 401, body: { message: 'Unauthorized' } } as const;

/**
 * What is special about `/mcp`: it is on the REST API (stage `REST_STAGE`) behind the key
 * authorizer, not on the HTTP API; that API has no CORS configuration (the MCP function applies
 * its own Origin rule), and every refusal before the function is one of `REST_GATEWAY_RESPONSES`
 * (its 401 included).
 */
export const MCP_EDGE = {
  path: MCP_ROUTE.path,
  /**
   * The OAuth registration fallback (RFC 7591) clients try at the origin's root after a 401: the
   * REST API answers it with a sentence naming the keys page, where it serves the root (local
   * mode; a custom domain, through `McpKeyAuthorizer`'s `keysPageUrl` option).
   */
  registrationPath: REGISTRATION_PATH,
  cors: false,
  unauthorized: REST_GATEWAY_RESPONSES.UNAUTHORIZED,
} as const;

/** Whether a path belongs to the REST API (every method on it is answered there). */
export const servedByRestApi = (path: string): boolean =>
  path === MCP_EDGE.registrationPath || routesOf('rest').some((r) => r.path === path);

/** One route of the OAuth API: a method on a path of the OAuth function, and its own throttle. */
export type OAuthRoute = OAuthApiRoute;

/** An OAuth route as API Gateway keys it (`POST /oauth/token`). */
export const oauthRouteKey = (route: OAuthRoute): string => `${route.method} ${route.path}`;

/**
 * The OAuth protocol's routes (contract §15), derived from its route modules
 * (lib/routes/oauth/), all to the OAuth function, none with an authorizer, on an HTTP API of their
 * own: browser-based clients call them from any origin, and an HTTP API with a CORS configuration
 * (the management API's, for the dashboard) answers every preflight itself with its own origins
 * and drops the function's CORS headers. So this API has none, and the function answers CORS (any
 * origin, no credentials), its preflights included. The consent API stays on the management API
 * (it takes the user's JWT); the Protected Resource Metadata and the registration fallback are the
 * MCP endpoint's (`McpKeyAuthorizer`'s `oauth`).
 */
export const OAUTH_ROUTES: readonly OAuthRoute[] = oauthApiRoutes('oauth-api');
