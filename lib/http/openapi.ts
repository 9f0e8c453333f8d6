import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_CATALOG, type ErrorCode } from '#lib/errors';
import { REAUTHENTICATION_CHALLENGE } from './identity.ts';
import { GithubMatches, GithubVerdicts, LeakReportBody, LeakReportResponse } from './leak-schemas.ts';
import { registerWorkspacePaths } from './openapi-workspaces.ts';
import { problemType, RETRY_AFTER_SECONDS } from './problem.ts';
import { REQUEST_ID_HEADER } from './route.ts';
import {
  CreateKeyResponse,
  createKeyBody,
  EmptyBody,
  KeyIdPath,
  ListEventsQuery,
  ListEventsResponse,
  ListKeysQuery,
  ListKeysResponse,
  ProblemSchema,
  RevokeKeyResponse,
  RotateKeyResponse,
} from './schemas.ts';

/** Codes any route can answer: the stack's own checks and failures. */
const COMMON: ErrorCode[] = [
  'invalid_json',
  'validation_failed',
  'unauthorized',
  'payload_too_large',
  'unsupported_media_type',
  'internal_error',
  'dependency_unavailable',
];

/** Codes a route without a user token can answer (no `unauthorized`: no token is asked for). */
const PUBLIC: ErrorCode[] = COMMON.filter((c) => c !== 'unauthorized');

export const ROUTE_CODES: Record<
  'create' | 'list' | 'rotate' | 'revoke' | 'events' | 'leakReport' | 'githubReport',
  ErrorCode[]
> = {
  create: [
    ...COMMON,
    'reauthentication_required',
    'email_not_verified',
    'workspace_access_denied',
    'workspace_policy_denied',
    'key_limit_reached',
    'conflict',
  ],
  list: [...COMMON, 'invalid_cursor'],
  rotate: [
    ...COMMON,
    'reauthentication_required',
    'email_not_verified',
    'not_found',
    'workspace_policy_denied',
    'key_revoked',
    'key_expired',
    'conflict',
  ],
  revoke: [...COMMON, 'not_found', 'conflict'],
  events: [...COMMON, 'invalid_cursor', 'not_found'],
  leakReport: PUBLIC,
  githubReport: [...PUBLIC, 'invalid_signature'],
};

const GatewayUnauthorized = z.object({ message: z.literal('Unauthorized') }).meta({
  id: 'GatewayUnauthorized',
  description: 'API Gateway’s answer to a missing, invalid or expired user token.',
});

const requestIdHeader = {
  [REQUEST_ID_HEADER]: {
    description: 'Identifies the request in logs and in problem bodies.',
    schema: { type: 'string' as const },
  },
};
const noStore = {
  'cache-control': {
    description: '`no-store`: the body carries a secret.',
    schema: { type: 'string' as const },
  },
};

