import { AppError } from '#lib/errors';
import {
  type Actor,
  adminActor,
  type CutOffReason,
  grantRevoked,
  keyRevoked,
  keyWorkspaceRemoved,
} from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import { type CutOffDeps, type GovernanceDeps, requireAdmin } from './admin.ts';
import type { CutOffStep, WorkspaceEntry, WorkspaceKey, WorkspaceKeyStatus } from './port.ts';
import { toWorkspaceView, type WorkspaceKeyView } from './view.ts';

/** A credential cut off from its last workspace is revoked: a key's event, or a grant's with the cut-off's reason (contract §15). */
const revokedEvent = (record: KeyRecord, reason: CutOffReason, actor: Actor, now: Date) =>
  record.kind ? grantRevoked(record, reason, actor, now) : keyRevoked(record, actor, now);

/** Attempts at a cut-off when the key moved on between the read and the write. */
const CUT_OFF_ATTEMPTS = 4;
/** A rotation chain is followed this far at most (a chain of rotations within one cut-off). */
const MAX_CHAIN = 20;

export interface ListWorkspaceKeysInput {
  userId: string;
  workspaceId: string;
  limit: number;
  cursor?: string | undefined;
  status?: WorkspaceKeyStatus | undefined;
}

/** Contract §12: every key that reaches or reached the workspace, of every creator, newest first. */
export async function listWorkspaceKeys(
  deps: GovernanceDeps,
  input: ListWorkspaceKeysInput,
): Promise<{ data: WorkspaceKeyView[]; next_cursor: string | null }> {
  await requireAdmin(deps, input.userId, input.workspaceId);
  const after = input.cursor
    ? await deps.cursors.decodeWorkspace('keys', input.userId, input.workspaceId, input.cursor)
    : undefined;
  const now = deps.now();
  const page = await deps.workspaces.listKeys(input.workspaceId, {
    limit: input.limit,
    after: after && { created_at: after[0], id: after[1] },
    status: input.status,
    now,
  });
  const last = page.items.at(-1)?.entry;
  return {
    data: page.items.map((item) => toWorkspaceView(item, now)),
    next_cursor:
      page.hasMore && last
        ? await deps.cursors.encodeWorkspace('keys', input.userId, input.workspaceId, [
            last.created_at,
            last.key_id,
          ])
        : null,
  };
}

const notReached = () => new AppError('not_found', 'No API key with this id reaches this workspace.');

/** The key and every key rotated from it since, oldest first. */
async function rotationChain(deps: CutOffDeps, first: KeyRecord): Promise<KeyRecord[]> {
  const chain = [first];
  for (let last = first; last.replaced_by && chain.length < MAX_CHAIN; ) {
    const next = await deps.keys.get(last.replaced_by);
    if (!next) break;
    chain.push(next);
    last = next;
  }
  return chain;
}

/**
 * Cuts a key off from a workspace (contract §12): the workspace leaves the key's list, and the
 * list of every key rotated from it since (a cut-off racing a rotation still reaches the new
 * key); a key left with no workspace is revoked in the same transaction. Idempotent: a key that
 * no longer holds the workspace is answered as it is, and nothing is written.
 */
export async function cutOffKey(
  deps: CutOffDeps,
  input: {
    workspaceId: string;
    keyId: string;
    reason: CutOffReason;
    actor: Actor;
  },
): Promise<WorkspaceKeyView> {
  const { workspaceId, reason, actor } = input;
  for (let attempt = 0; attempt < CUT_OFF_ATTEMPTS; attempt++) {
    const target = await deps.keys.get(input.keyId);
    const entry = target && (await deps.workspaces.entry(workspaceId, target));
    if (!target || !entry) throw notReached();
    const chain = await rotationChain(deps, target);
    const newest = chain.at(-1);
    const now = deps.now();
    const steps: CutOffStep[] = chain
      .filter((key) => key.workspace_ids.includes(workspaceId))
      .map((key) => ({
        record: key,
        revoke: key.workspace_ids.length === 1 && !key.revoked_at,
        newest: key === newest,
      }));
    if (steps.length === 0) return toWorkspaceView({ entry, record: target }, now);
    const events = steps.flatMap((step) => [
      keyWorkspaceRemoved(step.record, workspaceId, reason, actor, now),
      ...(step.revoke ? [revokedEvent(step.record, reason, actor, now)] : []),
    ]);
    const outcome = await deps.workspaces.cutOff({ workspaceId, steps, reason, actor, now, events });
    if (outcome.kind === 'done') return toWorkspaceView(afterCutOff(target, entry, steps, reason, now), now);
  }
  throw new AppError('conflict', 'The key kept changing during the cut-off; retry the request.');
}

