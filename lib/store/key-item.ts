import { RATE_PREFIX } from '#lib/keys/limits';
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

/** The key item's count of a UTC day's calls (usage-items.ts adds to it; `calls_by_day` reads it). */
const DAY_CALLS = 'calls_on_';
export const dayCallsAttribute = (day: string): string => `${DAY_CALLS}${day}`;

/**
 * A key record from its stored item: its days' counts gathered into `calls_by_day`, its limited
 * calls' counters (`rate_<window>`, contract §19) into `rate_counts`.
 */
export function fromKeyItem(item: Record<string, unknown>): KeyRecord {
  const record: Record<string, unknown> = {};
  const days: Record<string, number> = {};
  const rates: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(DAY_CALLS)) days[name.slice(DAY_CALLS.length)] = value as number;
    else if (name.startsWith(RATE_PREFIX)) rates[name] = value as number;
    else if (!ITEM_ONLY.has(name)) record[name] = value;
  }
  if (Object.keys(days).length > 0) record.calls_by_day = days;
  if (Object.keys(rates).length > 0) record.rate_counts = rates;
  return record as unknown as KeyRecord;
}
