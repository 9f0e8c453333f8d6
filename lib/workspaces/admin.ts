import type { Role } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import type { KeyServiceDeps } from '#lib/keys/lifecycle';
import type { WorkspaceStore } from './port.ts';

/** What governance needs: the key service's parts, and the workspace side of the store. */
export interface GovernanceDeps extends KeyServiceDeps {
  workspaces: WorkspaceStore;
}

/** What cutting keys off needs (the policy fan-out and the index backfill run with only this). */
export type CutOffDeps = Pick<GovernanceDeps, 'keys' | 'workspaces' | 'now'>;

const ADMIN_ROLES: readonly Role[] = ['admin', 'owner'];

/** The caller's current role in the workspace (strongly consistent), if a member. */
async function roleIn(deps: GovernanceDeps, userId: string, workspaceId: string) {
  return (await deps.memberships.rolesFor(userId, [workspaceId])).get(workspaceId);
}

/** Contract §12: admins and owners only, decided at the time of the call. */
export async function requireAdmin(deps: GovernanceDeps, userId: string, workspaceId: string) {
  const role = await roleIn(deps, userId, workspaceId);
  if (!role || !ADMIN_ROLES.includes(role)) {
    throw new AppError(
      'workspace_admin_required',
      'Only an administrator or owner of this workspace may do this.',
    );
  }
}

/** Reading a policy needs only membership. */
export async function requireMember(deps: GovernanceDeps, userId: string, workspaceId: string) {
  if (!(await roleIn(deps, userId, workspaceId))) {
    throw new AppError('workspace_access_denied', 'You are not a member of this workspace.');
  }
}
