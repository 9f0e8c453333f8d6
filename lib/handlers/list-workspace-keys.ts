import { route } from '#lib/http/route';
import { ListWorkspaceKeysQuery, WorkspaceIdPath } from '#lib/http/workspace-schemas';
import { REQUEST_LIMITS } from '#lib/limits';
import type { Runtime } from '#lib/runtime';
import { listWorkspaceKeys } from '#lib/workspaces/keys';

/** GET /v1/mcp/workspaces/{workspace_id}/api-keys: the keys that reach a workspace, for its admins. */
export function listWorkspaceKeysHandler({ governance }: Runtime) {
  return route(
    {
      operation: 'listWorkspaceKeys',
      path: WorkspaceIdPath,
      query: ListWorkspaceKeysQuery,
      now: governance.now,
    },
    async ({ path, query, caller }) => {
      const page = await listWorkspaceKeys(governance, {
        userId: caller.userId,
        workspaceId: path.workspace_id,
        limit: query.limit ?? REQUEST_LIMITS.pageSize.default,
        cursor: query.cursor,
        status: query.status,
      });
      return { status: 200, body: page };
    },
  );
}
