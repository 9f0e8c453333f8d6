import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handlers } from '#lib/handlers/index';
import { UNAUTHORIZED } from '#lib/mcp/authorizer';
import type { RestGatewayResponseType } from '#lib/mcp/gateway-responses';
import { renderDenied, restGatewayResponses } from '#lib/mcp/gateway-responses';
import { registrationRefusal } from '#lib/mcp/registration';
import { MCP_EDGE, routesOf } from '../../api-edge.ts';
import { send, sendResult } from './http.ts';
import { lambdaContext } from './lambda-context.ts';
import { newRequestId, type RestApiRequest, restAuthorizerEvent, restProxyEvent } from './rest-api-events.ts';

export interface RestApiOptions {
  /** Turns on the registration fallback at the root (OAuth off), naming the key page. */
  keysPageUrl?: () => string;
  /** With OAuth on: the MCP endpoint's Protected Resource Metadata, named in its 401. */
  resourceMetadataUrl?: string | undefined;
}

type Context = Record<string, string | number | boolean>;
type Verdict = { allow: true; context: Context } | { allow: false; context?: Context };

const globToRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*')}$`,
  );

/**
 * API Gateway's reading of a Lambda authorizer's output: an explicit Deny on the method wins,
 * then an Allow on it; no matching statement is an implicit deny. Undefined when the output is
 * not a valid authorizer response (API Gateway then reports a configuration error).
 */
function evaluate(output: unknown, methodArn: string): Verdict | undefined {
  const o = output as {
    principalId?: unknown;
    policyDocument?: { Statement?: { Effect?: string; Action?: unknown; Resource?: unknown }[] };
    context?: Record<string, unknown> | null;
  } | null;
  const statements = o?.policyDocument?.Statement;
  if (typeof o?.principalId !== 'string' || !Array.isArray(statements)) return undefined;
  const context = o.context ?? {};
  const flat = Object.values(context).every((v) => ['string', 'number', 'boolean'].includes(typeof v));
  if (!flat) return undefined;
  const covers = (s: (typeof statements)[number], effect: string) => {
    const list = (v: unknown) =>
      (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
    return (
      s.Effect === effect &&
      list(s.Action).some((a) => a === '*' || a === 'execute-api:*' || a === 'execute-api:Invoke') &&
      list(s.Resource).some((r) => globToRegExp(r).test(methodArn))
    );
  };
  // A Deny's context reaches its gateway response (the sentence ACCESS_DENIED shows).
  if (statements.some((s) => covers(s, 'Deny'))) return { allow: false, context: context as Context };
  if (!statements.some((s) => covers(s, 'Allow'))) return { allow: false };
  return { allow: true, context: { ...(context as Record<string, string>), principalId: o.principalId } };
}

/**
 * The REST API in front of the MCP endpoint, emulated (contract §7, §8): the key authorizer as
 * a REQUEST authorizer on `Authorization` with no result cache, refusals answered with the very
 * gateway responses the McpKeyAuthorizer construct deploys, and the MCP function behind a Lambda
 * proxy integration receiving payload 1.0 events. With `keysPageUrl`, it also answers the OAuth
 * registration fallback as the construct's `registration` option does on a REST API at the root.
 */
export function restApiGateway(handlers: Handlers, options: RestApiOptions = {}) {
  const routes = routesOf('rest');
  const { keysPageUrl } = options;
  const responses = restGatewayResponses({ resourceMetadataUrl: options.resourceMetadataUrl });

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
    const requestId = newRequestId();
    const answer = (type: RestGatewayResponseType) => {
      const { status, headers, body: text } = responses[type];
      send(res, status, text, { ...headers, 'x-amzn-requestid': requestId });
    };
    const method = req.method ?? 'GET';
    if (keysPageUrl && url.pathname === MCP_EDGE.registrationPath) {
      if (method !== 'POST') return answer('MISSING_AUTHENTICATION_TOKEN');
      const { status, headers, body: text } = registrationRefusal(keysPageUrl());
      return send(res, status, text, { ...headers, 'x-amzn-requestid': requestId });
    }
    const route = routes.find((r) => r.path === url.pathname && r.method === method);
    if (!route) return answer('MISSING_AUTHENTICATION_TOKEN');

    const request: RestApiRequest = {
      method,
      resource: route.path,
      path: url.pathname,
      rawHeaders: req.rawHeaders,
      query: url.searchParams,
      body,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      requestId,
    };
    // The identity source: missing or empty, API Gateway answers 401 and never calls the authorizer.
    if (!req.headers.authorization) return answer('UNAUTHORIZED');
    const event = restAuthorizerEvent(request);
    let output: unknown;
    try {
      output = await handlers['mcp-authorizer'](event, lambdaContext('mcp-authorizer'));
    } catch (err) {
      return answer(
        err instanceof Error && err.message === UNAUTHORIZED
          ? 'UNAUTHORIZED'
          : 'AUTHORIZER_CONFIGURATION_ERROR',
      );
    }
    const verdict = evaluate(output, event.methodArn);
    if (!verdict) return answer('AUTHORIZER_CONFIGURATION_ERROR');
    if (!verdict.allow) {
      const { status, headers, body: template } = responses.ACCESS_DENIED;
      return send(res, status, renderDenied(template, verdict.context), {
        ...headers,
        'x-amzn-requestid': requestId,
      });
    }

    try {
      const result = await handlers['mcp-server'](restProxyEvent(request, verdict.context));
      sendResult(res, { ...result, headers: { ...result.headers, 'x-amzn-requestid': requestId } });
    } catch {
      // What a Lambda proxy integration answers when the function fails.
      send(res, 502, { message: 'Internal server error' }, { 'x-amzn-requestid': requestId });
    }
  }

  return {
    handle,
  };
}
