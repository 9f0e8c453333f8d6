import type { Scope } from '#lib/access/scopes';
import { AppError, type InputProblem } from '#lib/errors';
import { grantUpdated, type KeyEvent, userActor } from '#lib/events/model';
import { admitCredential } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import { activeCredentialsOf } from '#lib/keys/service';
import { type OAuthDeps, sameResource } from './deps.ts';
import type { AuthorizationRequest } from './model.ts';
import type { GrantWidening } from './port.ts';

/**
 * Scope step-up (SEP-2350, contract §15 revised in turn 5): an app that asks again, for the same
 * person and MCP server, while its grant is live, has that grant widened when the person approves,
 * never a second grant. The consent page shows only what it adds.
 */

/**
 * The live grant `userId` gave the request's client for its resource, if any: read from the
 * person's active credentials (at most the active-key cap of them).
 */
export async function liveGrantFor(
  deps: OAuthDeps,
  userId: string,
  request: Pick<AuthorizationRequest, 'client' | 'resource'>,
): Promise<KeyRecord | undefined> {
  for await (const page of activeCredentialsOf(deps, userId)) {
    const found = page.find(
      (record) =>
        record.kind === 'oauth_grant' &&
        record.grant?.client.id === request.client.id &&
        sameResource(record.grant.resource, request.resource),
    );
    if (found) return found;
  }
  return undefined;
}

/** What the request asks beyond what the grant has. */
export const addedScopes = (grant: Pick<KeyRecord, 'scopes'>, asked: readonly Scope[]): Scope[] =>
  asked.filter((scope) => !grant.scopes.includes(scope));

/** The workspaces a grant reaches now (those an administrator or a policy cut it off from aside). */
export const grantWorkspaces = (grant: KeyRecord): string[] =>
  grant.workspace_ids.filter((id) => !(grant.removed_workspace_ids ?? []).includes(id));

const refused = (errors: InputProblem[]) =>
  new AppError('validation_failed', 'The request failed validation.', { errors });

/** What the person approved for a widening: the same workspaces, no lifetime of its own. */
export interface WideningInput {
  workspaceIds: string[];
  scopes: Scope[];
  expiresInDays?: number | undefined;
}

/**
 * Checks a widening's approval and returns the grant's scopes after it: its own and the approved
 * ones. The workspaces stay the grant's (the body names them, as the page shows them) and so does
 * its expiry; create's rules (roles, policies, the app) apply to the widened scopes.
 */
export async function widenedScopes(
  deps: OAuthDeps,
  grant: KeyRecord,
  input: WideningInput,
): Promise<Scope[]> {
  const workspaces = grantWorkspaces(grant);
  const same =
    input.workspaceIds.length === workspaces.length &&
    workspaces.every((id) => input.workspaceIds.includes(id));
  if (!same)
    throw refused([
      {
        input: 'workspaceIds',
        message: `must be the grant's workspaces (${workspaces.join(', ')}): a widening keeps them`,
      },
    ]);
  if (input.expiresInDays !== undefined)
    throw refused([
      { input: 'expiresInDays', message: 'must be left out: a widened grant keeps its expiry' },
    ]);
  const scopes = [...new Set([...grant.scopes, ...addedScopes(grant, input.scopes)])];
  await admitCredential(
    deps,
    { userId: grant.user_id, workspaceIds: workspaces, scopes },
    grant.grant?.client,
  );
  return scopes;
}

/** The event of a widening (none when nothing was added: the app signed in again). */
export const wideningEvents = (grant: KeyRecord, added: Scope[], now: Date): KeyEvent[] =>
  added.length > 0 ? [grantUpdated(grant, added, userActor(grant.user_id), now)] : [];

export type { GrantWidening };
