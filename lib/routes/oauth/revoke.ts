import * as z from 'zod';
import { OAUTH_PATHS } from '#lib/oauth/metadata';
import { revokeToken } from '#lib/oauth/revocation';
import { defineOAuthRoute, jsonReply } from './oauth-route.ts';

const RevocationForm = z
  .object({
    token: z.string().optional().meta({ description: 'An access or refresh token.' }),
    token_type_hint: z.string().optional(),
    client_id: z.string().optional().meta({ description: 'When sent, the grant’s client.' }),
  })
  .meta({ id: 'RevocationRequest' });

/** POST /oauth/revoke (RFC 7009): a client's token revokes its grant; the answer tells nothing. */
export default defineOAuthRoute({
  operationId: 'revokeToken',
  method: 'POST',
  path: OAUTH_PATHS.revoke,
  deployment: 'oauth-api',
  summary: 'Revoke a token, and with it its grant',
  description:
    'Form-encoded. Whatever the token (valid, unknown, someone else’s), the answer is the same 200 (RFC 7009 §2.2).',
  input: 'form',
  schema: RevocationForm,
  errors: ['invalid_request', 'temporarily_unavailable'],
  success: { status: 200, description: 'Done, or nothing to do: `{}`.' },
  preflight: true,
  grants: {
    pepper: true,
    dynamodb: [{ actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], on: ['keys'] }],
  },
  handle:
    (deps) =>
    async ({ input }) => {
      await revokeToken(deps, input);
      return jsonReply(200, {});
    },
});