/** The target as the cut-off left it. */
function afterCutOff(
  target: KeyRecord,
  entry: WorkspaceEntry,
  steps: CutOffStep[],
  reason: CutOffReason,
  now: Date,
) {
  const step = steps.find((s) => s.record.id === target.id);
  const record: KeyRecord = step
    ? {
        ...target,
        workspace_ids: target.workspace_ids.filter((id) => id !== entry.workspace_id),
        removed_workspace_ids: [...(target.removed_workspace_ids ?? []), entry.workspace_id],
        ...(step.revoke && { revoked_at: now.toISOString() }),
      }
    : target;
  return {
    record,
    entry: step
      ? {
          ...entry,
          workspace_access: 'removed' as const,
          removed_at: now.toISOString(),
          removed_reason: reason,
        }
      : entry,
  };
}

/** DELETE /v1/mcp/workspaces/{workspace_id}/api-keys/{key_id}: an administrator cuts a key off. */
export async function removeKeyFromWorkspace(
  deps: GovernanceDeps,
  input: { userId: string; workspaceId: string; keyId: string },
): Promise<WorkspaceKeyView> {
  await requireAdmin(deps, input.userId, input.workspaceId);
  return cutOffKey(deps, {
    workspaceId: input.workspaceId,
    keyId: input.keyId,
    reason: 'admin',
    actor: adminActor(input.userId),
  });
}

/** DynamoDB's limit on the actions of one transaction. */
const TRANSACTION_ACTIONS = 100;
/** Actions of one key's cut-off: key, entry, two event items; a revocation adds the slot and its event. */
const actionsOf = (step: CutOffStep) => (step.revoke ? 6 : 4);

/**
 * Steps grouped into transactions of at most 100 actions, with at most one revocation per creator
 * in each (a creator's revocations all update the same slot item, which one transaction may
 * touch only once).
 */
function transactionsOf(steps: CutOffStep[]): CutOffStep[][] {
  const groups: { steps: CutOffStep[]; actions: number; revoking: Set<string> }[] = [];
  for (const step of steps) {
    const fits = (g: (typeof groups)[number]) =>
      g.actions + actionsOf(step) <= TRANSACTION_ACTIONS &&
      !(step.revoke && g.revoking.has(step.record.user_id));
    let group = groups.find(fits);
    if (!group) {
      group = { steps: [], actions: 0, revoking: new Set() };
      groups.push(group);
    }
    group.steps.push(step);
    group.actions += actionsOf(step);
    if (step.revoke) group.revoking.add(step.record.user_id);
  }
  return groups.map((g) => g.steps);
}

/**
 * Cuts many keys off one workspace (the policy fan-out), each with its events, several keys per
 * transaction; a transaction in which some key moved on since it was read is done again key by
 * key (`cutOffKey`, which reads each key afresh). Returns how many keys lost the workspace.
 */
export async function cutOffMany(
  deps: CutOffDeps,
  input: { workspaceId: string; keys: WorkspaceKey[]; reason: CutOffReason; actor: Actor },
): Promise<number> {
  const { workspaceId, reason, actor } = input;
  const steps: CutOffStep[] = input.keys
    .filter(({ record }) => record.workspace_ids.includes(workspaceId))
    .map(({ record }) => ({
      record,
      revoke: record.workspace_ids.length === 1 && !record.revoked_at,
      newest: true,
    }));
  let cut = 0;
  for (const group of transactionsOf(steps)) {
    const now = deps.now();
    const events = group.flatMap((step) => [
      keyWorkspaceRemoved(step.record, workspaceId, reason, actor, now),
      ...(step.revoke ? [revokedEvent(step.record, reason, actor, now)] : []),
    ]);
    const outcome = await deps.workspaces.cutOff({ workspaceId, steps: group, reason, actor, now, events });
    if (outcome.kind === 'done') {
      cut += group.length;
      continue;
    }
    for (const step of group) {
      const view = await cutOffKey(deps, { workspaceId, keyId: step.record.id, reason, actor });
      if (view.workspace_access === 'removed') cut++;
    }
  }
  return cut;
}
