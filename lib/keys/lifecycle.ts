import { hasRules } from '#lib/access/tools';
import { grantRevoked, keyCreated, keyRevoked, userActor } from '#lib/events/model';
import { admitCredential, type CredentialRequest, insertUnderCap } from './admission.ts';
import { hasLimits } from './limits.ts';
import { callsInLastWeek, type KeyMetadata, type KeyStatus, toMetadata } from './model.ts';
import { expiryAfterDays } from './rules.ts';
import { type IssuedKey, type KeyServiceDeps, mint, notFound, ownedKey } from './service.ts';

/**
 * The key lifecycle of contract §5: create, revoke and list here; what a new key must pass in
 * admission.ts, rotation in rotation.ts, what they share in service.ts (exported from here too,
 * as the use cases' one entry).
 */

export {
  type Admitted,
  accountDisabled,
  admitCredential,
  admittedTools,
  type CredentialRequest,
  insertUnderCap,
} from './admission.ts';
export { type RotatedKey, rotateKey } from './rotation.ts';
export { type IssuedKey, type KeyServiceDeps, ownedKey } from './service.ts';

export interface CreateKeyInput extends CredentialRequest {
  name: string;
}

/**
 * Contract §5 create: expiry bounds, current memberships allow every scope, the active-key cap;
 * `key.created` is written with the key.
 */
export async function createKey(deps: KeyServiceDeps, input: CreateKeyInput): Promise<IssuedKey> {
  const { days, tools, workspaceRules } = await admitCredential(deps, input);
  const now = deps.now();
  const { apiKey, record } = await mint(deps, {
    user_id: input.userId,
    name: input.name,
    workspace_ids: input.workspaceIds,
    scopes: input.scopes,
    created_at: now.toISOString(),
    expires_at: expiryAfterDays(now, days),
    ...(tools && { tools }),
    ...(hasLimits(input.limits) && { limits: input.limits }),
    ...(hasRules(workspaceRules) && { workspace_rules: workspaceRules }),
  });
  await insertUnderCap(deps, record, [keyCreated(record, userActor(record.user_id), now)], now);
  return { apiKey, metadata: toMetadata(record, now) };
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
  const event = record.kind ? grantRevoked(record, 'user', actor, now) : keyRevoked(record, actor, now);
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
): Promise<{ data: (KeyMetadata & { calls_7d: number })[]; next_cursor: string | null }> {
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
    // Each item's calls of the week come with the page: the usage writes keep them on the key item.
    data: page.items.map((r) => ({ ...toMetadata(r, now), calls_7d: callsInLastWeek(r, now) })),
    next_cursor: page.hasMore && last ? await deps.cursors.encode(input.userId, last) : null,
  };
}
