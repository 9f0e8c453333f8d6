import * as z from 'zod';
import { WorkspaceKeyPath, WorkspaceKeySchema } from '#lib/http/schemas';
import { countMetric } from '#lib/observability';
import { removeKeyFromWorkspace } from '#lib/workspaces/keys';
import { defineRoute, KEY_WRITE, ok } from './route-module.ts';
import { ADMINS_ONLY, inWorkspace, READ_ROLE } from './workspace-route.ts';

export const CutOffKeyResponse = z.object({ metadata: WorkspaceKeySchema }).meta({ id: 'CutOffKeyResponse' });

/** DELETE /v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}: an admin cuts a key off, idempotently. */
export default defineRoute({
  name: 'cut-off-key',
  operationId: 'cutOffWorkspaceKey',
  method: 'DELETE',
  path: '/v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}',
  auth: 'jwt',
  summary: 'Cut a key off from the workspace, at once and idempotently',
  description: `${ADMINS_ONLY} The workspace leaves the key (and every key rotated from it): its next MCP call already lacks it. A key left with no workspace is revoked in the same transaction. Writes \`key.workspace_removed\` (and \`key.revoked\`); a repeat writes nothing. A key that never reached the workspace is 404.`,
  tag: 'workspaces',
  request: { params: WorkspaceKeyPath },
  success: { status: 200, description: 'Cut off (or already cut off).', schema: CutOffKeyResponse },
  errors: ['workspace_admin_required', 'not_found', 'conflict'],
  grants: {
    pepper: false,
    // The key, its entry and its successors are read; one transaction updates and puts.
    dynamodb: [READ_ROLE, KEY_WRITE],
  },
  handle:
    ({ governance }) =>
    async (request) => {
      const metadata = await removeKeyFromWorkspace(governance, {
        ...inWorkspace(request),
        keyId: request.path.key_id,
      });
      countMetric('KeysCutOff');
      return ok({ metadata });
    },
});
