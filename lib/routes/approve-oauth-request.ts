import * as z from 'zod';
import { credentialFields } from '#lib/http/schemas';
import { approve } from '#lib/oauth/consent';
import { countMetric } from '#lib/observability';
import {
  LIVE_GRANT_GRANTS,
  OAuthDecision,
  OAuthRequestPath,
  oauthOf,
  REQUEST_GRANTS,
} from './oauth-consent.ts';
import { defineRoute, ok } from './route-module.ts';

/** The approve body: what create asks of a key, without a name (the app's name is the grant's). */
export function approveBody(maxExpiryDays: number) {
  return z.strictObject(credentialFields(maxExpiryDays)).meta({ id: 'ApproveOAuthRequest' });
}

/** POST /v1/mcp/oauth/requests/{request_id}/approve: the grant, under create's rules. */
export default defineRoute({
  name: 'approve-oauth-request',
  operationId: 'approveOAuthRequest',
  method: 'POST',
  path: '/v1/mcp/oauth/requests/{request_id}/approve',
  auth: 'step-up',
  summary: 'Approve an app’s sign-in request: the grant is created',
  description:
    'Needs what creating a key needs (a verified email, a login from the last 900 s); the body is refused as create would refuse it (same status, code and per-workspace `errors`). A repeated approve answers the same `redirect_to`. When the request widens a live grant (its `grant`), the grant gets the approved scopes besides its own (`grant.updated`) and the approved `tools` (absent or null: every tool), the body names the grant’s workspaces and leaves `expires_in_days` out, and no second grant is made.',
  tag: 'oauth-consent',
  request: { params: OAuthRequestPath, body: (settings) => approveBody(settings.maxExpiryDays) },
  success: {
    status: 200,
    description: 'Approved: send the browser to `redirect_to`.',
    schema: OAuthDecision,
  },
  errors: [
    'request_not_found',
    'account_disabled',
    'workspace_access_denied',
    'workspace_policy_denied',
    'key_limit_reached',
    'conflict',
  ],
  grants: {
    pepper: true,
    dynamodb: [
      // The grant inserted as create inserts a key (its slot, index entries, event), the request marked approved.
      { ...REQUEST_GRANTS, actions: [...REQUEST_GRANTS.actions, 'dynamodb:PutItem'] },
      // The person's roles and the workspaces' policies.
      { actions: ['dynamodb:BatchGetItem'], on: ['memberships', 'keys'] },
      // The live grant a widening updates (its item, index entries and event: UpdateItem, PutItem above).
      LIVE_GRANT_GRANTS,
    ],
  },
  handle:
    (runtime) =>
    async ({ path, body, caller }) => {
      const decision = await approve(oauthOf(runtime), caller.userId, path.request_id, {
        workspaceIds: body.workspace_ids,
        scopes: body.scopes,
        expiresInDays: body.expires_in_days,
        tools: body.tools,
        limits: body.limits,
      });
      countMetric('GrantsCreated');
      return ok(decision);
    },
});
