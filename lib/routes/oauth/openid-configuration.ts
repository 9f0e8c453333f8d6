import { OAUTH_PATHS } from '#lib/oauth/metadata';
import { defineOAuthRoute, jsonReply } from './oauth-route.ts';

/**
 * GET /.well-known/openid-configuration: 404, since this is not an OpenID provider; answered by
 * the function so that a browser-based client can read the answer (CORS headers).
 */
export default defineOAuthRoute({
  operationId: 'getOpenIdConfiguration',
  method: 'GET',
  path: OAUTH_PATHS.openidConfiguration,
  deployment: 'oauth-api',
  summary: 'Not an OpenID provider',
  description: 'Always 404: clients that look for OpenID Connect discovery fall back to RFC 8414 metadata.',
  input: 'none',
  errors: [],
  success: { status: 200, description: 'Never: the answer is 404 `{"message":"Not Found"}`.' },
  // Not an operation of the API: a 404 that browser-based clients can read.
  openapi: false,
  preflight: true,
  grants: { pepper: false, dynamodb: [] },
  handle: () => async () => jsonReply(404, { message: 'Not Found' }),
});
