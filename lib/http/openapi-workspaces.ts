import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import type { ErrorCode } from '#lib/errors';
import {
  CutOffKeyResponse,
  ListWorkspaceEventsQuery,
  ListWorkspaceEventsResponse,
  ListWorkspaceKeysQuery,
  ListWorkspaceKeysResponse,
  PolicyResponse,
  PutPolicyResponse,
  policyBody,
  WorkspaceIdPath,
  WorkspaceKeyPath,
} from './workspace-schemas.ts';

/** What the main document lends the workspace routes. */
export interface PathKit {
  security: { [name: string]: string[] }[];
  common: ErrorCode[];
  errorResponses: (codes: ErrorCode[]) => RouteConfig['responses'];
  requestIdHeader: Record<string, { description: string; schema: { type: 'string' } }>;
}

/** The error codes of each workspace governance route (contract §12). */
export const WORKSPACE_ROUTE_CODES = {
  listWorkspaceKeys: ['invalid_cursor', 'workspace_admin_required'],
  cutOffKey: ['workspace_admin_required', 'not_found', 'conflict'],
  listWorkspaceEvents: ['invalid_cursor', 'workspace_admin_required'],
  getWorkspacePolicy: ['workspace_access_denied'],
  putWorkspacePolicy: [
    'reauthentication_required',
    'email_not_verified',
    'workspace_admin_required',
    'conflict',
  ],
} satisfies Record<string, ErrorCode[]>;

/** Registers the workspace governance paths (contract §12). */
export function registerWorkspacePaths(registry: OpenAPIRegistry, kit: PathKit, maxExpiryDays: number): void {
  const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
  const ok = <T extends z.ZodType>(description: string, schema: T) => ({
    description,
    headers: kit.requestIdHeader,
    ...json(schema),
  });
  const errors = (codes: ErrorCode[]) => kit.errorResponses([...kit.common, ...codes]);
  const admins = 'Only the workspace’s current `admin`s and `owner`s (read at the time of the call).';

  registry.registerPath({
    method: 'get',
    path: '/v1/mcp/workspaces/{workspace_id}/api-keys',
    operationId: 'listWorkspaceKeys',
    summary: 'The keys that reach (or reached) a workspace, of every creator, newest first',
    description: `${admins} Each key shows its creator and its access to this workspace, never its other workspaces. The cursor is bound to the caller and the workspace.`,
    security: kit.security,
    request: { params: WorkspaceIdPath, query: ListWorkspaceKeysQuery },
    responses: {
      200: ok('A page of keys.', ListWorkspaceKeysResponse),
      ...errors(WORKSPACE_ROUTE_CODES.listWorkspaceKeys),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}',
    operationId: 'cutOffWorkspaceKey',
    summary: 'Cut a key off from the workspace, at once and idempotently',
    description: `${admins} The workspace leaves the key (and every key rotated from it): its next MCP call already lacks it. A key left with no workspace is revoked in the same transaction. Writes \`key.workspace_removed\` (and \`key.revoked\`); a repeat writes nothing. A key that never reached the workspace is 404.`,
    security: kit.security,
    request: { params: WorkspaceKeyPath },
    responses: {
      200: ok('Cut off (or already cut off).', CutOffKeyResponse),
      ...errors(WORKSPACE_ROUTE_CODES.cutOffKey),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/mcp/workspaces/{workspace_id}/policy',
    operationId: 'getWorkspacePolicy',
    summary: 'The workspace’s policy for MCP keys',
    description: 'Any current member may read it. Default: enabled, every scope, `max_expiry_days: null`.',
    security: kit.security,
    request: { params: WorkspaceIdPath },
    responses: {
      200: ok('The policy.', PolicyResponse),
      ...errors(WORKSPACE_ROUTE_CODES.getWorkspacePolicy),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/v1/mcp/workspaces/{workspace_id}/policy',
    operationId: 'putWorkspacePolicy',
    summary: 'Set the workspace’s policy; keys it refuses lose the workspace within 60 s',
    description: `${admins} Needs a verified email and a login from the last 900 s. Create and rotate obey it (403 \`workspace_policy_denied\`; \`expires_in_days\` above \`max_expiry_days\` is 400). Existing active keys it refuses (workspace disabled, or a scope no longer allowed) are cut off asynchronously, each with its \`key.workspace_removed\` event (\`reason: policy\`); \`affected_keys\` counts them. Writes \`workspace.policy_changed\`; the same policy again writes nothing.`,
    security: kit.security,
    request: { params: WorkspaceIdPath, body: { required: true, ...json(policyBody(maxExpiryDays)) } },
    responses: {
      200: ok('Stored; the cut-offs follow.', PutPolicyResponse),
      ...errors(WORKSPACE_ROUTE_CODES.putWorkspacePolicy),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/mcp/workspaces/{workspace_id}/events',
    operationId: 'listWorkspaceEvents',
    summary: 'The workspace’s governance history: cut-offs and policy changes, newest first',
    description: `${admins} The same events are published to Amazon EventBridge like the key events.`,
    security: kit.security,
    request: { params: WorkspaceIdPath, query: ListWorkspaceEventsQuery },
    responses: {
      200: ok('A page of events.', ListWorkspaceEventsResponse),
      ...errors(WORKSPACE_ROUTE_CODES.listWorkspaceEvents),
    },
  });
}
