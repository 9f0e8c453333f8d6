import * as z from 'zod';
import { ACTOR_TYPES } from '#lib/events/model';
import { KEY_STATUSES } from '#lib/keys/model';
import { Cursor, Details, PageLimit, ScopeSchema, Timestamp, Uuid } from './schemas.ts';

/**
 * Request and response schemas of workspace governance (contract §12). Handlers validate with
 * them and `npm run openapi` documents the same objects.
 */

export const WorkspaceIdPath = z.strictObject({ workspace_id: Uuid });
export const WorkspaceKeyPath = z.strictObject({ workspace_id: Uuid, key_id: Uuid });

export const WORKSPACE_KEY_STATUSES = [...KEY_STATUSES, 'removed'] as const;

export const ListWorkspaceKeysQuery = z.strictObject({
  limit: PageLimit,
  cursor: Cursor,
  status: z
    .enum(WORKSPACE_KEY_STATUSES)
    .optional()
    .meta({ description: 'Only keys with this status in this workspace (`removed`: cut off from it).' }),
});
export const ListWorkspaceEventsQuery = z.strictObject({ limit: PageLimit, cursor: Cursor });

export const WorkspaceKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key_hint: z.string().meta({ example: 'svc_mcp_v1_…Q9xZ' }),
    scopes: z.array(ScopeSchema),
    user_id: z.string().meta({ description: 'The key’s creator.' }),
    status: z.enum(WORKSPACE_KEY_STATUSES).meta({
      description: '`removed` once the key was cut off from this workspace, whatever its state elsewhere.',
    }),
    workspace_access: z.enum(['active', 'removed']),
    created_at: Timestamp,
    expires_at: Timestamp,
    last_used_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
    rotated_from: z.uuid().nullable(),
    replaced_by: z.uuid().nullable(),
  })
  .meta({
    id: 'WorkspaceKey',
    description: 'A key as the workspace’s administrators see it: never the key’s other workspaces.',
  });

export const ListWorkspaceKeysResponse = z
  .object({ data: z.array(WorkspaceKeySchema), next_cursor: z.string().nullable() })
  .meta({ id: 'ListWorkspaceKeysResponse' });
export const CutOffKeyResponse = z.object({ metadata: WorkspaceKeySchema }).meta({ id: 'CutOffKeyResponse' });

/** The policy body; `maxExpiryDays` is the deployment maximum. */
export function policyBody(maxExpiryDays: number) {
  return z
    .strictObject({
      mcp_access: z.enum(['enabled', 'disabled']).meta({ description: '`disabled`: no key may reach it.' }),
      allowed_scopes: z
        .array(ScopeSchema)
        .max(3, 'must list at most 3 scopes')
        .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope')
        .meta({ description: 'Scopes a key may hold for this workspace.' }),
      max_expiry_days: z
        .number()
        .int('must be a whole number of days')
        .min(1, 'must be at least 1')
        .max(maxExpiryDays, `must be at most ${maxExpiryDays} (the deployment maximum)`)
        .nullable()
        .meta({ description: 'Longest lifetime of a new or rotated key; `null`: the deployment maximum.' }),
    })
    .meta({ id: 'WorkspacePolicyRequest' });
}

const PolicyFields = {
  mcp_access: z.enum(['enabled', 'disabled']),
  allowed_scopes: z.array(ScopeSchema),
  max_expiry_days: z.number().int().nullable(),
};
const Policy = z.object(PolicyFields).meta({ id: 'WorkspacePolicy' });

export const PolicyResponse = z
  .object({
    ...PolicyFields,
    updated_at: Timestamp.nullable().meta({ description: 'Null while the default applies.' }),
    updated_by: z.string().nullable(),
  })
  .meta({ id: 'WorkspacePolicyResponse' });
export const PutPolicyResponse = z
  .object({
    ...PolicyResponse.shape,
    affected_keys: z.number().int().meta({
      description:
        'Active keys the new policy cuts off from the workspace; they lose it asynchronously, within 60 s.',
    }),
  })
  .meta({ id: 'PutWorkspacePolicyResponse' });

const Actor = z.object({ type: z.enum(ACTOR_TYPES), id: z.string().nullable() });

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
export const ListWorkspaceEventsResponse = z
  .object({ data: z.array(WorkspaceEventSchema), next_cursor: z.string().nullable() })
  .meta({ id: 'ListWorkspaceEventsResponse' });
