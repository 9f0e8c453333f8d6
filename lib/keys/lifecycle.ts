import { accessProblems, type Scope } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import {
  grantRevoked,
  type KeyEvent,
  keyCreated,
  keyRevoked,
  keyRotated,
  userActor,
} from '#lib/events/model';
import type { Settings } from '#lib/limits';
import {
  assertPolicyAllows,
  type PolicyClient,
  type PolicyReader,
  policyExpiryDays,
  policyMaxDays,
} from '#lib/workspace-policy/rules';
import type { CursorCodec } from './cursor.ts';
import { generateKey, keyHint } from './format.ts';
import { type KeyMetadata, type KeyRecord, type KeyStatus, keyStatus, toMetadata } from './model.ts';
import { digestKey, type PepperSource } from './pepper.ts';
import type { InsertOutcome, KeyStore, MembershipReader } from './port.ts';
import { expiryAfterDays, hasFreeSlot, lapsedLineages, rotatedExpiry } from './rules.ts';

/** Attempts at taking a slot when lapsed ones had to be released first. */
const SLOT_ATTEMPTS = 3;

/** Everything the use cases need; tests pass their own clock and an in-memory store. */
export interface KeyServiceDeps {
  keys: KeyStore;
  memberships: MembershipReader;
  peppers: PepperSource;
  cursors: CursorCodec;
  settings: Settings;
  now: () => Date;
  /** Workspace policies (contract §12). @default none: every workspace has the default policy */
  policies?: PolicyReader;
}

/** The policies of `workspaceIds`; none without a policy reader. */
const policiesOf = (deps: KeyServiceDeps, workspaceIds: readonly string[]) =>
  deps.policies ? deps.policies.policiesFor(workspaceIds) : Promise.resolve(new Map());

export interface IssuedKey {
  apiKey: string;
  metadata: KeyMetadata;
}

async function mint(
  deps: KeyServiceDeps,
  fields: Omit<KeyRecord, 'id' | 'digest' | 'pepper_version' | 'key_hint' | 'lineage_id'> & {
    lineage_id?: string;
  },
): Promise<{ apiKey: string; record: KeyRecord }> {
  const { id, apiKey } = generateKey();
  const { digest, pepperVersion } = await digestKey(deps.peppers, apiKey);
  const record: KeyRecord = {
    ...fields,
    id,
    lineage_id: fields.lineage_id ?? id,
    digest,
    pepper_version: pepperVersion,
    key_hint: keyHint(apiKey),
  };
  return { apiKey, record };
}

export interface CreateKeyInput {
  userId: string;
  name: string;
  workspaceIds: string[];
  scopes: Scope[];
  expiresInDays?: number | undefined;
}

/**
 * Contract §5 create: expiry bounds, current memberships allow every scope, the active-key cap;
 * `key.created` is written with the key.
 */
export async function createKey(deps: KeyServiceDeps, input: CreateKeyInput): Promise<IssuedKey> {
  const days = await admitCredential(deps, input);
  const now = deps.now();
  const { apiKey, record } = await mint(deps, {
    user_id: input.userId,
    name: input.name,
    workspace_ids: input.workspaceIds,
    scopes: input.scopes,
    created_at: now.toISOString(),
    expires_at: expiryAfterDays(now, days),
  });
  await insertUnderCap(deps, record, [keyCreated(record, userActor(record.user_id), now)], now);
  return { apiKey, metadata: toMetadata(record, now) };
}

/**
 * Create's rules for a new credential (a key, or an OAuth grant on approval, whose app the
 * policies' `oauth_clients` must admit): expiry bounds, the creator's current memberships allow
 * every scope, the workspaces' policies; returns the lifetime in days. Throws create's errors.
 */
