import * as z from 'zod';
import { authorize } from '#lib/oauth/authorize';
import { OAUTH_PATHS } from '#lib/oauth/metadata';
import { defineOAuthRoute, param } from './oauth-route.ts';

const AuthorizeQuery = z.object({
  client_id: param('The client: a metadata document URL, or the id dynamic registration gave it.'),
  redirect_uri: param('Where the code goes; optional when the client registered one only.'),
  response_type: param('`code`.'),
  state: param('Returned with the code as sent.'),
  code_challenge: param('PKCE S256 challenge (43 characters).'),
  code_challenge_method: param('`S256`.'),
  resource: param('The MCP server’s URL (RFC 8707): one this server protects.'),
  scope: param('Space-separated scopes; none means `svc.forms.read`.'),
});

/**
 * GET /oauth/authorize (RFC 6749 §4.1.1, OAuth 2.1, RFC 8707): a valid request is stored and the
 * browser sent to the consent page; a refusal before the redirect URI is trusted is a page, after
 * it a redirect with `error` (lib/oauth/authorize.ts).
 */
export default defineOAuthRoute({
  operationId: 'authorize',
  method: 'GET',
  path: OAUTH_PATHS.authorize,
  deployment: 'oauth-api',
  summary: 'Start an app’s sign-in',
  description:
    'Sends the browser to the consent page (`?request=<id>`). An error found before the client and its redirect URI are known is shown as a page; after, it is redirected with `error`, `state` and `iss` (RFC 6749 §4.1.2.1, RFC 9207).',
  input: 'query',
  schema: AuthorizeQuery,
  errors: ['invalid_request'],
  errorsAs: 'page',
  success: { status: 302, description: 'To the consent page, or back to the app with an error.' },
  grants: {
    pepper: false,
    // The request stored; a registered client read.
    dynamodb: [{ actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], on: ['keys'] }],
  },
  handle:
    (deps) =>
    async ({ input }) => {
      const outcome = await authorize(deps, input);
      if (outcome.kind === 'page')
        return { status: outcome.status, page: { title: outcome.title, message: outcome.message } };
      return { status: 302, headers: { location: outcome.location } };
    },
});
