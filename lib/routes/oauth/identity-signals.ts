import * as z from 'zod';
import { receiveSignal } from '#lib/oauth/identity-signals';
import { logger } from '#lib/observability';
import { defineOAuthRoute } from './oauth-route.ts';

/** Where a trusted identity provider pushes security event tokens (RFC 8935). */
export const IDENTITY_SIGNALS_PATH = '/v1/identity-signals';

const SetBody = z.object({ token: z.string().min(1, 'the body is empty: it must be the SET itself') });

/**
 * POST /v1/identity-signals (RFC 8935 push of RFC 8417 SETs, contract §17): a trusted IdP tells
 * this service that it disabled, purged or signed out a person, and their credentials end.
 */
export default defineOAuthRoute({
  operationId: 'receiveIdentitySignal',
  method: 'POST',
  path: IDENTITY_SIGNALS_PATH,
  deployment: 'oauth-api',
  summary: 'Receive an identity provider’s security event',
  description:
    'RFC 8935 push: the body is a security event token (`application/secevent+jwt`) signed by a trusted identity provider, `aud` this issuer. RISC `account-disabled` and `account-purged` revoke every active credential of the person (API keys, consent and enterprise grants) and refuse any new one (`account_disabled`) until `account-enabled` from the same IdP; CAEP `session-revoked` their enterprise grants from that IdP; other events are acknowledged. A repeated `jti` is acknowledged and changes nothing. Refusals are RFC 8935 §2.3 `{ err, description }`.',
  input: 'secevent',
  schema: SetBody,
  errors: [],
  errorsAs: 'secevent',
  success: { status: 202, description: 'Accepted (and acted on, or a repeat).' },
  grants: {
    pepper: false,
    dynamodb: [
      // The person's active credentials, each revoked with its event and its slot released; the SET's jti kept.
      { actions: ['dynamodb:Query'], on: ['keys-by-user'] },
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], on: ['keys'] },
    ],
  },
  handle:
    (deps) =>
    async ({ input }) => {
      const outcome = await receiveSignal(deps, input.token);
      logger.info('identity signal accepted', { repeated: outcome.repeated, revoked: outcome.revoked });
      return { status: 202, headers: { 'cache-control': 'no-store' } };
    },
});
