import { hasRules } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import { keyCreated, keyRotated, userActor } from '#lib/events/model';
import { assertPolicyAllows, policyMaxDays, rulesByWorkspace } from '#lib/workspace-policy/rules';
import { accountDisabled } from './admission.ts';
import { type KeyMetadata, type KeyRecord, keyStatus, toMetadata } from './model.ts';
import { rotatedExpiry } from './rules.ts';
import {
  type IssuedKey,
  type KeyServiceDeps,
  keyExpired,
  mint,
  notFound,
  ownedKey,
  policiesOf,
} from './service.ts';

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

/** One attempt: the key as read, revoked and replaced in one transaction, or the key as it is now. */
async function rotateOnce(
  deps: KeyServiceDeps,
  userId: string,
  old: KeyRecord,
): Promise<{ kind: 'rotated'; rotated: RotatedKey } | { kind: 'changed'; current: KeyRecord }> {
  const now = deps.now();
  if (old.kind)
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
  // The policies as they are now (contract §19): the fan-out may not have reached the old key yet.
  const rules = rulesByWorkspace(old.workspace_ids, policies);
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
    ...(old.tools && { tools: old.tools }),
    ...(old.limits && { limits: old.limits }),
    ...(hasRules(rules) && { workspace_rules: rules }),
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
    case 'account_disabled':
      throw accountDisabled(outcome.disabled);
    case 'not_found':
      throw notFound();
  }
}