export async function admitCredential(
  deps: KeyServiceDeps,
  input: Pick<CreateKeyInput, 'userId' | 'workspaceIds' | 'scopes' | 'expiresInDays'>,
  client?: PolicyClient,
): Promise<number> {
  const { maxExpiryDays, defaultExpiryDays } = deps.settings;
  if ((input.expiresInDays ?? defaultExpiryDays) > maxExpiryDays) {
    throw new AppError('validation_failed', 'The request failed validation.', {
      errors: [
        { input: 'expiresInDays', message: `must be at most ${maxExpiryDays} (the deployment maximum)` },
      ],
    });
  }
  const [roles, policies] = await Promise.all([
    deps.memberships.rolesFor(input.userId, input.workspaceIds),
    policiesOf(deps, input.workspaceIds),
  ]);
  const problems = accessProblems(input.workspaceIds, input.scopes, roles);
  if (problems.length > 0) {
    throw new AppError(
      'workspace_access_denied',
      `You lack the access this ${client ? 'app would get' : 'key would grant'} in some workspaces.`,
      {
        errors: problems.map((p) => ({
          input: 'workspaceIds',
          index: input.workspaceIds.indexOf(p.workspaceId),
          message:
            p.reason === 'not_a_member'
              ? `not a member of workspace ${p.workspaceId}`
              : // Stryker disable next-line OptionalChaining: a role problem always names the scopes it denies
                `role ${p.role} in workspace ${p.workspaceId} does not allow ${p.deniedScopes?.join(', ')}`,
        })),
      },
    );
  }
  assertPolicyAllows(input.workspaceIds, input.scopes, policies, client);
  return policyExpiryDays(
    input.expiresInDays,
    defaultExpiryDays,
    policyMaxDays(input.workspaceIds, policies),
  );
}

/**
 * The active-key cap (contract §5): a new lineage takes a slot among at most `maxActiveKeys`.
 * When the slots are full, those whose key has expired are released and the insert is tried
 * again; only then is the cap reached. `insert` may answer something else than the port's
 * outcomes (an approval that lost to another decision): that is returned as it is.
 */
export async function insertUnderCap<T = never>(
  deps: KeyServiceDeps,
  record: KeyRecord,
  events: readonly KeyEvent[],
  now: Date,
  insert: (record: KeyRecord, max: number, events: readonly KeyEvent[]) => Promise<InsertOutcome | T> = (
    r,
    m,
    e,
  ) => deps.keys.insert(r, m, e),
): Promise<T | undefined> {
  const max = deps.settings.maxActiveKeys;
  const limitReached = () =>
    new AppError('key_limit_reached', `At most ${max} active API keys are allowed per user.`);
  for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
    const outcome = await insert(record, max, events);
    if (!isInsertOutcome(outcome)) return outcome;
    if (outcome.kind === 'inserted') return undefined;
    if (!hasFreeSlot(outcome.slots, max, now)) throw limitReached();
    await deps.keys.releaseSlots(record.user_id, lapsedLineages(outcome.slots, now));
  }
  throw new AppError('conflict', 'Too many concurrent changes to this user’s keys; retry the request.');
}

const isInsertOutcome = (outcome: unknown): outcome is InsertOutcome =>
  (outcome as InsertOutcome).kind === 'inserted' || (outcome as InsertOutcome).kind === 'no_free_slot';

const notFound = () => new AppError('not_found', 'API key not found.');
const keyExpired = () =>
  new AppError('key_expired', 'The key has expired and cannot be rotated; create a new key.');

/** The ownership rule, written once: another user's key, like a missing one, is not found. */
export async function ownedKey(
  deps: Pick<KeyServiceDeps, 'keys'>,
  userId: string,
  keyId: string,
): Promise<KeyRecord> {
  const record = await deps.keys.get(keyId);
  if (!record || record.user_id !== userId) throw notFound();
  return record;
}

export interface RotatedKey extends IssuedKey {
  revokedKey: KeyMetadata;
}

/**
 * Contract §5 rotate: the old key is revoked and its replacement inserted in one transaction,
 * keeping name, workspaces, scopes and the remaining lifetime (capped at the deployment max),
 * with `key.rotated` for the old key and `key.created` for the new one.
 */
export async function rotateKey(deps: KeyServiceDeps, userId: string, keyId: string): Promise<RotatedKey> {
  let old = await ownedKey(deps, userId, keyId);
  // A cut-off racing the rotation: rotate the key as it is now, so the new key never regains it.
  for (let attempt = 1; ; attempt++) {
    const outcome = await rotateOnce(deps, userId, old);
    if (outcome.kind === 'rotated') return outcome.rotated;
    if (attempt >= ROTATE_ATTEMPTS) break;
    old = outcome.current;
  }
  throw new AppError('conflict', 'The key changed during the rotation; retry the request.');
}

