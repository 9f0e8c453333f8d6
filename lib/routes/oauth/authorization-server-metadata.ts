import * as z from 'zod';
import { authorizationServerMetadata, OAUTH_PATHS } from '#lib/oauth/metadata';
import { defineOAuthRoute, jsonReply } from './oauth-route.ts';

const Metadata = z
  .looseObject({ issuer: z.string(), token_endpoint: z.string(), grant_types_supported: z.array(z.string()) })
  .meta({ id: 'AuthorizationServerMetadata', description: 'RFC 8414 authorization server metadata.' });

/** GET /.well-known/oauth-authorization-server (RFC 8414), and its path-inserted forms. */
export default defineOAuthRoute({
  operationId: 'getAuthorizationServerMetadata',
  method: 'GET',
  path: OAUTH_PATHS.asMetadata,
  under: true,
  deployment: 'oauth-api',
  summary: 'The authorization server’s metadata',
  description:
    'RFC 8414: the endpoints, grant types, PKCE method, scopes and whether client metadata documents are accepted. Cacheable for an hour.',
  input: 'none',
  errors: [],
  success: { status: 200, description: 'The metadata document.', schema: Metadata },
  preflight: true,
  grants: { pepper: false, dynamodb: [] },
  handle: (deps) => async () =>
    jsonReply(200, authorizationServerMetadata(deps.oauth), { 'cache-control': 'public, max-age=3600' }),
});
