import { DAY_MS } from '#lib/limits';
import {
  type EventSubject,
  EXPIRY_THRESHOLDS,
  type ExpiryThreshold,
  type KeyEvent,
  keyExpired,
  keyExpiring,
} from './model.ts';

/**
 * The expiry notices of a key, as data: `key.expiring` when 7 and when 1 day remain, then
 * `key.expired`, each at most once. A key is indexed under the time of its next notice, so a
 * sweep reads only the keys that are due. Pure functions; the sweep and the store apply them.
 */
export interface Notice {
  /** Stored on the key once the notice is written; its absence is the exactly-once condition. */
  marker: string;
  /** Days before the expiry at which the notice is due (0: at the expiry). */
  daysBefore: number;
  build(key: NoticeSubject, now: Date): KeyEvent;
}

/** What a notice reads of a key. */
export interface NoticeSubject extends EventSubject {
  expires_at: string;
}

const expiring = (daysLeft: ExpiryThreshold): Notice => ({
  marker: `notified_${daysLeft}`,
  daysBefore: daysLeft,
  build: (key, now) => keyExpiring(key, daysLeft, now),
});

/** In the order they fall due. */
export const NOTICES: readonly Notice[] = [
  ...EXPIRY_THRESHOLDS.map(expiring),
  { marker: 'notified_expired', daysBefore: 0, build: (key, now) => keyExpired(key, now) },
];

const dueTime = (notice: Notice, expiresAt: string): number =>
  Date.parse(expiresAt) - notice.daysBefore * DAY_MS;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * When a new key's first notice falls due. A threshold the key starts within is not announced:
 * a key created (or rotated) with 5 days left gets the 1-day notice, not a stale 7-day one.
 * Every key gets at least `key.expired`.
 */
export function firstNoticeAt(record: { created_at: string; expires_at: string }): string {
  const created = Date.parse(record.created_at);
  const first = NOTICES.find((n) => dueTime(n, record.expires_at) > created);
  return iso(dueTime(first ?? (NOTICES.at(-1) as Notice), record.expires_at));
}

/**
 * The notice to write for a key at `now`: the latest one due. A sweep that ran late writes
 * "1 day left" rather than a stale "7 days left", and only `key.expired` once it has expired.
 */
export function dueNotice(expiresAt: string, now: Date): Notice | undefined {
  return NOTICES.findLast((n) => dueTime(n, expiresAt) <= now.getTime());
}

/** When the notice after `notice` falls due; undefined after the last one. */
export function nextNoticeAt(notice: Notice, expiresAt: string): string | undefined {
  const next = NOTICES[NOTICES.indexOf(notice) + 1];
  return next && iso(dueTime(next, expiresAt));
}

/** The markers that must all be absent to write `notice`: its own and every later one's. */
export const markersFrom = (notice: Notice): string[] =>
  NOTICES.slice(NOTICES.indexOf(notice)).map((n) => n.marker);