function errorResponses(codes: ErrorCode[]): RouteConfig['responses'] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_CATALOG[code].status, [...(byStatus.get(ERROR_CATALOG[code].status) ?? []), code]);
  const responses: RouteConfig['responses'] = {};
  for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const headers: Record<string, { description: string; schema: { type: 'string' } }> = {
      ...requestIdHeader,
    };
    if (list.includes('reauthentication_required')) {
      headers['www-authenticate'] = {
        description: `RFC 9470 challenge: \`${REAUTHENTICATION_CHALLENGE}\``,
        schema: { type: 'string' },
      };
    }
    if (list.includes('dependency_unavailable')) {
      headers['retry-after'] = {
        description: `Seconds to wait (${RETRY_AFTER_SECONDS}).`,
        schema: { type: 'string' },
      };
    }
    const examples = Object.fromEntries(
      list.map((code) => [
        code,
        {
          value: {
            type: problemType(code),
            title: ERROR_CATALOG[code].title,
            status,
            detail: '…',
            code,
            request_id: 'c4031066-11d6-4c66-8a2e-ff68c6d4538d',
          },
        },
      ]),
    );
    responses[status] = {
      description: `${list.map((c) => `\`${c}\``).join(', ')}${status === 401 ? '; or API Gateway’s `{"message":"Unauthorized"}`' : ''}`,
      headers,
      content: {
        'application/problem+json': { schema: ProblemSchema, examples },
        ...(status === 401 && { 'application/json': { schema: GatewayUnauthorized } }),
      },
    };
  }
  return responses;
}

/** The OpenAPI 3.1 document of the management API. */
export function buildOpenApiDocument(maxExpiryDays = 90) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'userJwt', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A user’s login token, verified by the API Gateway JWT authorizer. Never an MCP key.',
  });
  const security = [{ [bearer.name]: [] }];
  const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });

  /** Create and rotate answer 201 with the key once, its Location, and no-store. */
  const keyIssued = (description: string, schema: typeof CreateKeyResponse | typeof RotateKeyResponse) => ({
    description,
    headers: {
      ...requestIdHeader,
      ...noStore,
      location: { description: 'The new key.', schema: { type: 'string' as const } },
    },
    ...json(schema),
  });

  registry.registerPath({
    method: 'post',
    path: '/v1/mcp/api-keys',
    operationId: 'createKey',
    summary: 'Create an API key (shown once)',
    description: 'Needs a verified email and a login from the last 900 s.',
    security,
    request: { body: { required: true, ...json(createKeyBody(maxExpiryDays)) } },
    responses: {
      201: keyIssued('Created. `api_key` is shown only in this response.', CreateKeyResponse),
      ...errorResponses(ROUTE_CODES.create),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/mcp/api-keys',
    operationId: 'listKeys',
    summary: 'List the caller’s keys, newest first',
    security,
    request: { query: ListKeysQuery },
    responses: {
      200: { description: 'A page of keys.', headers: requestIdHeader, ...json(ListKeysResponse) },
      ...errorResponses(ROUTE_CODES.list),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/mcp/api-keys/{key_id}/rotate',
    operationId: 'rotateKey',
    summary: 'Rotate a key: revoke it and mint its replacement atomically',
    description: 'Needs a verified email and a login from the last 900 s. No body, or `{}`.',
    security,
    request: { params: KeyIdPath, body: { required: false, ...json(EmptyBody) } },
    responses: {
      201: keyIssued('Rotated. The new `api_key` is shown only in this response.', RotateKeyResponse),
      ...errorResponses(ROUTE_CODES.rotate),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/v1/mcp/api-keys/{key_id}',
    operationId: 'revokeKey',
    summary: 'Revoke a key, immediately and idempotently',
    security,
    request: { params: KeyIdPath },
    responses: {
      200: {
        description: 'Revoked (or already revoked: the original `revoked_at`).',
        headers: requestIdHeader,
        ...json(RevokeKeyResponse),
      },
      ...errorResponses(ROUTE_CODES.revoke),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/mcp/api-keys/{key_id}/events',
    operationId: 'listKeyEvents',
    summary: 'A key’s history: the events of its whole lineage, newest first',
    description:
      'The events of the key and of every key rotated from or into it (`key.created`, `key.rotated`, `key.revoked`, `key.leak_revoked`, `key.expiring`, `key.expired`). Each is written in the same transaction as the change it records. The same events are published to Amazon EventBridge (source `svc.mcp-api-keys`, detail-type = `type`, at least once: dedupe by `id`).',
    security,
    request: { params: KeyIdPath, query: ListEventsQuery },
    responses: {
      200: { description: 'A page of events.', headers: requestIdHeader, ...json(ListEventsResponse) },
      ...errorResponses(ROUTE_CODES.events),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v1/mcp/leaked-keys',
    operationId: 'reportLeakedKeys',
    summary: 'Report leaked keys: each genuine, active one is revoked at once',
    description:
      'No authentication: holding a key is the authority to kill it. The answer is the same whatever the strings were (real, already revoked or garbage), and comes no sooner than a fixed time. The owner is told through the `key.leak_revoked` event. Throttled on its own (default 5 requests/s, burst 10).',
    request: { body: { required: true, ...json(LeakReportBody) } },
    responses: {
      202: { description: 'Received.', headers: requestIdHeader, ...json(LeakReportResponse) },
      ...errorResponses(ROUTE_CODES.leakReport),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/mcp/secret-scanning/github',
    operationId: 'githubSecretScanning',
    summary: 'GitHub secret scanning partner endpoint',
    description:
      'Called by GitHub with `Github-Public-Key-Identifier` and `Github-Public-Key-Signature` (ECDSA P-256, SHA-256, over the raw body). True positives are revoked; every match is answered by the SHA-256 of its token.',
    request: { body: { required: true, ...json(GithubMatches) } },
    responses: {
      200: { description: 'A label per match, in order.', headers: requestIdHeader, ...json(GithubVerdicts) },
      ...errorResponses(ROUTE_CODES.githubReport),
    },
  });

  registerWorkspacePaths(
    registry,
    { security, common: COMMON, errorResponses, requestIdHeader },
    maxExpiryDays,
  );

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'MCP API key management',
      version: '1.0.0',
      description:
        'Create, list, rotate and revoke the API keys (`svc_mcp_v1_…`) that let an MCP client reach selected workspaces, and read each key’s history; workspace administrators list, cut off and set policy for the keys that reach their workspace. Errors are RFC 9457 problem+json.',
    },
  });
}

export const OPENAPI_PATH = 'docs/openapi.json';

export const renderOpenApi = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
