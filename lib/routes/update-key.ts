import * as z from 'zod';
import { KeyIdPath, KeyMetadataSchema } from '#lib/http/schemas';
import { LimitsSchema, ToolList } from '#lib/http/tool-schemas';
import { updateKey } from '#lib/keys/update';
import { countMetric } from '#lib/observability';
import { defineRoute, KEY_WRITE, ok } from './route-module.ts';

export const UpdateKeyRequest = z
  .strictObject({
    tools: ToolList.meta({ description: 'A subset of its tools.' }).optional(),
    limits: LimitsSchema.optional().meta({ description: 'Limits added or lowered, never raised.' }),
  })
  .meta({ id: 'UpdateKeyRequest' });

export const UpdateKeyResponse = z.object({ metadata: KeyMetadataSchema }).meta({ id: 'UpdateKeyResponse' });

/** PATCH /v1/mcp/api-keys/{key_id}: narrows what a key or a connected app may do (contract §19). */
export default defineRoute({
  name: 'update-key',
  operationId: 'updateKey',
  method: 'PATCH',
  path: '/v1/mcp/api-keys/{key_id}',
  auth: 'jwt',
  summary: 'Narrow a key or a connected app',
  description:
    'Only narrows, so it needs no recent login: `tools` must be a subset of the credential’s own (or of every tool its scopes allow), else 400 naming the tool; `limits` may add a limit or lower one, never raise or remove one (400 naming it). The next MCP call obeys it. Writes `key.updated` with what it had before and after; the same values again write nothing. A revoked or expired credential is 409.',
  tag: 'api-keys',
  request: { params: KeyIdPath, body: () => UpdateKeyRequest },
  success: { status: 200, description: 'Narrowed (or unchanged).', schema: UpdateKeyResponse },
  errors: ['key_revoked', 'key_expired', 'not_found', 'conflict'],
  grants: { pepper: false, dynamodb: [KEY_WRITE] },
  handle:
    ({ service }) =>
    async ({ path, body, caller }) => {
      const metadata = await updateKey(service, caller.userId, path.key_id, {
        tools: body.tools,
        limits: body.limits,
      });
      countMetric('KeysNarrowed');
      return ok({ metadata });
    },
});
