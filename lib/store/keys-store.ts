import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import { type KeyRecord, REVOCABLE } from '#lib/keys/model';
import type {
  EventPage,
  EventQuery,
  InsertOutcome,
  KeyStore,
  ListPage,
  ListQuery,
  Narrowed,
  NarrowOutcome,
  RevokeOutcome,
  RotateOutcome,
} from '#lib/keys/port';
import type { LineageSlots } from '#lib/keys/rules';
import {
  allOf,
  conditionParams,
  itemIsNew,
  keyOwnedBy,
  keyStatusIs,
  personEnabled,
  slotIsFree,
  slotItemExists,
} from './conditions.ts';
import { disabledOf, eventItem, KEY_SK, keyItem, keyPk, SLOTS_SK, slotsPk, ttlAfter } from './items.ts';
import { narrowKey } from './key-narrowing.ts';
import { DynamoKeyReads, readKeys } from './key-reads.ts';
import { currentOf, REVOKED_LEAVES_EXPIRY_INDEX, rotateItems } from './key-rotation.ts';
import { queryLineageEvents, queryUserKeys } from './queries.ts';
import { DynamoSlotItems } from './slot-items.ts';
import { type CancellationReason, failedCondition, transact, unexpected } from './transactions.ts';
import { entryPuts } from './workspace-items.ts';

export { KEY_SK, keyPk, SLOTS_SK, slotsPk, userGsiPk, userGsiSk } from './items.ts';

/**
 * The keys table: the DynamoDB adapter of the lifecycle's `KeyStore` port. It carries out what
 * the use cases decide and reports DynamoDB's outcomes as the port's outcomes; it holds no rule
 * of its own and knows nothing of HTTP. The events a change brings are written in its
 * transaction, after the items of the change (so cancellation reasons keep their positions).
 */
