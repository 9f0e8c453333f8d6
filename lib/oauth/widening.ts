import type { Scope } from '#lib/access/scopes';
import type { RulesByWorkspace } from '#lib/access/tools';
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
 * never a second grant: the scopes it asks beyond the grant's, and any workspaces the person adds.
 * The consent page shows what is new.
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
        // Stryker disable next-line OptionalChaining: equivalent, an OAuth grant always holds its grant details
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
  // Stryker disable next-line ArrayDeclaration: equivalent, no workspace id is a made-up one
  grant.workspace_ids.filter((id) => !(grant.removed_workspace_ids ?? []).includes(id));

const refused = (errors: InputProblem[]) =>
  new AppError('validation_failed', 'The request failed validation.', { errors });

/** What the person approved for a widening: the grant's workspaces and any added; no lifetime of its own. */
export interface WideningInput {
  workspaceIds: string[];
  scopes: Scope[];
  /** Ignored: a widened grant keeps its expiry (a consent page written for first grants sends it). */
  expiresInDays?: number | undefined;
  /** The tools the person left ticked (contract §19); absent or null: every tool its scopes allow. */
  tools?: string[] | null | undefined;
}

/** A grant after a widening: its workspaces and scopes, and what was added to each. */
export interface Widened {
  workspaceIds: string[];
  scopes: Scope[];
  workspacesAdded: string[];
  scopesAdded: Scope[];
  /** The tools the person allowed; undefined: every tool its scopes allow. */
  tools: string[] | undefined;
  workspaceRules: RulesByWorkspace;
}

/**
 * Checks a widening's approval (a sign-in again while the grant is live): the person keeps every
 * workspace the grant reaches and may add others, and keeps its scopes and may add the requested
 * ones. A workspace an administrator or a policy cut the grant off from stays cut off. Create's
 * rules (memberships, roles, policies, the app) apply to the whole widened grant; its expiry stays.
 */
export async function widened(deps: OAuthDeps, grant: KeyRecord, input: WideningInput): Promise<Widened> {
  const workspaces = grantWorkspaces(grant);
  // Stryker disable next-line ArrayDeclaration: equivalent, no workspace id is a made-up one
  const removed = grant.removed_workspace_ids ?? [];
  const problems: InputProblem[] = [];
  const missing = workspaces.filter((id) => !input.workspaceIds.includes(id));
  if (missing.length > 0)
    problems.push({
      input: 'workspaceIds',
      message: `must keep the grant's workspaces (${missing.join(', ')} left out): signing in again only adds; revoke the app on the key page to remove one`,
    });
  input.workspaceIds.forEach((id, index) => {
    if (removed.includes(id))
      problems.push({
        input: 'workspaceIds',
        index,
        message: `the app was cut off from workspace ${id} by its administrator or policy; it stays cut off`,
      });
  });
  if (problems.length > 0) throw refused(problems);
  const workspacesAdded = [...new Set(input.workspaceIds.filter((id) => !workspaces.includes(id)))];
  const scopesAdded = addedScopes(grant, input.scopes);
  const scopes = [...new Set([...grant.scopes, ...scopesAdded])];
  const workspaceIds = [...workspaces, ...workspacesAdded];
  const admitted = await admitCredential(
    deps,
    { userId: grant.user_id, workspaceIds, scopes, tools: input.tools },
    // Stryker disable next-line OptionalChaining: equivalent, a live grant always holds its grant details (and its app)
    grant.grant?.client,
  );
  return {
    workspaceIds,
    scopes,
    workspacesAdded,
    scopesAdded,
    tools: admitted.tools,
    workspaceRules: admitted.workspaceRules,
  };
}

/** The event of a widening (none when nothing was added: the app signed in again). */
export const wideningEvents = (grant: KeyRecord, added: Widened, now: Date): KeyEvent[] =>
  added.scopesAdded.length > 0 || added.workspacesAdded.length > 0
    ? [grantUpdated(grant, added.scopesAdded, added.workspacesAdded, userActor(grant.user_id), now)]
    : [];

export type { GrantWidening };
