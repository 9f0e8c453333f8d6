import { firstNoticeAt } from '#lib/events/expiry';
import { EVENT_TYPES, type KeyEvent } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { EventPosition, PersonDisabled } from '#lib/keys/port';
import { DAY_MS } from '#lib/limits';
import { KEY_SK, keyPk } from './key-item.ts';

/**
 * The keys table's item layout, written once: pure key builders and item mappers shared by the
 * adapters in this folder. The key item's own (`keyPk`, `KEY_SK`, `fromKeyItem`) live in
 * `key-item.ts`, which the verifier's reads import without the rest.
 *
 * | item              | pk                    | sk                              |
 * |-------------------|-----------------------|---------------------------------|
 * | key               | `KEY#<id>`            | `KEY`                           |
 * | a user's slots    | `USER#<user_id>`      | `ACTIVE_KEYS`                   |
 *
 * A user's slot item also holds `disabled_by` when an identity provider disabled them: every mint
 * writes or checks the item in its transaction, so none lands after the signal.
 * | event             | `LINEAGE#<lineage_id>`| `EVENT#<occurred_at>#<event id>`|
 */
export { fromKeyItem, KEY_SK, keyPk } from './key-item.ts';
export const userGsiPk = (userId: string): string => `USER#${userId}`;
export const userGsiSk = (createdAt: string, id: string): string => `${createdAt}#${id}`;
/** The per-user item mapping each lineage that holds a slot under the cap to its expiry. */
export const slotsPk = (userId: string): string => `USER#${userId}`;
export const SLOTS_SK = 'ACTIVE_KEYS';

/**
 * What an identity provider's disabling left on a slot item (`disabled_by`, a map by issuer), the
 * earliest first; undefined when none did.
 */
export function disabledOf(item: Record<string, unknown> | undefined): PersonDisabled | undefined {
  const byIssuer = item?.disabled_by as Record<string, Omit<PersonDisabled, 'issuer'>> | undefined;
  const all = Object.entries(byIssuer ?? {}).map(([issuer, mark]) => ({ issuer, ...mark }));
  return all.sort((a, b) => a.at.localeCompare(b.at))[0];
}
/** A lineage's events share a partition, so its history is one query. */
export const lineagePk = (lineageId: string): string => `LINEAGE#${lineageId}`;
export const LINEAGE_PREFIX = 'LINEAGE#';
export const EVENT_PREFIX = 'EVENT#';
export const eventSk = (position: EventPosition): string =>
  `${EVENT_PREFIX}${position.occurred_at}#${position.id}`;

/**
 * The expiry index is spread over a few fixed partitions so no single one takes every key's
 * writes; a sweep queries each of them (an empty query costs 0.5 read units).
 */
export const EXPIRY_SHARDS = 4;
export const expiryShardKey = (shard: number): string => `EXPIRY#${shard}`;
export const expiryShard = (keyId: string): string =>
  expiryShardKey(Number.parseInt(keyId.slice(0, 1), 16) % EXPIRY_SHARDS);

/** Epoch seconds `retentionDays` after `iso`: when DynamoDB TTL may delete the item. */
export const ttlAfter = (iso: string, retentionDays: number): number =>
  Math.floor((Date.parse(iso) + retentionDays * DAY_MS) / 1000);

/** The stored item of a key record: key attributes, both indexes' attributes and the TTL. */
export function keyItem(record: KeyRecord, retentionDays: number): Record<string, unknown> {
  // The days' counts and the limits' counters are their writers' own attributes, never written whole.
  const { calls_by_day: _calls, rate_counts: _rates, ...stored } = record;
  return {
    ...stored,
    pk: keyPk(record.id),
    sk: KEY_SK,
    gsi1pk: userGsiPk(record.user_id),
    gsi1sk: userGsiSk(record.created_at, record.id),
    // A revoked key has no notice to come, so it stays out of the expiry index.
    ...(!record.revoked_at && { gsi2pk: expiryShard(record.id), gsi2sk: firstNoticeAt(record) }),
    ttl: ttlAfter(record.revoked_at ?? record.expires_at, retentionDays),
  };
}

/**
 * The stored item of an event. It is kept as long as the key it is about: until `retentionDays`
 * after the later of its time and the key's expiry.
 */
export function eventItem(event: KeyEvent, keyExpiresAt: string, retentionDays: number) {
  const keptFrom = event.occurred_at > keyExpiresAt ? event.occurred_at : keyExpiresAt;
  return {
    ...event,
    pk: lineagePk(event.lineage_id),
    sk: eventSk(event),
    ttl: ttlAfter(keptFrom, retentionDays),
  };
}

/** An event from its stored item (or stream image); undefined for any other item. */
export function fromEventItem(item: Record<string, unknown> | undefined): KeyEvent | undefined {
  if (!item || typeof item.pk !== 'string' || !item.pk.startsWith(LINEAGE_PREFIX)) return undefined;
  if (!(EVENT_TYPES as readonly unknown[]).includes(item.type)) return undefined;
  const { pk: _pk, sk: _sk, ttl: _ttl, ...event } = item;
  return event as unknown as KeyEvent;
}
