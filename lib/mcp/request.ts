import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { rawBodyOf } from '#lib/http/body';
import type { McpAuthContext } from './authorizer.ts';

/**
 * What an MCP function behind API Gateway receives: a REST API proxy event (payload 1.0, what
 * the reference endpoint gets) or an HTTP API event (payload 2.0, for reuse behind an HTTP API).
 */
export type McpProxyEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

const isHttpApi = (event: McpProxyEvent): event is APIGatewayProxyEventV2 =>
  (event as { version?: string }).version === '2.0';

/**
 * The key authorizer's context: REST APIs put its keys on `requestContext.authorizer`, HTTP
 * APIs under `requestContext.authorizer.lambda`.
 */
export function authorizerContext(event: McpProxyEvent): Partial<McpAuthContext> | undefined {
  const authorizer = (event.requestContext as { authorizer?: Record<string, unknown> | null }).authorizer;
  if (!authorizer) return undefined;
  const context = isHttpApi(event) ? authorizer.lambda : authorizer;
  return context && typeof context === 'object' ? (context as Partial<McpAuthContext>) : undefined;
}

function query(event: APIGatewayProxyEvent): string {
  const params = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    for (const value of values ?? []) params.append(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The Web-standard Request an MCP transport expects, from either payload version. */
export function toRequest(event: McpProxyEvent): Request {
  const headers = new Headers();
  let method: string;
  let target: string;
  if (isHttpApi(event)) {
    method = event.requestContext.http.method;
    target = `${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
    for (const [name, value] of Object.entries(event.headers))
      if (value !== undefined) headers.set(name, value);
  } else {
    method = event.httpMethod;
    target = `${event.path}${query(event)}`;
    const multi = event.multiValueHeaders ?? {};
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      const values = multi[name];
      if (values && values.length > 0) for (const v of values) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
  }
  const host = headers.get('host') ?? event.requestContext.domainName ?? 'localhost';
  const body = rawBodyOf(event);
  return new Request(`https://${host}${target}`, {
    method,
    headers,
    // Stryker disable next-line ConditionalExpression: equivalent for `body !== undefined`, a `body: undefined` is no body (the method checks are killed by test/unit/mcp-request.test.ts)
    ...(body !== undefined && method !== 'GET' && method !== 'HEAD' && { body }),
  });
}
