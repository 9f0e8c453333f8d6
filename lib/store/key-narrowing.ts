import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import { type KeyRecord, STATUS_RULES } from '#lib/keys/model';
import type { Narrowed, NarrowOutcome } from '#lib/keys/port';
import { allOf, type Condition, conditionParams, keyStatusIs } from './conditions.ts';
import { KEY_SK, keyPk } from './key-item.ts';
import { failedCondition, transact, unexpected } from './transactions.ts';

/** A narrowable field is as read: the same value, or none. */
const asRead = (field: 'tools' | 'limits', value: unknown): Condition =>
  value === undefined
    ? { expression: `attribute_not_exists(${field})` }
    : { expression: `${field} = :${field}_read`, values: { [`:${field}_read`]: value } };

/**
 * A PATCH's narrowing of a key or grant (contract §19) and its events, in one transaction: the
 * item updated on condition it exists, is active and its narrowable fields are as read (a
 * concurrent narrowing is the caller's to read again), and the events put with it.
 */
export async function narrowKey(
  doc: DynamoDBDocumentClient,
  store: { tableName: string; eventPuts(events: readonly KeyEvent[], ...keys: KeyRecord[]): unknown[] },
  {
    record,
    changes,
    now,
    events,
  }: { record: KeyRecord; changes: Narrowed; now: Date; events: readonly KeyEvent[] },
): Promise<NarrowOutcome> {
  const condition = allOf(
    { expression: 'attribute_exists(pk)' },
    keyStatusIs(STATUS_RULES.active, now.toISOString()),
    asRead('tools', record.tools),
    asRead('limits', record.limits),
  );
  const fields = Object.keys(changes) as (keyof Narrowed)[];
  const outcome = await transact(doc, {
    TransactItems: [
      {
        Update: {
          TableName: store.tableName,
          Key: { pk: keyPk(record.id), sk: KEY_SK },
          UpdateExpression: `SET ${fields.map((f) => `${f} = :${f}`).join(', ')}`,
          ...conditionParams(condition, 'ConditionExpression', {
            values: Object.fromEntries(fields.map((f) => [`:${f}`, changes[f]])),
          }),
        },
      },
      ...(store.eventPuts(events, record) as NonNullable<Parameters<typeof transact>[1]['TransactItems']>),
    ],
  });
  if (outcome.ok) return { kind: 'narrowed', record: { ...record, ...changes } };
  if (failedCondition(outcome.reasons[0])) return { kind: 'changed' };
  throw unexpected('narrow', outcome.reasons);
}
