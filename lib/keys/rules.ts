import { DAY_MS } from '#lib/limits';
import type { KeyRecord } from './model.ts';

/**
 * Lifecycle rules that are not about a key's status (that rule is in model.ts): the active-key
 * cap and its lineage accounting, the lifetime of a rotated key, and how often a use is recorded.
 * Pure functions; the use cases apply them and the store only carries out what they decide.
 */

/** A use is recorded at most this often per key (contract §6). */
export const USE_RECORD_INTERVAL_MS = 60_000;

/** Whether a key last used at `lastUsedAt` is due for a new last-use record at `now`. */
export function useIsDue(lastUsedAt: string | undefined, now: Date): boolean {
  return !lastUsedAt || now.getTime() - Date.parse(lastUsedAt) >= USE_RECORD_INTERVAL_MS;
}

/** The ISO timestamp at or before which a use counts as stale, for the store's condition. */
export const useThreshold = (now: Date): string =>
  new Date(now.getTime() - USE_RECORD_INTERVAL_MS).toISOString();

/** A new key's expiry: `days` from now. */
export const expiryAfterDays = (now: Date, days: number): string =>
  new Date(now.getTime() + days * DAY_MS).toISOString();

/**
 * A rotated key keeps the old key's remaining lifetime, capped at the deployment maximum from
 * now (contract §5).
 */
export function rotatedExpiry(old: Pick<KeyRecord, 'expires_at'>, now: Date, maxExpiryDays: number): string {
  const cap = now.getTime() + maxExpiryDays * DAY_MS;
  return new Date(Math.min(Date.parse(old.expires_at), cap)).toISOString();
}

/**
 * The cap counts lineages, not keys: a lineage (a key and every key rotated from it) holds one
 * slot from its create until its active key is revoked or expires. Rotation keeps the slot.
 * `slots` maps each lineage holding a slot to the expiry it was counted with.
 */
export type LineageSlots = Record<string, string>;

/** Lineages whose slot has lapsed because their key expired: they may be released. */
export function lapsedLineages(slots: LineageSlots, now: Date): LineageSlots {
  return Object.fromEntries(
    Object.entries(slots).filter(([, expiresAt]) => Date.parse(expiresAt) <= now.getTime()),
  );
}

/** Whether a user holding `slots` may start another lineage under a cap of `max`. */
export function hasFreeSlot(slots: LineageSlots, max: number, now: Date): boolean {
  const lapsed = Object.keys(lapsedLineages(slots, now)).length;
  return Object.keys(slots).length - lapsed < max;
}
