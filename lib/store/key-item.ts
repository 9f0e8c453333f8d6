import type { KeyRecord } from '#lib/keys/model';

/**
 * The key item of the keys table (`KEY#<id>`, `KEY`; the whole layout is in `items.ts`): what
 * reading a key by id needs, and nothing of events, slots or indexes, so the key verifier
 * imports it alone.
 */
export const keyPk = (id: string): string => `KEY#${id}`;
export const KEY_SK = 'KEY';

/** Attributes of the stored item that are not the key record's. */
const ITEM_ONLY = new Set([
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'ttl',
  'notified_7',
  'notified_1',
  'notified_expired',
]);

/** A key record from its stored item. */
export function fromKeyItem(item: Record<string, unknown>): KeyRecord {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !ITEM_ONLY.has(k))) as unknown as KeyRecord;
}
