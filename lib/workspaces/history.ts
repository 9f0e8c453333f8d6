import { type GovernanceDeps, requireAdmin } from './admin.ts';
import type { GovernanceEvent } from './port.ts';

/** Contract §12: a workspace's governance events (cut-offs, policy changes), newest first. */
export async function listWorkspaceEvents(
  deps: GovernanceDeps,
  input: { userId: string; workspaceId: string; limit: number; cursor?: string | undefined },
): Promise<{ data: GovernanceEvent[]; next_cursor: string | null }> {
  await requireAdmin(deps, input.userId, input.workspaceId);
  const after = input.cursor
    ? await deps.cursors.decodeWorkspace('events', input.userId, input.workspaceId, input.cursor)
    : undefined;
  const page = await deps.workspaces.listEvents(input.workspaceId, {
    limit: input.limit,
    after: after && { occurred_at: after[0], id: after[1] },
  });
  const last = page.items.at(-1);
  return {
    data: page.items,
    next_cursor:
      page.hasMore && last
        ? await deps.cursors.encodeWorkspace('events', input.userId, input.workspaceId, [
            last.occurred_at,
            last.id,
          ])
        : null,
  };
}
