import { randomUUID } from 'node:crypto';
import {
  addUse,
  type CountedUse,
  dayAndHour,
  emptyTally,
  USAGE_WRITE_INTERVAL_MS,
  type UsageDay,
} from './model.ts';

/** Where a recorder writes: one instance's day of one credential, whole (a put, not an increment). */
export interface UsageWriter {
  putDay(day: UsageDay): Promise<void>;
}

export interface UsageRecorderOptions {
  writer: UsageWriter;
  /**
   * The id of what writes: its items are its own. @default a new UUID per recorder, so two
   * verifiers in one process never write over each other's counts
   */
  instance?: string;
  /** Credentials counted in memory at once; past it, the one first counted is forgotten, unwritten counts and all. @default 5000 */
  capacity?: number;
  /** Told when a write fails; the counts stay and go with the next write. */
  onWriteError?: (err: unknown) => void;
  /** How long a credential's counts wait between writes. @default USAGE_WRITE_INTERVAL_MS (a minute) */
  intervalMs?: number | undefined;
}

/** Besides its own, a verification writes at most this many other credentials' waiting counts. */
export const OTHER_WRITES_PER_CALL = 1;
/** How many waiting credentials a verification looks at for one that is due. */
const LOOKED_AT_PER_CALL = 8;

/** A credential's counts in this instance: each day it was counted on, and when it was last written. */
interface Counted {
  days: Map<string, UsageDay>;
  /** Days with counts not yet written, oldest first. */
  dirty: Set<string>;
  /** When a write was last started, or the first count when none was (ms since the epoch). */
  since: number;
  writing: boolean;
}

/**
 * Counts verifications in memory and writes each credential's counts at most once a minute per
 * instance (contract §18), whatever the call rate. The first write comes a minute after the first
 * count; a write carries the instance's whole day for the credential, so a failed or lost write is
 * made good by the next one. What an instance counted after its last write is lost if it ends
 * before another verification: at most a minute's calls per credential.
 */
export class UsageRecorder {
  readonly instance: string;
  private readonly counted = new Map<string, Counted>();
  /** Credentials with counts not yet written, in the order they began to wait. */
  private readonly waiting = new Set<string>();
  private readonly capacity: number;
  private readonly intervalMs: number;

  constructor(private readonly options: UsageRecorderOptions) {
    this.instance = options.instance ?? randomUUID();
    this.capacity = options.capacity ?? 5000;
    this.intervalMs = options.intervalMs ?? USAGE_WRITE_INTERVAL_MS;
  }

  /** Adds one verification of a known credential. */
  count(use: CountedUse, now: Date): void {
    let entry = this.counted.get(use.credential_id);
    if (!entry) {
      entry = { days: new Map(), dirty: new Set(), since: now.getTime(), writing: false };
      this.counted.set(use.credential_id, entry);
      if (this.counted.size > this.capacity) this.evictOldest();
    }
    const { day, hour } = dayAndHour(now);
    let record = entry.days.get(day);
    if (!record) {
      record = {
        credential_id: use.credential_id,
        kind: use.kind,
        day,
        instance: this.instance,
        hours: {},
        calls: 0,
      };
      entry.days.set(day, record);
    }
    if (use.user_id !== undefined) record.user_id = use.user_id;
    if (use.client_id !== undefined) record.client_id = use.client_id;
    const tally = record.hours[hour] ?? emptyTally();
    record.hours[hour] = tally;
    addUse(tally, use);
    record.calls += 1;
    entry.dirty.add(day);
    this.waiting.add(use.credential_id);
  }

  /**
   * Writes the counts of `credentialId` (the credential being verified) if they are due — they
   * wait, and its last write is a minute old — and those of at most OTHER_WRITES_PER_CALL other
   * credentials that are due (one no longer called still gets written, a call at a time): one write
   * each, its oldest unwritten day. Never rejects; started alongside a verification's read, it
   * adds no round trip. Undefined when nothing is due.
   */
  flushDue(now: Date, credentialId: string): Promise<void> | undefined {
    const due: string[] = [];
    if (this.isDue(credentialId, now)) due.push(credentialId);
    // Those waiting longest come first (a Set keeps insertion order); only a few are looked at.
    let looked = 0;
    let others = 0;
    for (const id of this.waiting) {
      if (looked++ === LOOKED_AT_PER_CALL || others === OTHER_WRITES_PER_CALL) break;
      if (id === credentialId || !this.isDue(id, now)) continue;
      due.push(id);
      others += 1;
    }
    // Nothing due, as on almost every call: no promise to wait for.
    if (due.length === 0) return undefined;
    return Promise.all(due.map((id) => this.write(id, now))).then(() => undefined);
  }

  /** Whether a credential's counts wait, no write of them is under way, and its last is old enough. */
  private isDue(id: string, now: Date): boolean {
    if (!this.waiting.has(id)) return false;
    const entry = this.counted.get(id) as Counted;
    return !entry.writing && now.getTime() - entry.since >= this.intervalMs;
  }

  /** Writes everything counted, whatever its age (tests; an instance told it is ending). */
  async flushAll(now: Date = new Date()): Promise<void> {
    while (this.waiting.size > 0) {
      const before = this.pending();
      await Promise.all([...this.waiting].map((id) => this.write(id, now)));
      // A failing writer: the counts stay for a later write.
      if (this.pending() >= before) return;
    }
  }

  /** Days with counts not yet written, over every credential. */
  pending(): number {
    let n = 0;
    for (const entry of this.counted.values()) n += entry.dirty.size;
    return n;
  }

  /** Writes the oldest unwritten day of a credential that waits (`waiting` holds it). */
  private async write(id: string, now: Date): Promise<void> {
    const entry = this.counted.get(id) as Counted;
    const [day] = entry.dirty as Set<string> & [string];
    const record = entry.days.get(day) as UsageDay;
    entry.writing = true;
    entry.since = now.getTime();
    entry.dirty.delete(day);
    // Behind every other waiting credential, if it still waits.
    this.waiting.delete(id);
    // A snapshot: counts added while the write is under way go with the next one.
    const snapshot = structuredClone(record);
    try {
      await this.options.writer.putDay(snapshot);
      // A past day is complete once written: only today's stays in memory.
      if (day !== dayAndHour(now).day && !entry.dirty.has(day)) entry.days.delete(day);
    } catch (err) {
      entry.dirty.add(day);
      this.options.onWriteError?.(err);
    } finally {
      entry.writing = false;
      if (entry.dirty.size > 0) this.waiting.add(id);
      else if (entry.days.size === 0) this.counted.delete(id);
    }
  }

  /** Forgets the credential counted first (called only over capacity: there is one). */
  private evictOldest(): void {
    const [oldest] = this.counted.keys() as MapIterator<string> & [string];
    this.counted.delete(oldest);
    this.waiting.delete(oldest);
  }
}
