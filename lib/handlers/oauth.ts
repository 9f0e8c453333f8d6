import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { OAuthDeps } from '#lib/oauth/deps';
import { oauthRoutesAt } from '#lib/routes/oauth/index';
import type { OAuthRouteModule } from '#lib/routes/oauth/oauth-route';
import {
  METHOD_NOT_ALLOWED,
  NOT_FOUND,
  type OAuthResult,
  oauthRouteHandler,
  PREFLIGHT,
} from '#lib/routes/oauth/oauth-stack';

export type { OAuthResult } from '#lib/routes/oauth/oauth-stack';

/**
 * The OAuth protocol function (API Gateway HTTP API, payload 2.0): the route module that answers
 * the method and path, each in the OAuth stack (lib/http/oauth-stack.ts); a preflight of a path
 * whose route takes one, 405 for another method of a known path, 404 for any other path or when
 * OAuth is off.
 */
export function oauthHandler(deps: () => OAuthDeps | undefined) {
  const handlers = new Map<OAuthRouteModule, ReturnType<typeof oauthRouteHandler>>();
  return async (event: APIGatewayProxyEventV2, context?: Context): Promise<OAuthResult> => {
    const oauth = deps();
    if (!oauth) return NOT_FOUND;
    const method = event.requestContext.http.method;
    const modules = oauthRoutesAt(event.rawPath);
    if (modules.length === 0) return NOT_FOUND;
    if (method === 'OPTIONS') return PREFLIGHT;
    const module = modules.find((m) => m.method === method);
    if (!module) return METHOD_NOT_ALLOWED;
    let handler = handlers.get(module);
    if (!handler) {
      handler = oauthRouteHandler(module, oauth);
      handlers.set(module, handler);
    }
    return handler(event, context ?? ({} as Context));
  };
}
