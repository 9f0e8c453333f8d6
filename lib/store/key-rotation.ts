import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import { type KeyRecord, STATUS_RULES } from '#lib/keys/model';
import type { RotateOutcome } from '#lib/keys/port';
import {
  allOf,
  conditionParams,
  itemIsNew,
  keyOwnedBy,
  keyStatusIs,
  personEnabled,
  workspacesAsRead,
} from './conditions.ts';
import { disabledOf, fromKeyItem } from './items.ts';
import { type CancellationReason, failedCondition, transact, unexpected } from './transactions.ts';
import { entryPuts } from './workspace-items.ts';

/** Revoking a key takes it out of the expiry index: it has no notice to come. */
export const REVOKED_LEAVES_EXPIRY_INDEX = 'REMOVE gsi2pk, gsi2sk';

/** The stored key of a condition failure, when it is the caller's. */
export function currentOf(reason: CancellationReason | undefined, userId: string): KeyRecord | undefined {
  const item = reason?.item;
  return item && item.user_id === userId ? fromKeyItem(item) : undefined;
}

/** What a rotation writes with: the key store's item builders (`DynamoKeyStore`). */
export interface RotationStore {
  readonly tableName: string;
  readonly retentionDays: number;
  key(id: string): { TableName: string; Key: Record<string, string> };
  slots(userId: string): { TableName: string; Key: Record<string, string> };
  toItem(record: KeyRecord): Record<string, unknown>;
  eventPuts(
    events: readonly KeyEvent[],
    ...keys: KeyRecord[]
  ): NonNullable<Parameters<typeof transact>[1]['TransactItems']>;
  ttlAfter(iso: string): number;
}

/**
 * A rotation (contract §5), in one transaction: the old key revoked on condition it is the
 * owner's, active and reaches the workspaces it was read with; its replacement put with its
 * workspace index entries; the person still enabled (contract §17); the events. A failed
 * condition is the port's outcome: the key as it is now, or the person's disabling.
 */
export async function rotateItems(
  doc: DynamoDBDocumentClient,
  store: RotationStore,
  { old, next, now, events }: { old: KeyRecord; next: KeyRecord; now: Date; events: readonly KeyEvent[] },
): Promise<RotateOutcome> {
  const revokedAt = now.toISOString();
  const outcome = await transact(doc, {
    TransactItems: [
      {
        Update: {
          ...store.key(old.id),
          UpdateExpression: `SET revoked_at = :revoked_at, replaced_by = :next, #ttl = :ttl ${REVOKED_LEAVES_EXPIRY_INDEX}`,
          ...conditionParams(
            allOf(
              keyOwnedBy(old.user_id),
              keyStatusIs(STATUS_RULES.active, revokedAt),
              workspacesAsRead(old.workspace_ids.length),
            ),
            'ConditionExpression',
            {
              names: { '#ttl': 'ttl' },
              values: { ':revoked_at': revokedAt, ':next': next.id, ':ttl': store.ttlAfter(revokedAt) },
            },
          ),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      { Put: { TableName: store.tableName, Item: store.toItem(next), ...conditionParams(itemIsNew) } },
      {
        ConditionCheck: {
          ...store.slots(old.user_id),
          ConditionExpression: personEnabled.expression,
          ExpressionAttributeValues: personEnabled.values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      ...store.eventPuts(events, old, next),
      ...entryPuts(store.tableName, next, store.retentionDays),
    ],
  });
  if (outcome.ok)
    return { kind: 'rotated', revoked: { ...old, revoked_at: revokedAt, replaced_by: next.id } };
  const [keyReason, nextReason, personReason] = outcome.reasons;
  const disabled = failedCondition(personReason) ? disabledOf(personReason?.item) : undefined;
  if (disabled) return { kind: 'account_disabled', disabled };
  if (failedCondition(keyReason)) {
    const current = currentOf(keyReason, old.user_id);
    if (!current) return { kind: 'not_found' };
    if (current.revoked_at) return { kind: 'already_revoked', current };
    // A cut-off removed a workspace after the read: the replacement must not carry it.
    if (current.workspace_ids.length !== old.workspace_ids.length) return { kind: 'changed', current };
    return { kind: 'expired', current };
  }
  if (failedCondition(nextReason)) throw new Error(`key id ${next.id} is already taken`);
  throw unexpected('rotate', outcome.reasons);
}
