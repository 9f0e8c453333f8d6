import * as z from 'zod';
import { OAUTH_PATHS, protectedResourceDocument, resourceForMetadataPath } from '#lib/oauth/metadata';
import { defineOAuthRoute, jsonReply } from './oauth-route.ts';

const Document = z
  .looseObject({ resource: z.string(), authorization_servers: z.array(z.string()) })
  .meta({ id: 'ProtectedResourceMetadata', description: 'RFC 9728 protected resource metadata.' });

/**
 * GET /.well-known/oauth-protected-resource[/<resource path>] (RFC 9728) of the MCP servers this
 * deployment protects. On a deployment the MCP API answers it (`McpKeyAuthorizer`'s `oauth`), at
 * the MCP server's origin; locally, one origin serves both.
 */
export default defineOAuthRoute({
  operationId: 'getProtectedResourceMetadata',
  method: 'GET',
  path: OAUTH_PATHS.resourceMetadata,
  under: true,
  deployment: 'mcp-api',
  summary: 'An MCP server’s protected resource metadata',
  description:
    'RFC 9728: the resource, its authorization server and scopes. The bare path describes the first resource; a path after it names one.',
  input: 'none',
  errors: [],
  success: {
    status: 200,
    description: 'The metadata document (404 for an unknown resource).',
    schema: Document,
  },
  grants: { pepper: false, dynamodb: [] },
  handle:
    (deps) =>
    async ({ path }) => {
      const resource = resourceForMetadataPath(deps.oauth.resources, path);
      if (!resource) return jsonReply(404, { message: 'Not Found' });
      return jsonReply(200, protectedResourceDocument(resource, deps.oauth.issuer), {
        'cache-control': 'public, max-age=3600',
      });
    },
});
