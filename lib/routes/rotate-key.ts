import * as z from 'zod';
import { ApiKey, EmptyBody, KeyIdPath, KeyMetadataSchema } from '#lib/http/schemas';
import { rotateKey } from '#lib/keys/lifecycle';
import { countMetric, logger } from '#lib/observability';
import { issuedReply } from './replies.ts';
import { defineRoute, KEY_WRITE } from './route-module.ts';

export const RotateKeyResponse = z
  .object({ api_key: ApiKey, metadata: KeyMetadataSchema, revoked_key: KeyMetadataSchema })
  .meta({ id: 'RotateKeyResponse' });

/** POST /v1/mcp/api-keys/{key_id}/rotate: revokes the key and mints its replacement in one transaction. */
export default defineRoute({
  name: 'rotate-key',
  operationId: 'rotateKey',
  method: 'POST',
  path: '/v1/mcp/api-keys/{key_id}/rotate',
  auth: 'step-up',
  summary: 'Rotate a key: revoke it and mint its replacement atomically',
  description: 'Needs a verified email and a login from the last 900 s. No body, or `{}`.',
  tag: 'api-keys',
  request: { params: KeyIdPath, body: EmptyBody, bodyOptional: true },
  success: {
    status: 201,
    description: 'Rotated. The new `api_key` is shown only in this response.',
    schema: RotateKeyResponse,
    issuesKey: true,
  },
  errors: [
    'not_found',
    'account_disabled',
    'not_rotatable',
    'workspace_policy_denied',
    'key_revoked',
    'key_expired',
    'conflict',
  ],
  grants: {
    pepper: true,
    // It also reads the policies of the key's workspaces (contract §12), and its transaction checks
    // that no identity provider disabled the person (their slot item, contract §17).
    dynamodb: [
      KEY_WRITE,
      { actions: ['dynamodb:BatchGetItem'], on: ['keys'] },
      { actions: ['dynamodb:ConditionCheckItem'], on: ['keys'] },
    ],
  },
  handle:
    ({ service }) =>
    async ({ path, caller }) => {
      const rotated = await rotateKey(service, caller.userId, path.key_id);
      logger.appendKeys({ new_key_id: rotated.metadata.id });
      countMetric('KeysRotated');
      return issuedReply(rotated, { revoked_key: rotated.revokedKey });
    },
});
