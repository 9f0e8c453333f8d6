import { randomUUID } from 'node:crypto';
import {
  addUse,
  type CountedUse,
  dayAndHour,
  emptyTally,
  USAGE_WRITE_INTERVAL_MS,
  type UsageDay,
  writtenAtOnce,
} from './model.ts';

/**
 * Where a recorder writes: one instance's day of one credential, whole (a put, not an increment),
 * and, where the writer keeps them, the calls added to the credential's own per-day count (what
 * its owner's list shows as `calls_7d`, without a read of its own).
 */
export interface UsageWriter {
  putDay(day: UsageDay): Promise<void>;
  /** Adds `calls` to the credential's count of `day`. */
  addCalls?(credentialId: string, day: string, calls: number): Promise<void>;
}

export interface UsageRecorderOptions {
  writer: UsageWriter;
  /**
   * The id of what writes: its items are its own. @default a new UUID per recorder, so two
   * verifiers in one process never write over each other's counts
   */
  instance?: string;
  /** Credentials counted in memory at once; past it, the one first counted is written and forgotten. @default 5000 */
  capacity?: number;
  /** Told when a write fails; the counts stay and go with the next write (a forgotten credential's are lost). */
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
  id: string;
  days: Map<string, UsageDay>;
  /** Days with counts not yet written, oldest first. */
  dirty: Set<string>;
  /** When a write was last started, or the first count when none was (ms since the epoch). */
  since: number;
  writing: boolean;
  /** When a refusal's write at once last started (ms), if one did. */
  atOnce?: number | undefined;
  /** A write at once asked for while another write was under way: it goes as that one ends. */
  atOnceNext?: { at: Date; day: string } | undefined;
  /** Forgotten past capacity: what it still holds is written, then it is gone. */
  forgotten: boolean;
  /** By day: the calls this instance added to the credential's own count of the day. */
  added: Map<string, number>;
}

/**
 * Counts verifications in memory and writes each credential's counts at most once a minute per
 * instance (contract §18), whatever the call rate, plus at once for a refusal of a revoked or
 * expired credential (at most once a minute more, so a key hammered after its revocation is two
 * writes a minute). A write carries the instance's whole day for the credential, so a failed or
 * lost write is made good by the next. Counts wait for a call a minute after the credential's last
 * write, a timer (`writeDue`, local mode) or the instance's end (`flushAll`: the authorizer's
 * SIGTERM on Lambda); a credential forgotten past capacity is written as it goes, and counted
 * again into an item of its own (`instance.n`), never over what was written. The loss bound: an
 * instance that ends without `flushAll` (a crash, or its writes cut off) loses what it counted
 * after each credential's last write, and nothing else.
 */
export class UsageRecorder {
  readonly instance: string;
  private readonly counted = new Map<string, Counted>();
  /** Credentials with counts not yet written, in the order they began to wait. */
  private readonly waiting = new Set<string>();
  /** Writes under way, which an instance that ends waits for. */
  private readonly writes = new Set<Promise<void>>();
  /** How often the instance forgot counts (a credential past capacity, a day that ended and was written). */
  private forgotten = 0;
  private readonly capacity: number;
  private readonly intervalMs: number;

  constructor(private readonly options: UsageRecorderOptions) {
    this.instance = options.instance ?? randomUUID();
    this.capacity = options.capacity ?? 5000;
    this.intervalMs = options.intervalMs ?? USAGE_WRITE_INTERVAL_MS;
  }

