import * as z from 'zod';
import { AppError } from '#lib/errors';
import { GrantClientSchema, ScopeSchema, Timestamp, Uuid } from '#lib/http/schemas';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { Runtime } from '#lib/runtime';
import type { Grant } from './route-module.ts';

/**
 * What the three consent routes (contract §15 "The flow" 2) share: the path parameter, the
 * answer, and the OAuth use cases, which exist only where OAuth is on.
 */
export const OAuthRequestPath = z.strictObject({ request_id: Uuid });

export const OAuthRequestView = z
  .object({
    id: z.uuid(),
    client: GrantClientSchema,
    redirect_host: z
      .string()
      .meta({ description: 'Where the app will be sent back to (host, or the app’s scheme).' }),
    requested_scopes: z.array(ScopeSchema),
    resource: z.string().meta({ description: 'The MCP server the app asks to reach.' }),
    expires_at: Timestamp,
    grant: z
      .object({
        id: z.uuid(),
        scopes: z.array(ScopeSchema),
        workspace_ids: z.array(z.string()),
        expires_at: Timestamp,
      })
      .nullable()
      .meta({
        id: 'WidenedGrant',
        description:
          'The live grant the person already gave this app for this MCP server: approving widens it (scope step-up) with the approved scopes, keeping its workspaces (the approve body names them) and its expiry (the body leaves `expires_in_days` out); null when approving creates a grant.',
      }),
  })
  .meta({ id: 'OAuthRequest' });

export const OAuthDecision = z
  .object({
    redirect_to: z.string().meta({
      description: 'Where the browser goes next: the app with the code, or `error=access_denied`.',
    }),
  })
  .meta({ id: 'OAuthDecision' });

export const ScopeList = z.array(ScopeSchema);

/** The OAuth use cases; a deployment without OAuth has no request to find. */
export function oauthOf(runtime: Runtime): OAuthDeps {
  const oauth = runtime.oauth;
  if (!oauth) throw new AppError('request_not_found', 'This deployment has no OAuth sign-in.');
  return oauth;
}

/** What every consent route does to a request: claims it for its first user (UpdateItem) or reads it again (GetItem). */
export const REQUEST_GRANTS: Grant = { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], on: ['keys'] };

/** Finding the live grant a request would widen: the person's active credentials (scope step-up). */
export const LIVE_GRANT_GRANTS: Grant = { actions: ['dynamodb:Query'], on: ['keys-by-user'] };
