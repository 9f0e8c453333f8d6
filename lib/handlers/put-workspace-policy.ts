import { route } from '#lib/http/route';
import { policyBody, WorkspaceIdPath } from '#lib/http/workspace-schemas';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';
import { putPolicy } from '#lib/workspaces/policy';

/**
 * PUT /v1/mcp/workspaces/{workspace_id}/policy: an administrator (with a recent login, as for
 * create) sets the policy; the keys it refuses lose the workspace asynchronously.
 */
export function putWorkspacePolicyHandler({ governance }: Runtime) {
  return route(
    {
      operation: 'putWorkspacePolicy',
      path: WorkspaceIdPath,
      body: policyBody(governance.settings.maxExpiryDays),
      stepUp: true,
      now: governance.now,
    },
    async ({ path, body, caller }) => {
      logger.appendKeys({ workspace_id: path.workspace_id });
      const policy = await putPolicy(governance, {
        userId: caller.userId,
        workspaceId: path.workspace_id,
        policy: body,
      });
      countMetric('WorkspacePolicyChanges');
      return { status: 200, body: policy };
    },
  );
}
