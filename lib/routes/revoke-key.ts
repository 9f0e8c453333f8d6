import * as z from 'zod';
import { KeyIdPath, KeyMetadataSchema } from '#lib/http/schemas';
import { revokeKey } from '#lib/keys/lifecycle';
import { countMetric } from '#lib/observability';
import { defineRoute, KEY_WRITE } from './route-module.ts';

export const RevokeKeyResponse = z.object({ metadata: KeyMetadataSchema }).meta({ id: 'RevokeKeyResponse' });

/** DELETE /v1/mcp/api-keys/{key_id}: immediate, idempotent revocation. */
export default defineRoute({
  name: 'revoke-key',
  operationId: 'revokeKey',
  method: 'DELETE',
  path: '/v1/mcp/api-keys/{key_id}',
  auth: 'jwt',
  summary: 'Revoke a key, immediately and idempotently',
  description:
    'The key fails its next MCP call. Revoking a revoked key answers 200 with the original `revoked_at`; another user’s key is 404, as an unknown one.',
  tag: 'api-keys',
  request: { params: KeyIdPath },
  success: {
    status: 200,
    description: 'Revoked (or already revoked: the original `revoked_at`).',
    schema: RevokeKeyResponse,
  },
  // A revocation that loses a race answers the winner's `revoked_at`: never 409.
  errors: ['not_found'],
  grants: {
    pepper: false,
    dynamodb: [KEY_WRITE],
  },
  handle:
    ({ service }) =>
    async ({ path, caller }) => {
      const metadata = await revokeKey(service, caller.userId, path.key_id);
      countMetric('KeysRevoked');
      return { status: 200, body: { metadata } };
    },
});
