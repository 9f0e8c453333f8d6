import { WORKSPACE_PREFIX } from '#lib/store/workspace-items';
import type { Grant } from './route-module.ts';

/**
 * What the workspace governance routes (contract §12) share. Their grants: every call first reads
 * the caller's role in the workspace, and their Queries stay in workspace partitions.
 */
export const READ_ROLE: Grant = { actions: ['dynamodb:BatchGetItem'], on: ['memberships'] };

/** A Query of workspace partitions only (the workspace's index entries, policy and history). */
export const QUERY_WORKSPACE: Grant = {
  actions: ['dynamodb:Query'],
  on: ['keys'],
  conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${WORKSPACE_PREFIX}*`] } },
};

/** Who asks about which workspace: the input every governance use case starts from. */
export const inWorkspace = ({
  caller,
  path,
}: {
  caller: { userId: string };
  path: { workspace_id: string };
}) => ({
  userId: caller.userId,
  workspaceId: path.workspace_id,
});

/** One sentence every admin-only operation's description starts with. */
export const ADMINS_ONLY =
  'Only the workspace’s current `admin`s and `owner`s (read at the time of the call).';
