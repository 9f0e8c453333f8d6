import * as z from 'zod';
import {
  CredentialKindsRuleSchema,
  OAuthClientsRuleSchema,
  PolicyResponse,
  ScopeSchema,
  WorkspaceIdPath,
} from '#lib/http/schemas';
import { PolicyCap, ToolList } from '#lib/http/tool-schemas';
import { countMetric } from '#lib/observability';
import { putPolicy } from '#lib/workspaces/policy';
import { defineRoute, ok } from './route-module.ts';
import { ADMINS_ONLY, inWorkspace, QUERY_WORKSPACE, READ_ROLE } from './workspace-route.ts';

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
      oauth_clients: OAuthClientsRuleSchema.optional().meta({
        description: 'Which OAuth apps may connect (default `any`); grants it refuses are cut off.',
      }),
      credential_kinds: CredentialKindsRuleSchema.optional().meta({
        description:
          'Which kinds of credential may reach it (default every kind); the keys or grants of a kind it no longer admits are cut off.',
      }),
      allowed_tools: ToolList.nullable()
        .optional()
        .meta({ description: 'Tools AI clients may call here; null: all. It narrows, never cuts off.' }),
      max_calls_per_minute: PolicyCap('minute').optional(),
      max_calls_per_day: PolicyCap('day').optional(),
    })
    .meta({ id: 'WorkspacePolicyRequest' });
}

export const PutPolicyResponse = z
  .object({
    ...PolicyResponse.shape,
    affected_keys: z.number().int().meta({
      description:
        'Active keys the new policy cuts off from the workspace; they lose it asynchronously, within 60 s.',
    }),
  })
  .meta({ id: 'PutWorkspacePolicyResponse' });

/**
 * PUT /v1/mcp/workspaces/{workspace_id}/policy: an administrator (with a recent login, as for
 * create) sets the policy; the keys it refuses lose the workspace asynchronously (the fan-out,
 * lib/handlers/apply-workspace-policy.ts).
 */
export default defineRoute({
  name: 'put-workspace-policy',
  operationId: 'putWorkspacePolicy',
  method: 'PUT',
  path: '/v1/mcp/workspaces/{workspace_id}/policy',
  auth: 'step-up',
  summary: 'Set the workspace’s policy; keys it refuses lose the workspace within 60 s',
  description: `${ADMINS_ONLY} Needs a verified email and a login from the last 900 s. Create and rotate obey it (403 \`workspace_policy_denied\`; \`expires_in_days\` above \`max_expiry_days\` is 400). Existing active keys it refuses (workspace disabled, a scope no longer allowed, a kind of credential or an app it no longer admits) are cut off asynchronously, each with its \`key.workspace_removed\` event (\`reason: policy\`); \`affected_keys\` counts them. Writes \`workspace.policy_changed\`; the same policy again writes nothing.`,
  tag: 'workspaces',
  request: { params: WorkspaceIdPath, body: (settings) => policyBody(settings.maxExpiryDays) },
  success: { status: 200, description: 'Stored; the cut-offs follow.', schema: PutPolicyResponse },
  errors: ['workspace_admin_required', 'conflict'],
  grants: {
    pepper: false,
    // It reads the policy and counts the keys it refuses, then writes the policy and its event.
    dynamodb: [
      READ_ROLE,
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem'], on: ['keys'] },
      QUERY_WORKSPACE,
    ],
  },
  handle:
    ({ governance }) =>
    async (request) => {
      const policy = await putPolicy(governance, { ...inWorkspace(request), policy: request.body });
      countMetric('WorkspacePolicyChanges');
      return ok(policy);
    },
});
