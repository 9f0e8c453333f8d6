import { route } from '#lib/http/route';
import { WorkspaceKeyPath } from '#lib/http/workspace-schemas';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';
import { removeKeyFromWorkspace } from '#lib/workspaces/keys';

/** DELETE /v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}: an admin cuts a key off, idempotently. */
export function cutOffKeyHandler({ governance }: Runtime) {
  return route(
    { operation: 'cutOffKey', path: WorkspaceKeyPath, now: governance.now },
    async ({ path, caller }) => {
      logger.appendKeys({ key_id: path.key_id, workspace_id: path.workspace_id });
      const metadata = await removeKeyFromWorkspace(governance, {
        userId: caller.userId,
        workspaceId: path.workspace_id,
        keyId: path.key_id,
      });
      countMetric('KeysCutOff');
      return { status: 200, body: { metadata } };
    },
  );
}
