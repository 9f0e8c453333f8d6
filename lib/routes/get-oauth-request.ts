import { consentView } from '#lib/oauth/consent';
import {
  LIVE_GRANT_GRANTS,
  OAuthRequestPath,
  OAuthRequestView,
  oauthOf,
  REQUEST_GRANTS,
} from './oauth-consent.ts';
import { defineRoute, ok } from './route-module.ts';

/** GET /v1/mcp/oauth/requests/{request_id}: what the consent page shows. */
export default defineRoute({
  name: 'get-oauth-request',
  operationId: 'getOAuthRequest',
  method: 'GET',
  path: '/v1/mcp/oauth/requests/{request_id}',
  auth: 'jwt',
  summary: 'Read an app’s sign-in request for the consent page',
  description:
    'The request belongs to the first user who opens it; for anyone else, and once it expired (10 minutes) or was decided, it is 404 `request_not_found`. When the person already gave this app a live grant for this MCP server, `grant` is that grant and `requested_scopes` only what the app adds (scope step-up).',
  tag: 'oauth-consent',
  request: { params: OAuthRequestPath },
  success: { status: 200, description: 'The request.', schema: OAuthRequestView },
  errors: ['request_not_found'],
  grants: { pepper: false, dynamodb: [REQUEST_GRANTS, LIVE_GRANT_GRANTS] },
  handle:
    (runtime) =>
    async ({ path, caller }) =>
      ok(await consentView(oauthOf(runtime), caller.userId, path.request_id)),
});
