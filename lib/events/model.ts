import { randomUUID } from 'node:crypto';
import type { Scope } from '#lib/access/scopes';
import type { WorkspacePolicy } from '#lib/workspace-policy/rules';

/**
 * Audit events (contract §10): what happened to a key or a workspace, when, and who did it. An
 * event is written in the same transaction as the change it records and published from the
 * table's stream. It never carries a key, a digest or a token: only ids, names and times. The
 * events name the fields of a key they read (`EventSubject`, `CreatedKey`), so the key lifecycle
 * (lib/keys/) depends on this folder and not the other way round.
 */

export const EVENT_TYPES = [
  'key.created',
  'key.rotated',
  'key.revoked',
  'key.leak_revoked',
  'key.expiring',
  'key.expired',
  'key.workspace_removed',
  'key.updated',
  'grant.created',
  'grant.updated',
  'grant.revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const ACTOR_TYPES = [
  'user',
  'public_report',
  'github_secret_scanning',
  'workspace_admin',
  'system',
  'oauth_client',
  'identity_provider',
] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Actor {
  type: ActorType;
  id: string | null;
}

/** The days-left thresholds at which an active key is announced as expiring. */
export const EXPIRY_THRESHOLDS = [7, 1] as const;
export type ExpiryThreshold = (typeof EXPIRY_THRESHOLDS)[number];

/** The `details` of each event type. */
export interface EventDetails {
  'key.created': {
    name: string;
    scopes: Scope[];
    workspace_ids: string[];
    expires_at: string;
    rotated_from: string | null;
  };
  'key.rotated': { replaced_by: string };
  'key.revoked': { reason?: 'identity_provider' };
  'key.leak_revoked': { source: string | null };
  'key.expiring': { expires_at: string; days_left: ExpiryThreshold };
  'key.expired': { expires_at: string };
  'key.workspace_removed': { workspace_id: string; reason: CutOffReason };
  /** Its owner narrowed a key or grant (contract §19): its tools before and after (null: every tool its scopes allow). */
  'key.updated': {
    tools_before?: string[] | null;
    tools_after?: string[] | null;
    limits_before?: { per_minute?: number; per_day?: number } | null;
    limits_after?: { per_minute?: number; per_day?: number };
  };
  'grant.created': {
    client: { id: string; name: string; verified_domain: string | null };
    scopes: Scope[];
    workspace_ids: string[];
    expires_at: string;
    /** How the grant was made: the person's consent, or their identity provider's ID-JAG (contract §17). */
    via: 'consent' | 'identity_provider';
    /** For `identity_provider`: the IdP's issuer. */
    idp?: string;
  };
  'grant.updated': { scopes_added: Scope[]; workspace_ids_added: string[] };
  'grant.revoked': { reason: GrantRevokedReason };
}

/** Why a grant (contract §15) was revoked. */
export const GRANT_REVOKED_REASONS = [
  'user',
  'client',
  'admin',
  'policy',
  'leak',
  'identity_provider',
  'code_replay',
  'refresh_reuse',
] as const;
export type GrantRevokedReason = (typeof GRANT_REVOKED_REASONS)[number];

/** Why a key lost a workspace (contract §12): an administrator cut it off, or the workspace's policy. */
export type CutOffReason = 'admin' | 'policy';

interface EventOf<T extends EventType> {
  id: string;
  type: T;
  occurred_at: string;
  key_id: string;
  lineage_id: string;
  user_id: string;
  actor: Actor;
  details: EventDetails[T];
}

/** One event; `type` discriminates `details`. */
export type KeyEvent = { [T in EventType]: EventOf<T> }[EventType];

/** The sweep acts as the system; a user acts through the management API. */
export const SYSTEM: Actor = { type: 'system', id: null };
export const userActor = (userId: string): Actor => ({ type: 'user', id: userId });
export const adminActor = (userId: string): Actor => ({ type: 'workspace_admin', id: userId });

/** What every key event names of its key: the key, its rotation chain and its creator. */
export interface EventSubject {
  id: string;
  lineage_id: string;
  user_id: string;
}

/** What `key.created` records of the new key. */
export interface CreatedKey extends EventSubject {
  name: string;
  scopes: Scope[];
  workspace_ids: string[];
  expires_at: string;
  rotated_from?: string;
}

