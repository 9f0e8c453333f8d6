import { dueNotice, nextNoticeAt } from './expiry.ts';
import type { ExpiryStore } from './port.ts';

/** Transactions in flight at once while a page of due keys is written. */
const CONCURRENCY = 10;

export interface SweepSummary {
  now: string;
  /** Keys the index returned as due. */
  due: number;
  /** Events written, by type and threshold. */
  written: { expiring_7: number; expiring_1: number; expired: number };
  /** Due keys whose notice was already written, that were revoked meanwhile, or that the index listed before any notice was due. */
  skipped: number;
  /** Items DynamoDB read, and the read capacity units consumed, to find the due keys. */
  items_read: number;
  read_units: number;
}

/**
 * The expiry sweep (contract §10): for every key whose next notice is due at `now`, write that
 * notice's event exactly once (`key.expiring` at 7 and 1 days left, `key.expired` after the
 * expiry). Keys are found through the index of due notices, so the cost follows the keys due,
 * not the size of the table; running it again, or twice at once, writes nothing twice.
 */
export async function runExpirySweep(deps: { expiry: ExpiryStore }, now: Date): Promise<SweepSummary> {
  const summary: SweepSummary = {
    now: now.toISOString(),
    due: 0,
    written: { expiring_7: 0, expiring_1: 0, expired: 0 },
    skipped: 0,
    items_read: 0,
    read_units: 0,
  };
  for await (const page of deps.expiry.dueKeys(now)) {
    summary.items_read += page.itemsRead;
    summary.read_units += page.readUnits;
    summary.due += page.keys.length;
    // Stryker disable next-line EqualityOperator: equivalent, a slice from the end is empty and writes nothing
    for (let i = 0; i < page.keys.length; i += CONCURRENCY) {
      await Promise.all(
        page.keys.slice(i, i + CONCURRENCY).map(async (key) => {
          const notice = dueNotice(key.expires_at, now);
          // An index entry ahead of the key's notices (written by hand, or by an older schedule)
          // is skipped, not written: the notice's own condition is what makes a write exactly once.
          if (!notice) {
            summary.skipped++;
            return;
          }
          const event = notice.build(key, now);
          if (!(await deps.expiry.recordNotice(key, notice, event, nextNoticeAt(notice, key.expires_at)))) {
            summary.skipped++;
            return;
          }
          if (event.type === 'key.expired') summary.written.expired++;
          else if (event.type === 'key.expiring') summary.written[`expiring_${event.details.days_left}`]++;
        }),
      );
    }
  }
  return summary;
}
