import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_CATALOG, type ErrorCode } from '#lib/errors';
import { REAUTHENTICATION_CHALLENGE } from '#lib/http/identity';
import { API_TAGS } from '#lib/http/openapi-tags';
import { problemType, RETRY_AFTER_SECONDS } from '#lib/http/problem';
import { REQUEST_ID_HEADER } from '#lib/http/route';
import { ProblemSchema } from '#lib/http/schemas';
import { MANAGEMENT_ROUTES } from '#lib/routes/index';
import { bodySchema, type RouteModule, routeErrorCodes } from '#lib/routes/route-module';
import { registerOAuthPaths } from './oauth-paths.ts';

/** The route modules declare plain zod types; the generator asks for objects. */
type RequestPart<K extends 'params' | 'query'> = NonNullable<NonNullable<RouteConfig['request']>[K]>;

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
  // Stryker disable next-line MethodExpression,ArrowFunction,ArithmeticOperator: equivalent, a status is an integer key, which an object orders numerically whatever the insertion order
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
  const success = ({ success }: RouteModule) => ({
    description: success.description,
    headers: {
      ...requestIdHeader,
      ...(success.issuesKey && {
        ...noStore,
        location: { description: 'The new key.', schema: { type: 'string' as const } },
      }),
    },
    ...json(success.schema),
  });

  for (const module of MANAGEMENT_ROUTES) {
    const body = bodySchema(module, { maxExpiryDays });
    const { query, params, bodyOptional } = module.request;
    registry.registerPath({
      method: module.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete',
      path: module.path,
      operationId: module.operationId,
      summary: module.summary,
      description: module.description,
      tags: [module.tag],
      // The leak routes take no user token: `security: []`, said explicitly.
      security: module.auth === 'jwt' || module.auth === 'step-up' ? security : [],
      request: {
        ...(params && {
          params: params as RequestPart<'params'>,
        }),
        ...(query && {
          query: query as RequestPart<'query'>,
        }),
        ...(body && { body: { required: !bodyOptional, ...json(body) } }),
      },
      responses: {
        [module.success.status]: success(module),
        ...errorResponses(routeErrorCodes(module)),
      },
    });
  }

  registerOAuthPaths(registry);

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'MCP API key management',
      version: '1.0.0',
      description:
        'Create, list, rotate and revoke the API keys (`svc_mcp_v1_…`) that let an MCP client reach selected workspaces, and read each key’s history; workspace administrators list, cut off and set policy for the keys that reach their workspace. Errors are RFC 9457 problem+json.',
    },
    servers: [
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: 'A deployment: the HTTP API of the stateless stack (its `ApiEndpoint` output).',
        variables: { apiId: { default: 'abcdef1234' }, region: { default: 'us-east-1' } },
      },
      {
        url: 'http://127.0.0.1:{port}',
        description: 'Local mode (`npm start`).',
        variables: { port: { default: '3000', description: 'PORT of the local service.' } },
      },
    ],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
  });
}

export const OPENAPI_PATH = 'docs/openapi.json';

export const renderOpenApi = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
