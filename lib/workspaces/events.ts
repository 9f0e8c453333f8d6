import { randomUUID } from 'node:crypto';
import type { Scope } from '#lib/access/scopes';
import type { Actor } from '#lib/events/model';

/** A workspace's policy (contract §12); `max_expiry_days: null` is the deployment maximum. */
export interface WorkspacePolicy {
  mcp_access: 'enabled' | 'disabled';
  allowed_scopes: Scope[];
  max_expiry_days: number | null;
}

export const WORKSPACE_EVENT_TYPES = ['workspace.policy_changed'] as const;

/**
 * A workspace event (contract §10): about a workspace, not a key, so it belongs to no lineage
 * (`key_id`, `lineage_id` and `user_id` are null). Written with the change it records, in the
 * workspace's partition, and published from the stream like the key events.
 */
export interface WorkspaceEvent {
  id: string;
  type: (typeof WORKSPACE_EVENT_TYPES)[number];
  occurred_at: string;
  key_id: null;
  lineage_id: null;
  user_id: null;
  actor: Actor;
  details: { workspace_id: string; before: WorkspacePolicy; after: WorkspacePolicy };
}

export const policyChanged = (
  workspaceId: string,
  before: WorkspacePolicy,
  after: WorkspacePolicy,
  actor: Actor,
  now: Date,
): WorkspaceEvent => ({
  id: randomUUID(),
  type: 'workspace.policy_changed',
  occurred_at: now.toISOString(),
  key_id: null,
  lineage_id: null,
  user_id: null,
  actor,
  details: { workspace_id: workspaceId, before, after },
});
