import type { ToolCatalogue } from '#lib/access/tools';
import { callsWithUnknownTool, unusedRiskyTools } from '#lib/keys/least-privilege';
import { type CredentialKind, credentialKind, keyStatus } from '#lib/keys/model';
import { catalogueOf } from '#lib/keys/service';
import { emptyTally, mergeTally, type Tally } from '#lib/usage/model';
import {
  bucketsOf,
  daysIn,
  inTurn,
  totalOf,
  type UsageDeps,
  type UsageGrouping,
  usageRange,
} from '#lib/usage/report';
import { type GovernanceDeps, requireAdmin } from './admin.ts';
import type { WorkspaceKey } from './port.ts';

/** The administrators' view of the usage of the credentials reaching their workspace (contract §18). */

/** The workspace view sums the usage of at most this many credentials (the newest). */
export const MAX_WORKSPACE_CREDENTIALS = 1000;
/** Groups a workspace view returns, the most used first. */
export const MAX_GROUPS = 100;

export interface WorkspaceUsageInput {
  userId: string;
  workspaceId: string;
  from?: string | undefined;
  to?: string | undefined;
  groupBy?: UsageGrouping | undefined;
}

interface CredentialTotal {
  key: WorkspaceKey;
  total: Tally;
}

/** A group of the workspace view: its key (a credential's id, a client's id, a tool's name) and its totals. */
export interface UsageGroup extends Tally {
  key: string;
  kind?: CredentialKind;
  user_id?: string;
  client_name?: string;
}

/** API keys have no OAuth client: the client view groups them under this key. */
export const API_KEYS_GROUP = 'api_key';

function groupsOf(totals: readonly CredentialTotal[], groupBy: UsageGrouping): UsageGroup[] {
  const groups = new Map<string, UsageGroup>();
  const into = (key: string, fields: Omit<UsageGroup, 'key' | keyof Tally>, tally: Tally) => {
    const group = groups.get(key) ?? { key, ...fields, ...emptyTally() };
    mergeTally(group, tally);
    groups.set(key, group);
  };
  for (const { key, total } of totals) {
    const record = key.record;
    if (groupBy === 'credential')
      into(record.id, { kind: credentialKind(record), user_id: record.user_id }, total);
    else if (groupBy === 'client') {
      const client = record.grant?.client;
      into(client?.id ?? API_KEYS_GROUP, client ? { client_name: client.name } : {}, total);
    } else
      for (const [tool, n] of Object.entries(total.tools))
        into(tool, {}, { calls: n, refused: {}, tools: { [tool]: n } });
  }
  return [...groups.values()]
    .filter((g) => g.calls > 0)
    .sort((a, b) => b.calls - a.calls || a.key.localeCompare(b.key))
    .slice(0, MAX_GROUPS);
}

/** Every credential that reaches or reached the workspace, newest first, up to MAX_WORKSPACE_CREDENTIALS. */
async function credentialsOf(deps: GovernanceDeps, workspaceId: string): Promise<WorkspaceKey[]> {
  const keys: WorkspaceKey[] = [];
  let after: { created_at: string; id: string } | undefined;
  const now = deps.now();
  do {
    const page = await deps.workspaces.listKeys(workspaceId, { limit: 100, after, now });
    keys.push(...page.items);
    const last = page.items.at(-1)?.entry;
    after = page.hasMore && last ? { created_at: last.created_at, id: last.key_id } : undefined;
  } while (after && keys.length < MAX_WORKSPACE_CREDENTIALS);
  return keys.slice(0, MAX_WORKSPACE_CREDENTIALS);
}

/**
 * Contract §18: the usage of every credential that reaches the workspace, for its administrators
 * (as §12's view), grouped, with the credentials refused as revoked in the range: the sign of a
 * leaked or forgotten one.
 */
export async function workspaceUsage(deps: GovernanceDeps & UsageDeps, input: WorkspaceUsageInput) {
  const range = usageRange({ ...input, granularity: 'day' }, deps.now());
  await requireAdmin(deps, input.userId, input.workspaceId);
  const keys = await credentialsOf(deps, input.workspaceId);
  const totals = await inTurn(keys, async (key) => ({
    key,
    total: totalOf(bucketsOf(await daysIn(deps, key.record.id, range), range)),
  }));
  const groupBy = input.groupBy ?? 'credential';
  return {
    workspace_id: input.workspaceId,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    group_by: groupBy,
    total: totalOf(totals.map((t) => t.total)),
    groups: groupsOf(totals, groupBy),
    revoked_still_presented: totals
      .filter(({ total }) => (total.refused.revoked ?? 0) > 0)
      .map(({ key, total }) => ({
        credential_id: key.record.id,
        kind: credentialKind(key.record),
        name: key.record.name,
        user_id: key.record.user_id,
        revoked_at: key.record.revoked_at ?? null,
        presented: total.refused.revoked as number,
      }))
      .sort((a, b) => b.presented - a.presented),
    unused_write_tools: unusedWriteTools(
      catalogueOf(deps),
      input.workspaceId,
      totals,
      range.from,
      deps.now(),
    ),
  };
}

/**
 * Contract §19: the active credentials, older than the range, holding write or destructive tools
 * in the workspace that they did not call in the range (30 days by default), with how many of
 * their calls named no tool we could read (while any, the tool may have been one of those).
 */
function unusedWriteTools(
  catalogue: ToolCatalogue,
  workspaceId: string,
  totals: readonly CredentialTotal[],
  from: Date,
  now: Date,
) {
  return totals
    .filter(
      ({ key }) =>
        key.entry.workspace_access === 'active' &&
        keyStatus(key.record, now) === 'active' &&
        key.record.created_at <= from.toISOString(),
    )
    .map(({ key, total }) => ({
      credential_id: key.record.id,
      kind: credentialKind(key.record),
      name: key.record.name,
      user_id: key.record.user_id,
      tools: unusedRiskyTools(catalogue, key.record, workspaceId, total),
      calls_tool_unknown: callsWithUnknownTool(total),
    }))
    .filter((c) => c.tools.length > 0);
}
