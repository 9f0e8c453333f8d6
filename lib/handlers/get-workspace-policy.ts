import { route } from '#lib/http/route';
import { WorkspaceIdPath } from '#lib/http/workspace-schemas';
import type { Runtime } from '#lib/runtime';
import { getPolicy } from '#lib/workspaces/policy';

/** GET /v1/mcp/workspaces/{workspace_id}/policy: any current member reads the workspace's policy. */
export function getWorkspacePolicyHandler({ governance }: Runtime) {
  return route(
    { operation: 'getWorkspacePolicy', path: WorkspaceIdPath, now: governance.now },
    async ({ path, caller }) => ({
      status: 200,
      body: await getPolicy(governance, caller.userId, path.workspace_id),
    }),
  );
}