function event<T extends EventType>(
  type: T,
  key: EventSubject,
  actor: Actor,
  now: Date,
  details: EventDetails[T],
): EventOf<T> {
  return {
    id: randomUUID(),
    type,
    occurred_at: now.toISOString(),
    key_id: key.id,
    lineage_id: key.lineage_id,
    user_id: key.user_id,
    actor,
    details,
  };
}

/** A key was created, by a create or as the replacement of a rotation. */
export const keyCreated = (record: CreatedKey, actor: Actor, now: Date) =>
  event('key.created', record, actor, now, {
    name: record.name,
    scopes: record.scopes,
    workspace_ids: record.workspace_ids,
    expires_at: record.expires_at,
    rotated_from: record.rotated_from ?? null,
  });

/** The old key of a rotation, revoked and replaced by `replacedBy`. */
export const keyRotated = (old: EventSubject, replacedBy: string, actor: Actor, now: Date) =>
  event('key.rotated', old, actor, now, { replaced_by: replacedBy });

/**
 * Revoked (the first time only): on its owner's or an administrator's request (no reason), or by
 * the person's identity provider (`reason: identity_provider`, contract §17).
 */
export const keyRevoked = (record: EventSubject, actor: Actor, now: Date, reason?: 'identity_provider') =>
  event('key.revoked', record, actor, now, reason ? { reason } : {});

/** Revoked because it was reported leaked; `source` is where it was found, if known. */
export const keyLeakRevoked = (record: EventSubject, actor: Actor, source: string | null, now: Date) =>
  event('key.leak_revoked', record, actor, now, { source });

/** An active key crossed a days-left threshold. */
export const keyExpiring = (
  key: EventSubject & { expires_at: string },
  daysLeft: ExpiryThreshold,
  now: Date,
) => event('key.expiring', key, SYSTEM, now, { expires_at: key.expires_at, days_left: daysLeft });

/** A key that was never revoked reached its expiry. */
export const keyExpired = (key: EventSubject & { expires_at: string }, now: Date) =>
  event('key.expired', key, SYSTEM, now, { expires_at: key.expires_at });

/** A workspace administrator or the workspace's policy cut the key off from a workspace. */
export const keyWorkspaceRemoved = (
  record: EventSubject,
  workspaceId: string,
  reason: CutOffReason,
  actor: Actor,
  now: Date,
) => event('key.workspace_removed', record, actor, now, { workspace_id: workspaceId, reason });

/** Its owner narrowed a key's or a grant's own tools or limits (contract §19). */
export const keyUpdated = (
  record: EventSubject,
  details: EventDetails['key.updated'],
  actor: Actor,
  now: Date,
) => event('key.updated', record, actor, now, details);

/**
 * An OAuth grant was approved on the consent page (contract §15), or made by the first exchange of
 * an identity provider's ID-JAG (`idp`, contract §17).
 */
export const grantCreated = (
  record: CreatedKey & { client: EventDetails['grant.created']['client']; idp?: string | undefined },
  actor: Actor,
  now: Date,
) =>
  event('grant.created', record, actor, now, {
    client: record.client,
    scopes: record.scopes,
    workspace_ids: record.workspace_ids,
    expires_at: record.expires_at,
    ...(record.idp ? { via: 'identity_provider' as const, idp: record.idp } : { via: 'consent' as const }),
  });

/**
 * The person widened a live grant when its app signed in again (step-up, contract §15 turn 5):
 * the scopes and the workspaces added.
 */
export const grantUpdated = (
  record: EventSubject,
  scopesAdded: Scope[],
  workspaceIdsAdded: string[],
  actor: Actor,
  now: Date,
) =>
  event('grant.updated', record, actor, now, {
    scopes_added: scopesAdded,
    workspace_ids_added: workspaceIdsAdded,
  });

/** An OAuth grant was revoked, by whom the reason says. */
export const grantRevoked = (record: EventSubject, reason: GrantRevokedReason, actor: Actor, now: Date) =>
  event('grant.revoked', record, actor, now, { reason });

/** A trusted identity provider (its issuer) whose security event ended a person's credentials (contract §17). */
export const identityProviderActor = (issuer: string): Actor => ({ type: 'identity_provider', id: issuer });

/** An OAuth client acting on its own grant (revocation at RFC 7009's endpoint, a code replay). */
export const clientActor = (clientId: string): Actor => ({ type: 'oauth_client', id: clientId });

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

/** A workspace's policy changed (`PUT …/policy`): the policy before and after. */
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