  /** Adds one verification of a known credential; a revoked or expired refusal starts its write at once. */
  count(use: CountedUse, now: Date): void {
    let entry = this.counted.get(use.credential_id);
    if (!entry) {
      entry = {
        id: use.credential_id,
        days: new Map(),
        dirty: new Set(),
        since: now.getTime(),
        writing: false,
        forgotten: false,
        added: new Map(),
      };
      this.counted.set(use.credential_id, entry);
      if (this.counted.size > this.capacity) this.forgetOldest(now);
    }
    const { day, hour } = dayAndHour(now);
    let record = entry.days.get(day);
    if (!record) {
      record = {
        credential_id: use.credential_id,
        kind: use.kind,
        day,
        // Counted again after the instance forgot days: an item of its own, never over a written one.
        instance: this.forgotten === 0 ? this.instance : `${this.instance}.${this.forgotten}`,
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
    if (writtenAtOnce(use.outcome)) this.writeAtOnce(entry, now, day);
  }

  /**
   * Writes the counts of `credentialId` (the credential being verified) if they are due — they
   * wait, and its last write is a minute old — and those of at most OTHER_WRITES_PER_CALL other
   * credentials that are due (one no longer called still gets written, a call at a time): one write
   * each, its oldest unwritten day. Never rejects; started alongside a verification's read, it
   * adds no round trip. Undefined when nothing is due.
   */
  flushDue(now: Date, credentialId: string): Promise<void> | undefined {
    const due: Counted[] = [];
    const own = this.dueEntry(credentialId, now);
    if (own) due.push(own);
    // Those waiting longest come first (a Set keeps insertion order); only a few are looked at.
    let looked = 0;
    let others = 0;
    for (const id of this.waiting) {
      if (looked++ === LOOKED_AT_PER_CALL || others === OTHER_WRITES_PER_CALL) break;
      const entry = id === credentialId ? undefined : this.dueEntry(id, now);
      if (!entry) continue;
      due.push(entry);
      others += 1;
    }
    // Nothing due, as on almost every call: no promise to wait for.
    if (due.length === 0) return undefined;
    return Promise.all(due.map((entry) => this.start(entry, now))).then(() => undefined);
  }

  /** Writes every credential whose counts are due (a timer's tick, where no call may come). Never rejects. */
  async writeDue(now: Date): Promise<void> {
    const due = [...this.waiting].flatMap((id) => this.dueEntry(id, now) ?? []);
    await Promise.all(due.map((entry) => this.start(entry, now)));
  }

  /** Writes everything counted, whatever its age, after the writes under way (tests; an instance that ends). */
  async flushAll(now: Date = new Date()): Promise<void> {
    for (;;) {
      if (this.writes.size > 0) await Promise.all(this.writes);
      // Stryker disable next-line ArrayDeclaration: equivalent, a credential waits only while it is counted (forgetOldest drops it from both; a write's end drops it from `counted` only with no day left unwritten, so not waiting)
      const idle = [...this.waiting].flatMap((id) => this.counted.get(id) ?? []).filter((e) => !e.writing);
      if (idle.length === 0 && this.writes.size === 0) return;
      const before = this.pending();
      await Promise.all(idle.map((entry) => this.start(entry, now)));
      // A failing writer: the counts stay for a later write.
      if (this.pending() >= before && this.writes.size === 0) return;
    }
  }

  /** Days with counts not yet written, over every credential. */
  pending(): number {
    let n = 0;
    for (const entry of this.counted.values()) n += entry.dirty.size;
    return n;
  }

  /** A credential whose counts wait, with no write of them under way and its last old enough. */
  private dueEntry(id: string, now: Date): Counted | undefined {
    const entry = this.waiting.has(id) ? this.counted.get(id) : undefined;
    return entry && !entry.writing && now.getTime() - entry.since >= this.intervalMs ? entry : undefined;
  }

  /** A refusal's write at once: unless one went within the minute; after the write under way, if there is one. */
  private writeAtOnce(entry: Counted, now: Date, day: string): void {
    if (entry.atOnce !== undefined && now.getTime() - entry.atOnce < this.intervalMs) return;
    if (entry.writing) {
      entry.atOnceNext ??= { at: now, day };
      return;
    }
    entry.atOnce = now.getTime();
    void this.start(entry, now, day);
  }

  /** Starts a write of the credential's oldest unwritten day (or `day`), kept until it ends. */
  private start(entry: Counted, now: Date, day?: string): Promise<void> {
    const writing = this.write(entry, now, day);
    this.writes.add(writing);
    return writing.finally(() => this.writes.delete(writing));
  }

  /** Writes one unwritten day of a credential that has one; never rejects. */
  private async write(entry: Counted, now: Date, only?: string): Promise<void> {
    const [oldest] = entry.dirty as Set<string> & [string];
    // Stryker disable next-line LogicalOperator: equivalent, a day asked for is always one waiting (a refusal's count marks it before its write at once)
    const day = only !== undefined && entry.dirty.has(only) ? only : oldest;
    const record = entry.days.get(day) as UsageDay;
    entry.writing = true;
    entry.since = now.getTime();
    entry.dirty.delete(day);
    // Behind every other waiting credential, if it still waits.
    this.waiting.delete(entry.id);
    // A snapshot: counts added while the write is under way go with the next one.
    const snapshot = structuredClone(record);
    try {
      await this.putAndAdd(entry, snapshot);
      // A past day is complete once written: only today's stays in memory.
      if (day !== dayAndHour(now).day && !entry.dirty.has(day)) this.forgetDay(entry, day);
    } catch (err) {
      // A forgotten credential's counts have no later write to go with.
      if (!entry.forgotten) entry.dirty.add(day);
      this.options.onWriteError?.(err);
    } finally {
      entry.writing = false;
      this.afterWrite(entry, now);
    }
  }

  /**
   * The day's item, and alongside it what the credential's own count of the day lacks (each part
   * on its own: a failed part is retried with the next write, a part that landed is not repeated).
   */
  private async putAndAdd(entry: Counted, snapshot: UsageDay): Promise<void> {
    const { writer } = this.options;
    const added = entry.added.get(snapshot.day) ?? 0;
    const missing = snapshot.calls - added;
    const [put, add] = await Promise.allSettled([
      writer.putDay(snapshot),
      missing > 0 && writer.addCalls ? writer.addCalls(entry.id, snapshot.day, missing) : undefined,
    ]);
    if (add.status === 'fulfilled') entry.added.set(snapshot.day, added + Math.max(missing, 0));
    if (put.status === 'rejected') throw put.reason;
    if (add.status === 'rejected') throw add.reason;
  }

  /** What follows a credential's write: the write at once asked for meanwhile, its wait, or its end. */
  private afterWrite(entry: Counted, now: Date): void {
    const next = entry.atOnceNext;
    entry.atOnceNext = undefined;
    if (entry.forgotten) {
      if (entry.dirty.size > 0) void this.start(entry, now);
    } else if (next && entry.dirty.size > 0) {
      entry.atOnce = next.at.getTime();
      void this.start(entry, next.at, next.day);
    } else if (entry.dirty.size > 0) this.waiting.add(entry.id);
    else if (entry.days.size === 0) this.counted.delete(entry.id);
  }

  /** Forgets a written day: counted again, it goes into an item of its own. */
  private forgetDay(entry: Counted, day: string): void {
    entry.days.delete(day);
    entry.added.delete(day);
    this.forgotten += 1;
  }

  /** Forgets the credential counted first (called only over capacity: there is one), writing what it holds. */
  private forgetOldest(now: Date): void {
    const [oldest] = this.counted.values() as MapIterator<Counted> & [Counted];
    this.counted.delete(oldest.id);
    this.waiting.delete(oldest.id);
    oldest.forgotten = true;
    this.forgotten += 1;
    // A write under way writes the rest as it ends (afterWrite).
    if (!oldest.writing && oldest.dirty.size > 0) void this.start(oldest, now);
  }
}
