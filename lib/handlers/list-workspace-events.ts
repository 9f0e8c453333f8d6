import { route } from '#lib/http/route';
import { ListWorkspaceEventsQuery, WorkspaceIdPath } from '#lib/http/workspace-schemas';
import { REQUEST_LIMITS } from '#lib/limits';
import type { Runtime } from '#lib/runtime';
import { listWorkspaceEvents } from '#lib/workspaces/history';

/** GET /v1/mcp/workspaces/{workspace_id}/events: the workspace's governance history, for its admins. */
export function listWorkspaceEventsHandler({ governance }: Runtime) {
  return route(
    {
      operation: 'listWorkspaceEvents',
      path: WorkspaceIdPath,
      query: ListWorkspaceEventsQuery,
      now: governance.now,
    },
    async ({ path, query, caller }) => {
      const page = await listWorkspaceEvents(governance, {
        userId: caller.userId,
        workspaceId: path.workspace_id,
        limit: query.limit ?? REQUEST_LIMITS.pageSize.default,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },
  );
}
