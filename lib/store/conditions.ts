import { REVOCABLE, type StatusPredicate } from '#lib/keys/model';

/**
 * The keys table's conditions, named once. Each is an expression with its own placeholders, so
 * they combine with `allOf` into one ConditionExpression (or FilterExpression).
 */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** Conjunction; placeholders must not collide (each condition uses its own). */
export function allOf(...conditions: Condition[]): Condition {
  return {
    expression: conditions.map((c) => `(${c.expression})`).join(' AND '),
    names: Object.assign({}, ...conditions.map((c) => c.names ?? {})),
    values: Object.assign({}, ...conditions.map((c) => c.values ?? {})),
  };
}

/** The parameters of a command for a condition, leaving out empty maps (DynamoDB rejects them). */
export function conditionParams(
  condition: Condition,
  kind: 'ConditionExpression' | 'FilterExpression' = 'ConditionExpression',
  extra: { names?: Record<string, string>; values?: Record<string, unknown> } = {},
) {
  const names = { ...condition.names, ...extra.names };
  const values = { ...condition.values, ...extra.values };
  return {
    [kind]: condition.expression,
    ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
    ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
  };
}

/** The item is new: nothing stored under its primary key. */
export const itemIsNew: Condition = { expression: 'attribute_not_exists(pk)' };

/** The key exists and belongs to `userId`. */
export const keyOwnedBy = (userId: string): Condition => ({
  expression: 'attribute_exists(pk) AND user_id = :owner',
  values: { ':owner': userId },
});

/** The key's status at `nowIso` satisfies a status predicate (the status rule of model.ts). */
export function keyStatusIs(rule: StatusPredicate, nowIso: string): Condition {
  const parts = [rule.revoked ? 'attribute_exists(revoked_at)' : 'attribute_not_exists(revoked_at)'];
  if (rule.expired !== undefined)
    parts.push(rule.expired ? 'expires_at <= :status_now' : 'expires_at > :status_now');
  return {
    expression: parts.join(' AND '),
    ...(rule.expired !== undefined && { values: { ':status_now': nowIso } }),
  };
}

/**
 * The key still reaches as many workspaces as when it was read. Its list only ever shrinks (a
 * cut-off, contract §12), so an equal size means an equal list.
 */
export const workspacesAsRead = (count: number): Condition => ({
  expression: 'size(workspace_ids) = :workspace_count',
  values: { ':workspace_count': count },
});

/** No use was recorded after `thresholdIso` (the last-use interval rule of rules.ts). */
export const useIsStale = (thresholdIso: string): Condition => ({
  expression:
    'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at <= :use_threshold)',
  values: { ':use_threshold': thresholdIso },
});

/** The user's slot item has room for one more lineage, and this lineage holds none yet. */
export const slotIsFree = (lineageId: string, maxSlots: number): Condition => ({
  expression: 'size(active) < :max_slots AND attribute_not_exists(active.#lineage)',
  names: { '#lineage': lineageId },
  values: { ':max_slots': maxSlots },
});

/** Each given lineage still holds its slot with the expiry it was read with. */
export function slotsHeldAsRead(slots: Record<string, string>): Condition {
  const entries = Object.entries(slots);
  return {
    expression: entries.map((_, i) => `active.#l${i} = :e${i}`).join(' AND '),
    names: Object.fromEntries(entries.map(([lineage], i) => [`#l${i}`, lineage])),
    values: Object.fromEntries(entries.map(([, expiresAt], i) => [`:e${i}`, expiresAt])),
  };
}

/** The user's slot item exists (a user with keys always has one). */
export const slotItemExists: Condition = { expression: 'attribute_exists(active)' };

/**
 * No identity provider has the person disabled: their slot item holds no `disabled_by` entry
 * (contract §17). True of a person with no slot item yet.
 */
export const personEnabled: Condition = {
  expression: 'attribute_not_exists(disabled_by) OR size(disabled_by) = :no_disabling',
  values: { ':no_disabling': 0 },
};

/**
 * The key exists, is not revoked, and none of the expiry notices with these markers was written
 * (the exactly-once condition of the sweep).
 */
export function noticesNotWritten(markers: readonly string[]): Condition {
  return allOf({ expression: 'attribute_exists(pk)' }, keyStatusIs(REVOCABLE, ''), {
    expression: markers.map((_, i) => `attribute_not_exists(#notice${i})`).join(' AND '),
    names: Object.fromEntries(markers.map((marker, i) => [`#notice${i}`, marker])),
  });
}
