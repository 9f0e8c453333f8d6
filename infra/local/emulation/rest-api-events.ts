import { randomUUID } from 'node:crypto';
import type {
  APIGatewayEventIdentity,
  APIGatewayEventRequestContextWithAuthorizer,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import { REST_STAGE } from '../../api-edge.ts';

/** One request as a REST API sees it, before any authorizer runs. */
export interface RestApiRequest {
  method: string;
  /** The resource as defined, e.g. `/mcp`. */
  resource: string;
  path: string;
  /** Raw header pairs as sent (Node's `req.rawHeaders`): repeated headers stay repeated. */
  rawHeaders: string[];
  query: URLSearchParams;
  body: Buffer;
  sourceIp: string;
  requestId: string;
}

/** Headers as REST APIs pass them: names as sent, the last value in `headers`, all in `multiValueHeaders`. */
export function restHeaders(rawHeaders: string[]) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const sent = rawHeaders[i] as string;
    const name = names.get(sent.toLowerCase()) ?? sent;
    names.set(sent.toLowerCase(), name);
    const value = rawHeaders[i + 1] as string;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
}

function queryParameters(query: URLSearchParams) {
  if ([...query.keys()].length === 0)
    return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of query) {
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { queryStringParameters: single, multiValueQueryStringParameters: multi };
}

function requestContext(req: RestApiRequest, userAgent: string | undefined) {
  const now = new Date();
  return {
    accountId: '000000000000',
    apiId: 'local',
    domainName: 'localhost',
    domainPrefix: 'local',
    extendedRequestId: req.requestId,
    httpMethod: req.method,
    identity: { sourceIp: req.sourceIp, userAgent: userAgent ?? null } as APIGatewayEventIdentity,
    path: `/${REST_STAGE}${req.path}`,
    protocol: 'HTTP/1.1',
    requestId: req.requestId,
    requestTime: now.toUTCString(),
    requestTimeEpoch: now.getTime(),
    resourceId: 'local',
    resourcePath: req.resource,
    stage: REST_STAGE,
  };
}

/** The REQUEST authorizer event (payload 1.0) a REST API sends its Lambda authorizer. */
export function restAuthorizerEvent(req: RestApiRequest): APIGatewayRequestAuthorizerEvent {
  const { headers, multiValueHeaders } = restHeaders(req.rawHeaders);
  const context = requestContext(req, headers['User-Agent'] ?? headers['user-agent']);
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:local/${REST_STAGE}/${req.method}${req.path}`,
    resource: req.resource,
    path: req.path,
    httpMethod: req.method,
    headers,
    multiValueHeaders,
    pathParameters: {},
    ...queryParameters(req.query),
    stageVariables: null,
    requestContext: context as APIGatewayEventRequestContextWithAuthorizer<undefined>,
  };
}

/**
 * The Lambda proxy event (payload 1.0) a REST API sends its integration, with the authorizer's
 * context as REST APIs pass it: its keys on `requestContext.authorizer`, beside `principalId`.
 */
export function restProxyEvent(
  req: RestApiRequest,
  authorizer: Record<string, string | number | boolean>,
): APIGatewayProxyEvent {
  const { headers, multiValueHeaders } = restHeaders(req.rawHeaders);
  const context = requestContext(req, headers['User-Agent'] ?? headers['user-agent']);
  return {
    resource: req.resource,
    path: req.path,
    httpMethod: req.method,
    headers,
    multiValueHeaders,
    ...queryParameters(req.query),
    pathParameters: null,
    stageVariables: null,
    requestContext: { ...context, authorizer: { ...authorizer, integrationLatency: 0 } },
    // No binary media types are configured: bodies pass as text.
    body: req.body.length > 0 ? req.body.toString('utf8') : null,
    isBase64Encoded: false,
  };
}

export const newRequestId = (): string => randomUUID();