export class DynamoKeyStore implements KeyStore {
  /** The read by id and the last-use write, shared with the key verifier. */
  private readonly reads: DynamoKeyReads;
  /** The person's slot item: the cap's slots and the identity providers' disablings. */
  readonly slotItems: DynamoSlotItems;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    readonly tableName: string,
    /** Days an item is kept after its key's end (the TTL). */
    readonly retentionDays: number,
  ) {
    this.reads = new DynamoKeyReads(doc, tableName);
    this.slotItems = new DynamoSlotItems(doc, tableName);
  }

  ttlAfter(iso: string): number {
    return ttlAfter(iso, this.retentionDays);
  }

  key(id: string) {
    return { TableName: this.tableName, Key: { pk: keyPk(id), sk: KEY_SK } };
  }

  slots(userId: string) {
    return { TableName: this.tableName, Key: { pk: slotsPk(userId), sk: SLOTS_SK } };
  }

  /** The stored item of a key record (key attributes, GSI attributes and TTL added). */
  toItem(record: KeyRecord): Record<string, unknown> {
    return keyItem(record, this.retentionDays);
  }

  /** Puts of `events`, each kept as long as the key (among `keys`) it is about. */
  eventPuts(events: readonly KeyEvent[], ...keys: KeyRecord[]) {
    return events.map((event) => {
      const expiresAt = keys.find((k) => k.id === event.key_id)?.expires_at ?? event.occurred_at;
      return {
        Put: {
          TableName: this.tableName,
          Item: eventItem(event, expiresAt, this.retentionDays),
          ...conditionParams(itemIsNew),
        },
      };
    });
  }

  get(id: string): Promise<KeyRecord | undefined> {
    return this.reads.get(id);
  }

  /** BatchGetItem, 100 ids a call (`readKeys`). */
  getMany(ids: readonly string[]): Promise<Map<string, KeyRecord>> {
    return readKeys(this.doc, this.tableName, ids);
  }

  /** The changes and their events in one transaction, on condition the key is as read and active (`narrowKey`). */
  narrow(
    record: KeyRecord,
    changes: Narrowed,
    now: Date,
    events: readonly KeyEvent[],
  ): Promise<NarrowOutcome> {
    const store = { tableName: this.tableName, eventPuts: this.eventPuts.bind(this) };
    return narrowKey(this.doc, store, { record, changes, now, events });
  }

  /** One transaction: the key, and its lineage in the user's slots if the map has room (a user's first key creates it). */
  insert(record: KeyRecord, maxSlots: number, events: readonly KeyEvent[]): Promise<InsertOutcome> {
    return this.insertWith(record, maxSlots, events, []);
  }

  /**
   * `insert`, with more items in its transaction (after the insert's own, so their cancellation
   * reasons come last); `extraFailed` is told their reasons when one of them failed its condition.
   */
  async insertWith<T>(
    record: KeyRecord,
    maxSlots: number,
    events: readonly KeyEvent[],
    extra: NonNullable<Parameters<typeof transact>[1]['TransactItems']>,
    extraFailed?: (reasons: CancellationReason[]) => T,
  ): Promise<InsertOutcome | T> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const items = [
        { Put: { TableName: this.tableName, Item: this.toItem(record), ...conditionParams(itemIsNew) } },
        {
          Update: {
            ...this.slots(record.user_id),
            UpdateExpression: 'SET active.#lineage = :expires',
            ...conditionParams(
              allOf(slotIsFree(record.lineage_id, maxSlots), personEnabled),
              'ConditionExpression',
              {
                values: { ':expires': record.expires_at },
              },
            ),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
          },
        },
        ...this.eventPuts(events, record),
        ...entryPuts(this.tableName, record, this.retentionDays),
      ];
      const outcome = await transact(this.doc, { TransactItems: [...items, ...extra] });
      if (outcome.ok) return { kind: 'inserted' };
      const late = outcome.reasons.slice(items.length);
      if (extraFailed && late.some(failedCondition)) return extraFailed(late);
      const [keyReason, slotReason] = outcome.reasons;
      if (failedCondition(keyReason)) throw new Error(`key id ${record.id} is already taken`);
      if (!failedCondition(slotReason)) throw unexpected('insert', outcome.reasons);
      const disabled = disabledOf(slotReason?.item);
      if (disabled) return { kind: 'account_disabled', disabled };
      const held = slotReason?.item?.active as LineageSlots | undefined;
      if (held) return { kind: 'no_free_slot', slots: held };
      await this.slotItems.create(record.user_id);
    }
    throw new Error('the slot item could not be created');
  }

  releaseSlots(userId: string, slots: LineageSlots): Promise<void> {
    return this.slotItems.release(userId, slots);
  }

  async revoke(record: KeyRecord, now: Date, events: readonly KeyEvent[]): Promise<RevokeOutcome> {
    const revokedAt = now.toISOString();
    const outcome = await transact(this.doc, {
      TransactItems: [
        {
          Update: {
            ...this.key(record.id),
            UpdateExpression: `SET revoked_at = :revoked_at, #ttl = :ttl ${REVOKED_LEAVES_EXPIRY_INDEX}`,
            ...conditionParams(
              allOf(keyOwnedBy(record.user_id), keyStatusIs(REVOCABLE, revokedAt)),
              'ConditionExpression',
              {
                names: { '#ttl': 'ttl' },
                values: { ':revoked_at': revokedAt, ':ttl': this.ttlAfter(revokedAt) },
              },
            ),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Update: {
            ...this.slots(record.user_id),
            UpdateExpression: 'REMOVE active.#lineage',
            ...conditionParams(slotItemExists, 'ConditionExpression', {
              names: { '#lineage': record.lineage_id },
            }),
          },
        },
        ...this.eventPuts(events, record),
      ],
    });
    if (outcome.ok) return { kind: 'revoked', record: { ...record, revoked_at: revokedAt } };
    const [keyReason, slotReason] = outcome.reasons;
    if (failedCondition(keyReason)) {
      const current = currentOf(keyReason, record.user_id);
      return current ? { kind: 'already_revoked', current } : { kind: 'not_found' };
    }
    if (failedCondition(slotReason))
      throw new Error(`slot item missing for a user with keys (key ${record.id})`);
    throw unexpected('revoke', outcome.reasons);
  }

  /** The old key revoked and its replacement put in one transaction (`rotateItems`). */
  rotate(old: KeyRecord, next: KeyRecord, now: Date, events: readonly KeyEvent[]): Promise<RotateOutcome> {
    return rotateItems(this.doc, this, { old, next, now, events });
  }

  recordUse(id: string, now: Date): Promise<boolean> {
    return this.reads.recordUse(id, now);
  }

  listByUser(userId: string, query: ListQuery): Promise<ListPage> {
    return queryUserKeys(this.doc, this.tableName, userId, query);
  }

  listLineageEvents(lineageId: string, query: EventQuery): Promise<EventPage> {
    return queryLineageEvents(this.doc, this.tableName, lineageId, query);
  }
}
