import * as z from 'zod';
import { ACTOR_TYPES } from '#lib/events/model';
import {
  Cursor,
  Details,
  PageLimit,
  PolicyFields,
  pageOf,
  pageRequest,
  Timestamp,
  WorkspaceIdPath,
} from '#lib/http/schemas';
import { listWorkspaceEvents } from '#lib/workspaces/history';
import { defineRoute, ok, pagedList } from './route-module.ts';
import { ADMINS_ONLY, inWorkspace, QUERY_WORKSPACE, READ_ROLE } from './workspace-route.ts';

export const ListWorkspaceEventsQuery = z.strictObject({ limit: PageLimit, cursor: Cursor });

const Actor = z.object({ type: z.enum(ACTOR_TYPES), id: z.string().nullable() });
const Policy = z.object(PolicyFields).meta({ id: 'WorkspacePolicy' });

const WorkspaceRemovedEvent = z.object({
  id: z.uuid(),
  type: z.literal('key.workspace_removed'),
  occurred_at: Timestamp,
  key_id: z.uuid(),
  lineage_id: z.uuid(),
  user_id: z.string().meta({ description: 'The key’s creator.' }),
  actor: Actor,
  details: Details['key.workspace_removed'],
});
const PolicyChangedEvent = z.object({
  id: z.uuid(),
  type: z.literal('workspace.policy_changed'),
  occurred_at: Timestamp,
  key_id: z.null(),
  lineage_id: z.null(),
  user_id: z.null(),
  actor: Actor,
  details: z.object({ workspace_id: z.uuid(), before: Policy, after: Policy }),
});

export const WorkspaceEventSchema = z
  .discriminatedUnion('type', [WorkspaceRemovedEvent, PolicyChangedEvent])
  .meta({ id: 'WorkspaceEvent' });
export const ListWorkspaceEventsResponse = pageOf(WorkspaceEventSchema, 'ListWorkspaceEventsResponse');

/** GET /v1/mcp/workspaces/{workspace_id}/events: the workspace's governance history, for its admins. */
export default defineRoute({
  name: 'list-workspace-events',
  operationId: 'listWorkspaceEvents',
  method: 'GET',
  path: '/v1/mcp/workspaces/{workspace_id}/events',
  auth: 'jwt',
  summary: 'The workspace’s governance history: cut-offs and policy changes, newest first',
  description: `${ADMINS_ONLY} The same events are published to Amazon EventBridge like the key events.`,
  tag: 'workspaces',
  request: { params: WorkspaceIdPath, query: ListWorkspaceEventsQuery },
  success: { status: 200, description: 'A page of events.', schema: ListWorkspaceEventsResponse },
  ...pagedList([READ_ROLE, QUERY_WORKSPACE], ['workspace_admin_required']),
  handle:
    ({ governance }) =>
    async (request) =>
      ok(await listWorkspaceEvents(governance, { ...inWorkspace(request), ...pageRequest(request.query) })),
});
