import { KeyIdPath } from '#lib/http/schemas';
import { CredentialUsageQuery, CredentialUsageResponse } from '#lib/http/usage-schemas';
import { credentialUsage } from '#lib/keys/usage-views';
import { defineRoute, ok } from './route-module.ts';
import { QUERY_USAGE } from './usage-grant.ts';

/** GET /v1/mcp/api-keys/{key_id}/usage: what one of the caller's credentials did (contract §18). */
export default defineRoute({
  name: 'get-key-usage',
  operationId: 'getKeyUsage',
  method: 'GET',
  path: '/v1/mcp/api-keys/{key_id}/usage',
  auth: 'jwt',
  summary: 'What a key (or connected app) did: calls by hour or day, refusals by reason, tools',
  description:
    'Counted where each call is verified and written at most once a minute per credential, so the last minute may not show yet. Every bucket of the range is listed, empty ones included. Another user’s key is not found.',
  tag: 'api-keys',
  request: { params: KeyIdPath, query: CredentialUsageQuery },
  success: { status: 200, description: 'The credential’s usage.', schema: CredentialUsageResponse },
  errors: ['not_found'],
  grants: {
    pepper: false,
    dynamodb: [{ actions: ['dynamodb:GetItem'], on: ['keys'] }, QUERY_USAGE],
  },
  handle:
    ({ service }) =>
    async ({ path, query, caller }) =>
      ok(await credentialUsage(service, { userId: caller.userId, keyId: path.key_id, ...query })),
});
