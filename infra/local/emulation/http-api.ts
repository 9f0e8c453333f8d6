import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handlers } from '#lib/handlers/index';
import type { ApiRoute } from '#lib/routes/index';
import { HTTP_API_UNAUTHORIZED, routeKey, routesOf, servedByRestApi } from '../../api-edge.ts';
import { gatewayRequestId } from './guards.ts';
import { safeDecode, send, sendResult } from './http.ts';
import { httpApiEvent } from './http-api-event.ts';
import type { TokenVerifier } from './jwt-authorizer.ts';
import { lambdaContext } from './lambda-context.ts';
import { type RestApiOptions, restApiGateway } from './rest-api.ts';

function compile(route: ApiRoute) {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/**
 * The API Gateway HTTP API emulation: matches a route, checks the user JWT as API Gateway
 * would, builds the payload 2.0 event and invokes the handler. Paths of the REST API (/mcp) go
 * to its emulation (served at the origin's root, as a custom domain would: `keysPageUrl` turns
 * on its registration fallback). Answers false when no route matches.
 */
export function httpApiGateway(handlers: Handlers, verifier: TokenVerifier, options: RestApiOptions = {}) {
  const routes = routesOf('http').map(compile);
  const rest = restApiGateway(handlers, options);
  return async (req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> => {
    if (servedByRestApi(url.pathname)) {
      await rest.handle(req, res, url, body);
      return true;
    }
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const match = routes
      .filter((r) => r.route.method === method)
      .map((r) => ({ r, m: r.pattern.exec(path) }))
      .find((x) => x.m);
    if (!match?.m) return false;
    const { route, names } = match.r;
    const pathParameters = Object.fromEntries(names.map((n, i) => [n, safeDecode(match.m?.[i + 1] ?? '')]));
    const query: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) query[k] = [...(query[k] ?? []), v];

    let claims: Record<string, unknown> = {};
    if (route.auth === 'jwt') {
      const authorization = req.headers.authorization;
      if (!authorization) {
        send(res, HTTP_API_UNAUTHORIZED.status, HTTP_API_UNAUTHORIZED.body);
        return true;
      }
      const token = /^Bearer (.+)$/i.exec(authorization)?.[1];
      const payload = token ? await verifier.verify(token) : undefined;
      if (!payload) {
        send(res, HTTP_API_UNAUTHORIZED.status, HTTP_API_UNAUTHORIZED.body);
        return true;
      }
      claims = payload;
    }
    const event = httpApiEvent({
      method,
      routeKey: routeKey(route),
      rawPath: path,
      pathParameters,
      query,
      headers: req.headers as Record<string, string | string[] | undefined>,
      body,
      claims,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      requestId: gatewayRequestId(res) ?? randomUUID(),
    });

    const handler = handlers[route.handler];
    sendResult(res, await handler(event, lambdaContext(route.handler)));
    return true;
  };
}

/**
 * The OAuth function's routes on the HTTP API (contract §15), without an authorizer: every method
 * of its paths reaches the function, which answers discovery, registration, authorization, token
 * and revocation (and its own CORS preflights).
 */
export function oauthGateway(handlers: Handlers) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> => {
    const method = req.method ?? 'GET';
    const query: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) query[k] = [...(query[k] ?? []), v];
    const event = httpApiEvent({
      method,
      routeKey: `${method} ${url.pathname}`,
      rawPath: url.pathname,
      query,
      headers: req.headers as Record<string, string | string[] | undefined>,
      body,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      requestId: gatewayRequestId(res) ?? randomUUID(),
    });
    sendResult(res, await handlers.oauth(event, lambdaContext('oauth')));
  };
}
