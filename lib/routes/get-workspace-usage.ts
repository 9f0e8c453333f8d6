import { WorkspaceIdPath } from '#lib/http/schemas';
import { WorkspaceUsageQuery, WorkspaceUsageResponse } from '#lib/http/usage-schemas';
import { workspaceUsage } from '#lib/workspaces/usage';
import { defineRoute, ok } from './route-module.ts';
import { QUERY_USAGE } from './usage-grant.ts';
import { ADMINS_ONLY, inWorkspace, QUERY_WORKSPACE, READ_ROLE } from './workspace-route.ts';

/** GET /v1/mcp/workspaces/{workspace_id}/usage: what the credentials reaching the workspace did (contract §18). */
export default defineRoute({
  name: 'get-workspace-usage',
  operationId: 'getWorkspaceUsage',
  method: 'GET',
  path: '/v1/mcp/workspaces/{workspace_id}/usage',
  auth: 'jwt',
  summary:
    'What the keys and connected apps reaching the workspace did, grouped, and revoked ones still presented',
  description: `${ADMINS_ONLY} Sums, by day, the usage of every credential that reaches or reached the workspace (its 1,000 newest), grouped by \`group_by\`, and lists those refused as revoked in the range.`,
  tag: 'workspaces',
  request: { params: WorkspaceIdPath, query: WorkspaceUsageQuery },
  success: { status: 200, description: 'The workspace’s usage.', schema: WorkspaceUsageResponse },
  errors: ['workspace_admin_required'],
  grants: {
    pepper: false,
    dynamodb: [READ_ROLE, QUERY_WORKSPACE, { actions: ['dynamodb:BatchGetItem'], on: ['keys'] }, QUERY_USAGE],
  },
  handle:
    ({ governance }) =>
    async (request) =>
      ok(
        await workspaceUsage(governance, {
          ...inWorkspace(request),
          from: request.query.from,
          to: request.query.to,
          groupBy: request.query.group_by,
        }),
      ),
});
