import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { RETRY_AFTER_SECONDS } from '#lib/limits';
import { OAuthError, type OAuthErrorCode } from '#lib/oauth/errors';
import { OAUTH_ROUTES } from '#lib/routes/oauth/index';
import type { OAuthRouteModule } from '#lib/routes/oauth/oauth-route';

type Server = NonNullable<RouteConfig['servers']>[number];

const OAuthErrorBody = z
  .object({ error: z.string(), error_description: z.string() })
  .meta({ id: 'OAuthError', description: 'RFC 6749 §5.2 (and RFC 7591 §3.2.2) error JSON.' });

/** Local mode's origin. */
const LOCAL: Server = {
  url: 'http://127.0.0.1:{port}',
  description: 'Local mode (`npm start`).',
  variables: { port: { default: '3000' } },
};

/** Where the OAuth endpoints are: the issuer (a deployment's OAuth API, or its custom domain), or local mode. */
const SERVERS: Server[] = [
  {
    url: '{issuer}',
    description: 'A deployment’s OAuth issuer (the stateless stack’s `OAuthIssuer` output).',
    variables: { issuer: { default: 'https://auth.example.com' } },
  },
  LOCAL,
];

/** Where a resource's metadata is: the MCP server's origin. */
const MCP_SERVERS: Server[] = [
  {
    url: '{mcpOrigin}',
    description: 'The MCP server’s origin (the path after the well-known prefix names its resource).',
    variables: { mcpOrigin: { default: 'https://mcp.example.com' } },
  },
  LOCAL,
];

const SetErrorBody = z
  .object({
    err: z.enum([
      'invalid_request',
      'invalid_key',
      'invalid_issuer',
      'invalid_audience',
      'authentication_failed',
    ]),
    description: z.string(),
  })
  .meta({ id: 'SetError', description: 'RFC 8935 §2.3 error JSON.' });

/** RFC 8935's refusals: 400 with `err`, or 503 while the IdP's keys cannot be fetched. */
const SET_ERROR_RESPONSES: RouteConfig['responses'] = {
  400: {
    description: 'The SET is refused (`err` says why).',
    content: { 'application/json': { schema: SetErrorBody } },
  },
  503: {
    description: 'The identity provider’s keys could not be fetched (`authentication_failed`); retry.',
    headers: {
      'retry-after': { description: `Seconds to wait (${RETRY_AFTER_SECONDS}).`, schema: { type: 'string' } },
    },
    content: { 'application/json': { schema: SetErrorBody } },
  },
};

/** The error responses of an OAuth route, by status: RFC 6749 JSON, or a page for authorize's. */
function errorResponses(module: OAuthRouteModule): RouteConfig['responses'] {
  if (module.errorsAs === 'secevent') return SET_ERROR_RESPONSES;
  const byStatus = new Map<number, OAuthErrorCode[]>();
  for (const code of module.errors) {
    const { status } = new OAuthError(code, '');
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: RouteConfig['responses'] = {};
  for (const [status, codes] of byStatus) {
    const list = codes.map((c) => `\`${c}\``).join(', ');
    responses[status] =
      module.errorsAs === 'page'
        ? {
            description: `A page for the person (${list}): nothing is redirected before the redirect URI is trusted.`,
            content: { 'text/html': { schema: { type: 'string' } } },
          }
        : {
            description: list,
            ...(status === 503 && {
              headers: {
                'retry-after': {
                  description: `Seconds to wait (${RETRY_AFTER_SECONDS}).`,
                  schema: { type: 'string' },
                },
              },
            }),
            content: OAUTH_ERROR_CONTENT,
          };
  }
  return responses;
}

const OAUTH_ERROR_CONTENT = { 'application/json': { schema: OAuthErrorBody } };
const NOT_FOUND_CONTENT = {
  'application/json': { schema: z.object({ message: z.literal('Not Found') }).meta({ id: 'NotFound' }) },
};

const CONTENT_TYPE = { form: 'application/x-www-form-urlencoded', json: 'application/json' } as const;

/** Registers the OAuth authorization server's endpoints (lib/routes/oauth/) on `registry`. */
export function registerOAuthPaths(registry: OpenAPIRegistry): void {
  for (const module of OAUTH_ROUTES.filter((m) => m.openapi !== false)) {
    const { success, input, schema } = module;
    registry.registerPath({
      method: module.method.toLowerCase() as 'get' | 'post',
      path: module.path,
      operationId: module.operationId,
      summary: module.summary,
      description: module.description,
      tags: ['oauth'],
      security: [],
      servers: module.deployment === 'mcp-api' ? MCP_SERVERS : SERVERS,
      request: {
        ...(input === 'query' && schema && { query: schema as z.ZodObject }),
        ...((input === 'form' || input === 'json') &&
          schema && { body: { required: true, content: { [CONTENT_TYPE[input]]: { schema } } } }),
        ...(input === 'secevent' && {
          body: {
            required: true,
            content: {
              'application/secevent+jwt': {
                schema: z.string().meta({ description: 'The SET (a signed JWT).' }),
              },
            },
          },
        }),
      },
      responses: {
        [success.status]: {
          description: success.description,
          ...(success.schema && { content: { 'application/json': { schema: success.schema } } }),
        },
        ...errorResponses(module),
        ...(module.deployment === 'mcp-api' && {
          404: { description: 'No MCP server of this deployment has that path.', content: NOT_FOUND_CONTENT },
        }),
        405: { description: 'Another method (`invalid_request`).', content: OAUTH_ERROR_CONTENT },
      },
    });
  }
}
