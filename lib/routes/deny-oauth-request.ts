import { EmptyBody } from '#lib/http/schemas';
import { deny } from '#lib/oauth/consent';
import { OAuthDecision, OAuthRequestPath, oauthOf, REQUEST_GRANTS } from './oauth-consent.ts';
import { defineRoute, ok } from './route-module.ts';

/** POST /v1/mcp/oauth/requests/{request_id}/deny: the app is told `access_denied`. */
export default defineRoute({
  name: 'deny-oauth-request',
  operationId: 'denyOAuthRequest',
  method: 'POST',
  path: '/v1/mcp/oauth/requests/{request_id}/deny',
  auth: 'jwt',
  summary: 'Deny an app’s sign-in request',
  description: 'No body, or `{}`. A repeated deny answers the same `redirect_to`.',
  tag: 'oauth-consent',
  request: { params: OAuthRequestPath, body: EmptyBody, bodyOptional: true },
  success: { status: 200, description: 'Denied: send the browser to `redirect_to`.', schema: OAuthDecision },
  errors: ['request_not_found'],
  grants: { pepper: false, dynamodb: [REQUEST_GRANTS] },
  handle:
    (runtime) =>
    async ({ path, caller }) =>
      ok(await deny(oauthOf(runtime), caller.userId, path.request_id)),
});
