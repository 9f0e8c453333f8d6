import * as z from 'zod';
import { OAUTH_PATHS } from '#lib/oauth/metadata';
import { token } from '#lib/oauth/token';
import { defineOAuthRoute, jsonReply, param } from './oauth-route.ts';

const TokenForm = z
  .object({
    grant_type: param(
      '`authorization_code`, `refresh_token`, or (with a trusted identity provider) `urn:ietf:params:oauth:grant-type:jwt-bearer`.',
    ),
    code: param('The authorization code (authorization_code).'),
    redirect_uri: param('The authorization request’s redirect URI (authorization_code).'),
    code_verifier: param('The PKCE verifier (authorization_code).'),
    client_id: param('The client the grant was given to.'),
    resource: param('The grant’s MCP server, when sent (RFC 8707).'),
    refresh_token: param('The refresh token (refresh_token).'),
    scope: param('At most the granted scopes (refresh_token); the scopes asked for (jwt-bearer).'),
    assertion: param('The identity provider’s ID-JAG (jwt-bearer).'),
  })
  .meta({ id: 'TokenRequest' });

const TokenAnswer = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z
      .string()
      .optional()
      .meta({ description: 'Absent for an ID-JAG: the client asks its identity provider again.' }),
    scope: z.string(),
  })
  .meta({ id: 'TokenResponse' });

/** POST /oauth/token (RFC 6749 §3.2): each grant type's exchange is a module of lib/oauth/grant-types/. */
export default defineOAuthRoute({
  operationId: 'token',
  method: 'POST',
  path: OAUTH_PATHS.token,
  deployment: 'oauth-api',
  summary: 'Exchange a code, a refresh token or an ID-JAG for tokens',
  description:
    'Form-encoded. Codes are single use (60 s) and bound to the client, redirect URI, resource and PKCE verifier; refresh tokens rotate on every use with a 60 s grace. An ID-JAG (enterprise-managed authorization) from a trusted identity provider is single use and gets an access token without a refresh token. Errors are RFC 6749 §5.2 JSON.',
  input: 'form',
  schema: TokenForm,
  errors: [
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'invalid_scope',
    'invalid_target',
    'unsupported_grant_type',
    'temporarily_unavailable',
  ],
  success: { status: 200, description: 'The tokens (`Cache-Control: no-store`).', schema: TokenAnswer },
  preflight: true,
  throttle: 'token',
  grants: {
    pepper: true,
    dynamodb: [
      // The grant read, its tokens set; a revocation (replay, reuse) with its event; the registration kept.
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], on: ['keys'] },
      // A refresh applies the policies and the person's roles again.
      { actions: ['dynamodb:BatchGetItem'], on: ['keys', 'memberships'] },
      // An ID-JAG: every membership of the person, and the index entries of the workspaces a
      // renewed grant no longer reaches (its current grant is read and written above).
      { actions: ['dynamodb:Query'], on: ['memberships'] },
      { actions: ['dynamodb:DeleteItem'], on: ['keys'] },
    ],
  },
  handle:
    (deps) =>
    async ({ input }) =>
      jsonReply(200, await token(deps, input), { pragma: 'no-cache' }),
});
