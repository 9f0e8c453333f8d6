import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2WithLambdaAuthorizer } from 'aws-lambda';
import type { Handlers } from '#lib/handlers/index';
import type { McpAuthContext } from '#lib/mcp/authorizer';
import { ROUTES, type RouteDefinition, routeKey } from '../routes.ts';
import { httpApiAuthorizerEvent, httpApiEvent, lambdaContext } from './apigw.ts';
import { gatewayRequestId } from './guards.ts';
import { safeDecode, send, sendResult } from './http.ts';
import type { TokenVerifier } from './jwt.ts';

function compile(route: RouteDefinition) {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/**
 * The API Gateway HTTP API emulation: matches a route, checks the user JWT or runs the key
 * authorizer as API Gateway would, builds the payload 2.0 event and invokes the handler.
 * Answers false when no route matches.
 */
export function httpApiGateway(handlers: Handlers, verifier: TokenVerifier) {
  const routes = ROUTES.map(compile);
  return async (req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<boolean> => {
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

    const authorization = req.headers.authorization;
    if (!authorization) {
      send(res, 401, { message: 'Unauthorized' });
      return true;
    }
    let claims: Record<string, unknown> = {};
    if (route.auth === 'jwt') {
      const token = /^Bearer (.+)$/i.exec(authorization)?.[1];
      const payload = token ? await verifier.verify(token) : undefined;
      if (!payload) {
        send(res, 401, { message: 'Unauthorized' });
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

    if (route.handler === 'mcp-server') {
      const decision = await handlers['mcp-authorizer'](
        httpApiAuthorizerEvent(event),
        lambdaContext('mcp-authorizer'),
      );
      if (!('isAuthorized' in decision) || decision.isAuthorized !== true) {
        send(res, 403, { message: 'Forbidden' });
        return true;
      }
      const context = 'context' in decision ? (decision.context as Partial<McpAuthContext>) : {};
      const { authorizer: _jwt, ...requestContext } = event.requestContext;
      const mcpEvent: APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<McpAuthContext>> = {
        ...event,
        requestContext: { ...requestContext, authorizer: { lambda: context } },
      };
      sendResult(res, await handlers['mcp-server'](mcpEvent));
      return true;
    }
    sendResult(res, await handlers[route.handler](event, lambdaContext(route.handler)));
    return true;
  };
}
