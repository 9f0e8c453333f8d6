import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';

export interface HttpApiRequest {
  method: string;
  /** The route as API Gateway names it, e.g. `POST /v1/mcp/api-keys/{key_id}/rotate`. */
  routeKey: string;
  rawPath: string;
  pathParameters?: Record<string, string>;
  /** Query parameters; repeated names arrive comma-joined, as API Gateway sends them. */
  query?: Record<string, string | string[]>;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  /** JWT claims after verification; API Gateway hands them to Lambda as strings. */
  claims?: Record<string, unknown>;
  sourceIp?: string;
  requestId?: string;
}

const TEXT_TYPES = /^(application\/([a-z0-9.+-]+\+)?json|text\/|application\/x-www-form-urlencoded)/i;

/** API Gateway's string form of a claim: scalars as text, arrays as `[a b]`, objects as JSON. */
export function claimToString(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(String).join(' ')}]`;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Builds the HTTP API payload 2.0 event API Gateway would send for this request. */
export function httpApiEvent(req: HttpApiRequest): APIGatewayProxyEventV2WithJWTAuthorizer {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      cookies.push(...(Array.isArray(value) ? value : [value]).flatMap((v) => v.split(/;\s*/)));
      continue;
    }
    headers[lower] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  const rawQuery: string[] = [];
  for (const [name, value] of Object.entries(req.query ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    query[name] = values.join(',');
    for (const v of values) rawQuery.push(`${encodeURIComponent(name)}=${encodeURIComponent(v)}`);
  }
  let body: string | undefined;
  let isBase64Encoded = false;
  if (req.body !== undefined && req.body.length > 0) {
    const buffer = typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body;
    if (TEXT_TYPES.test(headers['content-type'] ?? '')) {
      body = buffer.toString('utf8');
    } else {
      body = buffer.toString('base64');
      isBase64Encoded = true;
    }
  }
  const now = new Date();
  const claims = Object.fromEntries(Object.entries(req.claims ?? {}).map(([k, v]) => [k, claimToString(v)]));
  return {
    version: '2.0',
    routeKey: req.routeKey,
    rawPath: req.rawPath,
    rawQueryString: rawQuery.join('&'),
    ...(cookies.length > 0 && { cookies }),
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    ...(req.pathParameters &&
      Object.keys(req.pathParameters).length > 0 && { pathParameters: req.pathParameters }),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method,
        path: req.rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: req.requestId ?? randomUUID(),
      routeKey: req.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [] } },
    },
    ...(body !== undefined && { body }),
    isBase64Encoded,
  } as APIGatewayProxyEventV2WithJWTAuthorizer;
}