const ROTATE_ATTEMPTS = 3;

async function rotateOnce(
  deps: KeyServiceDeps,
  userId: string,
  old: KeyRecord,
): Promise<{ kind: 'rotated'; rotated: RotatedKey } | { kind: 'changed'; current: KeyRecord }> {
  const now = deps.now();
  if (old.kind === 'oauth_grant')
    throw new AppError(
      'not_rotatable',
      'A connected app rotates its own tokens and cannot be rotated; revoke it to disconnect the app.',
    );
  const status = keyStatus(old, now);
  if (status === 'revoked') {
    throw new AppError('key_revoked', 'The key is revoked and cannot be rotated.', {
      ...(old.replaced_by && { extensions: { replaced_by: old.replaced_by } }),
    });
  }
  // Stryker disable next-line ConditionalExpression,StringLiteral: the store refuses an expired key with the same key_expired
  if (status === 'expired') throw keyExpired();
  const policies = await policiesOf(deps, old.workspace_ids);
  assertPolicyAllows(old.workspace_ids, old.scopes, policies);
  const cap = Math.min(deps.settings.maxExpiryDays, policyMaxDays(old.workspace_ids, policies) ?? Infinity);
  const { apiKey, record } = await mint(deps, {
    user_id: old.user_id,
    lineage_id: old.lineage_id,
    name: old.name,
    workspace_ids: old.workspace_ids,
    scopes: old.scopes,
    created_at: now.toISOString(),
    expires_at: rotatedExpiry(old, now, cap),
    rotated_from: old.id,
    ...(old.removed_workspace_ids?.length && { removed_workspace_ids: old.removed_workspace_ids }),
  });
  const actor = userActor(userId);
  const outcome = await deps.keys.rotate(old, record, now, [
    keyRotated(old, record.id, actor, now),
    keyCreated(record, actor, now),
  ]);
  switch (outcome.kind) {
    case 'rotated':
      return {
        kind: 'rotated',
        rotated: { apiKey, metadata: toMetadata(record, now), revokedKey: toMetadata(outcome.revoked, now) },
      };
    case 'changed':
      return outcome;
    case 'already_revoked':
      // Lost a race inside the transaction; a retry reads the key revoked and answers key_revoked.
      throw new AppError('conflict', 'The key was rotated or revoked by a concurrent request.');
    case 'expired':
      throw keyExpired();
    case 'not_found':
      throw notFound();
  }
}

/**
 * Contract §5 revoke: idempotent; revoking a revoked key returns its original revoked_at. Only
 * the first revocation records `key.revoked` (contract §10).
 */
export async function revokeKey(deps: KeyServiceDeps, userId: string, keyId: string): Promise<KeyMetadata> {
  const record = await ownedKey(deps, userId, keyId);
  const now = deps.now();
  // Stryker disable next-line ConditionalExpression: the store answers already_revoked with the same record, writing nothing
  if (record.revoked_at) return toMetadata(record, now);
  // The event is written only if this request's revocation lands: a repeat writes nothing.
  const actor = userActor(userId);
  const event =
    record.kind === 'oauth_grant' ? grantRevoked(record, 'user', actor, now) : keyRevoked(record, actor, now);
  const outcome = await deps.keys.revoke(record, now, [event]);
  switch (outcome.kind) {
    case 'revoked':
      return toMetadata(outcome.record, now);
    case 'already_revoked':
      return toMetadata(outcome.current, now);
    case 'not_found':
      throw notFound();
  }
}

export interface ListKeysInput {
  userId: string;
  limit: number;
  cursor?: string | undefined;
  status?: KeyStatus | undefined;
}

export async function listKeys(
  deps: KeyServiceDeps,
  input: ListKeysInput,
): Promise<{ data: KeyMetadata[]; next_cursor: string | null }> {
  const after = input.cursor ? await deps.cursors.decode(input.userId, input.cursor) : undefined;
  const now = deps.now();
  const page = await deps.keys.listByUser(input.userId, {
    limit: input.limit,
    after,
    status: input.status,
    now,
  });
  const last = page.items.at(-1);
  return {
    data: page.items.map((r) => toMetadata(r, now)),
    next_cursor: page.hasMore && last ? await deps.cursors.encode(input.userId, last) : null,
  };
}
