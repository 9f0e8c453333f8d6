import { AppError, type FieldProblem } from '#lib/errors';
import { DAY_MS } from '#lib/limits';
import { emptyTally, mergeTally, type Tally, type UsageDay } from './model.ts';

/**
 * Usage as the API reports it (contract §18): a credential's buckets over a range, summed over
 * every instance that counted it, over the reader port. The use cases: lib/keys/usage-views.ts (a
 * person's credentials) and lib/workspaces/usage.ts (a workspace's).
 */

/** What the API reads of usage: a credential's stored days, every instance's. */
export interface UsageReader {
  daysOf(credentialId: string, fromDay: string, toDay: string): Promise<UsageDay[]>;
}

export const GRANULARITIES = ['hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** The longest range each granularity may ask for: 14 days of hours, 92 of days. */
export const MAX_RANGE_DAYS: Record<Granularity, number> = { hour: 14, day: 92 };
/** A range's length when `from` is not given. */
export const DEFAULT_RANGE_DAYS: Record<Granularity, number> = { hour: 1, day: 30 };

const HOUR_MS = 3_600_000;
const STEP_MS: Record<Granularity, number> = { hour: HOUR_MS, day: DAY_MS };

/** A range of whole buckets: `from` at a bucket's start, `to` the end of the last. */
export interface UsageRange {
  from: Date;
  to: Date;
  granularity: Granularity;
}

export interface UsageBucket extends Tally {
  /** The bucket's start (ISO 8601, UTC). */
  start: string;
}

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;
const ceilTo = (ms: number, step: number) => Math.ceil(ms / step) * step;

/**
 * The range a request asks for, widened to whole buckets: `to` defaults to now, `from` to
 * DEFAULT_RANGE_DAYS before `to`. Throws `validation_failed` naming `from` or `to` for an
 * unreadable time, a `from` not before `to`, or a range longer than MAX_RANGE_DAYS.
 */
export function usageRange(
  query: { from?: string | undefined; to?: string | undefined; granularity?: Granularity | undefined },
  now: Date,
): UsageRange {
  const granularity = query.granularity ?? 'day';
  const step = STEP_MS[granularity];
  const problems: FieldProblem[] = [];
  const time = (name: 'from' | 'to', value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) problems.push({ path: name, message: 'must be an ISO 8601 date-time' });
    return ms;
  };
  const toMs = time('to', query.to, now.getTime());
  const fromMs = time('from', query.from, toMs - DEFAULT_RANGE_DAYS[granularity] * DAY_MS);
  const from = floorTo(fromMs, step);
  const to = ceilTo(toMs, step);
  if (problems.length === 0 && from >= to) problems.push({ path: 'from', message: 'must be before `to`' });
  if (problems.length === 0 && to - from > MAX_RANGE_DAYS[granularity] * DAY_MS)
    problems.push({
      path: 'from',
      message: `the range may span at most ${MAX_RANGE_DAYS[granularity]} days at granularity ${granularity}`,
    });
  if (problems.length > 0)
    throw new AppError('validation_failed', 'The request failed validation.', { errors: problems });
  return { from: new Date(from), to: new Date(to), granularity };
}

/** The UTC days a range touches, for the reader. */
export const daysOfRange = (range: UsageRange): [string, string] => [
  range.from.toISOString().slice(0, 10),
  new Date(range.to.getTime() - 1).toISOString().slice(0, 10),
];

/** Every bucket of the range, empty ones included, with what the stored days counted in each. */
export function bucketsOf(days: readonly UsageDay[], range: UsageRange): UsageBucket[] {
  const step = STEP_MS[range.granularity];
  const buckets = new Map<number, UsageBucket>();
  for (let at = range.from.getTime(); at < range.to.getTime(); at += step)
    buckets.set(at, { start: new Date(at).toISOString(), ...emptyTally() });
  for (const day of days)
    for (const [hour, tally] of Object.entries(day.hours)) {
      const at = floorTo(Date.parse(`${day.day}T${hour}:00:00.000Z`), step);
      const bucket = buckets.get(at);
      if (bucket) mergeTally(bucket, tally);
    }
  return [...buckets.values()];
}

/** The sum of a range's buckets. */
export const totalOf = (buckets: readonly Tally[]): Tally =>
  buckets.reduce<Tally>((sum, bucket) => mergeTally(sum, bucket), emptyTally());

/** Reads of several credentials' usage run this many at a time. */
const READ_CONCURRENCY = 16;

/** What reading usage needs: the reader (none: every credential's usage is empty) and the clock. */
export interface UsageDeps {
  usage?: UsageReader | undefined;
  now: () => Date;
}

/** Runs `run` over `items`, READ_CONCURRENCY at a time, results in order. */
export async function inTurn<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await run(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
  return results;
}

/** A credential's stored days over a range; none without a reader. */
export const daysIn = (deps: UsageDeps, id: string, range: UsageRange): Promise<UsageDay[]> =>
  deps.usage ? deps.usage.daysOf(id, ...daysOfRange(range)) : Promise.resolve([]);

export const USAGE_GROUPINGS = ['credential', 'client', 'tool'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];
