import { type EffectiveLimit, type RateDenial, rateAttribute, windowAt } from './limits.ts';
import { Lru } from './lru.ts';

/**
 * Counting limited calls across function instances (contract §19). Each instance counts the
 * calls it allows per credential and window, and adds them to the credential's own item (a
 * `rate_<window>` counter) at most once a second, the write sent alongside the next
 * verification's read; that read, which the verification makes anyway, brings back what every
 * instance added. So a window allows at most its limit plus what the other instances allowed
 * since their last write (at most a second of their calls), a limited credential costs at most
 * one write a second per instance and no round trip, and an unlimited one costs nothing.
 */

/** An instance writes a credential's counted calls at most this often. */
export const RATE_SYNC_MS = 1000;

/** Credentials an instance keeps counts for; the least recently used is forgotten first (its unwritten calls with it). */
const MAX_CREDENTIALS = 5000;

/** Adds counted calls to a credential's counters; answers each counter's total after the add. */
export interface RateWriter {
  addRates(
    id: string,
    adds: Record<string, number>,
    removes: readonly string[],
  ): Promise<Record<string, number>>;
}

/** One window's count as this instance knows it. */
interface Counter {
  /** The largest total seen stored (a read, or a write's answer): it only grows within a window. */
  observed: number;
  /** Calls allowed here and not yet written. */
  pending: number;
}

interface CredentialRates {
  counters: Map<string, Counter>;
  lastWrite: number;
  /** The counters the last read found, to be removed once their window is over. */
  stored: string[];
}

export class RateLimiter {
  private readonly credentials = new Lru<string, CredentialRates>(MAX_CREDENTIALS);

  constructor(
    private readonly writer: RateWriter,
    private readonly onWriteError: (err: unknown) => void = () => {},
  ) {}

  /**
   * The write of `id`'s counted calls when one is due (calls waiting and a second since the last
   * write), to send alongside the verification's read; undefined otherwise, as for every
   * credential without limits. Never rejects: a failed write puts its calls back.
   */
  writeDue(id: string, now: Date): Promise<void> | undefined {
    const rates = this.credentials.get(id);
    if (!rates || now.getTime() - rates.lastWrite < RATE_SYNC_MS) return undefined;
    const adds: Record<string, number> = {};
    for (const [name, counter] of rates.counters)
      if (counter.pending > 0) {
        adds[name] = counter.pending;
        counter.pending = 0;
      }
    if (Object.keys(adds).length === 0) return undefined;
    rates.lastWrite = now.getTime();
    const live = (['minute', 'day'] as const).map((w) => rateAttribute(windowAt(w, now).id));
    const removes = rates.stored.filter((name) => !(name in adds) && !live.includes(name));
    return this.writer.addRates(id, adds, removes).then(
      (totals) => {
        for (const [name, total] of Object.entries(totals)) {
          const counter = rates.counters.get(name);
          if (counter) counter.observed = Math.max(counter.observed, total);
        }
      },
      (err: unknown) => {
        for (const [name, n] of Object.entries(adds)) {
          const counter = rates.counters.get(name);
          if (counter) counter.pending += n;
        }
        this.onWriteError(err);
      },
    );
  }

  /**
   * A valid call checked against its limits with what the verification's read found stored
   * (`stored`: counter → total): the refusal of the window it is over (the later-ending one when
   * both), or undefined, the call then counted in every window.
   */
  admit(
    id: string,
    limits: readonly EffectiveLimit[],
    stored: Record<string, number>,
    now: Date,
  ): Omit<RateDenial, 'kind'> | undefined {
    if (limits.length === 0) return undefined;
    let rates = this.credentials.get(id);
    if (!rates) {
      // Stryker disable next-line ArrayDeclaration: equivalent, `stored` is set from the read just below before anything reads it
      rates = { counters: new Map(), lastWrite: 0, stored: [] };
      this.credentials.set(id, rates);
    }
    rates.stored = Object.keys(stored);
    const windows = limits.map((limit) => {
      const window = windowAt(limit.window, now);
      const name = rateAttribute(window.id);
      const counter = rates.counters.get(name) ?? { observed: 0, pending: 0 };
      counter.observed = Math.max(counter.observed, stored[name] ?? 0);
      rates.counters.set(name, counter);
      return { limit, window, counter };
    });
    forgetEnded(rates, new Set(windows.map((w) => rateAttribute(w.window.id))));
    const over = windows
      .filter(({ limit, counter }) => counter.observed + counter.pending >= limit.limit)
      .sort((a, b) => b.window.endsAt.getTime() - a.window.endsAt.getTime())[0];
    if (over) {
      const retry = Math.max(1, Math.ceil((over.window.endsAt.getTime() - now.getTime()) / 1000));
      return { ...over.limit, until: over.window.endsAt.toISOString(), retry_after: retry };
    }
    for (const { counter } of windows) counter.pending += 1;
    return undefined;
  }
}

/** Counters of windows that ended and hold nothing unwritten are forgotten. */
function forgetEnded(rates: CredentialRates, live: Set<string>): void {
  for (const [name, counter] of rates.counters)
    if (!live.has(name) && counter.pending === 0) rates.counters.delete(name);
}
