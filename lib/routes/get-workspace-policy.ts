import { PolicyResponse, WorkspaceIdPath } from '#lib/http/schemas';
import { getPolicy } from '#lib/workspaces/policy';
import { defineRoute, ok } from './route-module.ts';
import { READ_ROLE } from './workspace-route.ts';

/** GET /v1/mcp/workspaces/{workspace_id}/policy: any current member reads the workspace's policy. */
export default defineRoute({
  name: 'get-workspace-policy',
  operationId: 'getWorkspacePolicy',
  method: 'GET',
  path: '/v1/mcp/workspaces/{workspace_id}/policy',
  auth: 'jwt',
  summary: 'The workspace’s policy for MCP keys',
  description: 'Any current member may read it. Default: enabled, every scope, `max_expiry_days: null`.',
  tag: 'workspaces',
  request: { params: WorkspaceIdPath },
  success: { status: 200, description: 'The policy.', schema: PolicyResponse },
  errors: ['workspace_access_denied'],
  grants: {
    pepper: false,
    dynamodb: [READ_ROLE, { actions: ['dynamodb:GetItem'], on: ['keys'] }],
  },
  handle:
    ({ governance }) =>
    async ({ path, caller }) =>
      ok(await getPolicy(governance, caller.userId, path.workspace_id)),
});
