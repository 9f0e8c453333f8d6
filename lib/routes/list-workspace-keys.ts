import * as z from 'zod';
import {
  Cursor,
  PageLimit,
  pageOf,
  pageRequest,
  WORKSPACE_KEY_STATUSES,
  WorkspaceIdPath,
  WorkspaceKeySchema,
} from '#lib/http/schemas';
import { listWorkspaceKeys } from '#lib/workspaces/keys';
import { defineRoute, ok, pagedList } from './route-module.ts';
import { ADMINS_ONLY, inWorkspace, QUERY_WORKSPACE, READ_ROLE } from './workspace-route.ts';

export const ListWorkspaceKeysQuery = z.strictObject({
  limit: PageLimit,
  cursor: Cursor,
  status: z
    .enum(WORKSPACE_KEY_STATUSES)
    .optional()
    .meta({ description: 'Only keys with this status in this workspace (`removed`: cut off from it).' }),
});

export const ListWorkspaceKeysResponse = pageOf(WorkspaceKeySchema, 'ListWorkspaceKeysResponse');

/** GET /v1/mcp/workspaces/{workspace_id}/api-keys: the keys that reach a workspace, for its admins. */
export default defineRoute({
  name: 'list-workspace-keys',
  operationId: 'listWorkspaceKeys',
  method: 'GET',
  path: '/v1/mcp/workspaces/{workspace_id}/api-keys',
  auth: 'jwt',
  summary: 'The keys that reach (or reached) a workspace, of every creator, newest first',
  description: `${ADMINS_ONLY} Each key shows its creator and its access to this workspace, never its other workspaces. The cursor is bound to the caller and the workspace.`,
  tag: 'workspaces',
  request: { params: WorkspaceIdPath, query: ListWorkspaceKeysQuery },
  success: { status: 200, description: 'A page of keys.', schema: ListWorkspaceKeysResponse },
  ...pagedList(
    // A page: one Query of the workspace's partition, one BatchGetItem of its keys.
    [READ_ROLE, QUERY_WORKSPACE, { actions: ['dynamodb:BatchGetItem'], on: ['keys'] }],
    ['workspace_admin_required'],
  ),
  handle:
    ({ governance }) =>
    async (request) =>
      ok(
        await listWorkspaceKeys(governance, {
          ...inWorkspace(request),
          ...pageRequest(request.query),
          status: request.query.status,
        }),
      ),
});
