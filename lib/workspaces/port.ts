import type { Scope } from '#lib/access/scopes';
import type { WorkspaceRules } from '#lib/access/tools';
import type { Actor, CutOffReason, KeyEvent, WorkspaceEvent } from '#lib/events/model';
import type { KeyRecord, KeyStatus } from '#lib/keys/model';
import type { PolicyReader, WorkspacePolicy } from '#lib/workspace-policy/rules';

/**
 * What workspace governance (contract §12) needs from storage: the port, owned by the domain;
 * `lib/store/workspace-store.ts` implements it for DynamoDB.
 */

export type WorkspaceAccessState = 'active' | 'removed';

/** A key's place in a workspace's index: what never changes, and whether it still reaches it. */
export interface WorkspaceEntry {
  workspace_id: string;
  key_id: string;
  user_id: string;
  lineage_id: string;
  created_at: string;
  expires_at: string;
  scopes: Scope[];
  workspace_access: WorkspaceAccessState;
  removed_at?: string;
  removed_reason?: CutOffReason;
}

/** A key as the workspace's page shows it: its entry and the key's current state. */
export interface WorkspaceKey {
  entry: WorkspaceEntry;
  record: KeyRecord;
}

/** The status filter of the workspace's list: a key's own status, or cut off from the workspace. */
export type WorkspaceKeyStatus = KeyStatus | 'removed';

export interface WorkspacePosition {
  created_at: string;
  id: string;
}

export interface WorkspaceKeysQuery {
  limit: number;
  after?: WorkspacePosition | undefined;
  status?: WorkspaceKeyStatus | undefined;
  now: Date;
}

/** One key of a cut-off: the workspace leaves its list, and it is revoked when none is left. */
export interface CutOffStep {
  record: KeyRecord;
  /** Whether no workspace is left, so the key is revoked in the same transaction. */
  revoke: boolean;
  /** Whether this is the newest key of its rotation chain (it must still not be replaced). */
  newest: boolean;
}

export interface CutOff {
  workspaceId: string;
  steps: CutOffStep[];
  reason: CutOffReason;
  actor: Actor;
  now: Date;
  /** The events of every step, written in the same transaction. */
  events: KeyEvent[];
}

/** `changed`: a key moved on after it was read (another cut-off, a rotation): read again. */
export type CutOffOutcome = { kind: 'done' } | { kind: 'changed' };

export interface EventPosition {
  occurred_at: string;
  id: string;
}

/** A workspace's governance history: cut-offs and policy changes. */
export type GovernanceEvent = KeyEvent | WorkspaceEvent;

/** A workspace's policy as stored: who set it, when, and its version (for optimistic writes). */
export interface StoredPolicy extends WorkspacePolicy {
  updated_at: string;
  updated_by: string;
  version: number;
}

export interface WorkspaceStore extends PolicyReader {
  /** The workspace's stored policy, consistently; undefined while the default applies. */
  policy(workspaceId: string): Promise<StoredPolicy | undefined>;
  /**
   * Stores `next` with its `workspace.policy_changed` event in one transaction, on condition that
   * the stored version is still `previousVersion` (undefined: none stored yet).
   */
  putPolicy(
    workspaceId: string,
    next: StoredPolicy,
    previousVersion: number | undefined,
    event: WorkspaceEvent,
  ): Promise<'done' | 'changed'>;
  /** The entry of a key in a workspace's index, consistently; undefined if it never reached it. */
  entry(workspaceId: string, key: Pick<KeyRecord, 'id' | 'created_at'>): Promise<WorkspaceEntry | undefined>;
  /** A page of the workspace's keys, newest first, with each key's current state. */
  listKeys(
    workspaceId: string,
    query: WorkspaceKeysQuery,
  ): Promise<{ items: WorkspaceKey[]; hasMore: boolean }>;
  /**
   * Writes what a workspace's policy leaves a credential there (contract §19), or removes it
   * (`rules` undefined); a credential that no longer exists is left alone.
   */
  setRules(record: KeyRecord, workspaceId: string, rules: WorkspaceRules | undefined): Promise<void>;
  /** Carries out a cut-off in one transaction, each step conditional on the key as it was read. */
  cutOff(cutOff: CutOff): Promise<CutOffOutcome>;
  /** The workspace's governance events, newest first. */
  listEvents(
    workspaceId: string,
    query: { limit: number; after?: EventPosition | undefined },
  ): Promise<{ items: GovernanceEvent[]; hasMore: boolean }>;
}
