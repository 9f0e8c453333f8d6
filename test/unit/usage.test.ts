import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import {
  addUse,
  emptyTally,
  MAX_TOOLS_PER_BUCKET,
  OTHER_TOOL,
  toolOf,
  type UsageDay,
} from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';
import { bucketsOf, usageRange } from '#lib/usage/report';

/** Contract §18's counting and reporting rules, in memory. The writes on DynamoDB Local: test/integration/usage.test.ts. */

const T0 = new Date('2026-11-28T10:00:30.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function recorder(instance = 'i-1') {
  const written: UsageDay[] = [];
  let fail = false;
  const rec = new UsageRecorder({
    instance,
    writer: {
      async putDay(day) {
        if (fail) throw new Error('throttled');
        written.push(day);
      },
    },
  });
  return { rec, written, failWrites: (on: boolean) => (fail = on) };
}

const use = (
  credential_id: string,
  outcome: 'allowed' | 'revoked' | 'no_access' = 'allowed',
  tool?: string,
) => ({ credential_id, kind: 'api_key', outcome, tool }) as const;

describe('the recorder', () => {
  it('writes 1,000 calls of a credential within a minute once, a minute after the first, with every call in it', async () => {
    const { rec, written } = recorder();
    for (let i = 0; i < 1000; i++) {
      await rec.flushDue(at(i * 50), 'k1');
      rec.count(use('k1', 'allowed', 'list_forms'), at(i * 50));
    }
    expect(written).toHaveLength(0);
    await rec.flushDue(at(60_000), 'k1');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      credential_id: 'k1',
      instance: 'i-1',
      day: '2026-11-28',
      calls: 1000,
    });
    expect(written[0]?.hours['10']).toEqual({ calls: 1000, refused: {}, tools: { list_forms: 1000 } });
    // Nothing waits: no second write a minute later.
    await rec.flushDue(at(180_000), 'k1');
    expect(written).toHaveLength(1);
  });

  it('carries the whole day in every write, so a failed write is made good by the next', async () => {
    const { rec, written, failWrites } = recorder();
    rec.count(use('k1'), at(0));
    failWrites(true);
    await rec.flushDue(at(60_000), 'k1');
    expect(rec.pending()).toBe(1);
    failWrites(false);
    rec.count(use('k1', 'no_access'), at(61_000));
    await rec.flushDue(at(90_000), 'k1');
    expect(written).toHaveLength(0); // a minute after the failed attempt, not before
    await rec.flushDue(at(120_000), 'k1');
    expect(written.at(-1)?.hours['10']).toEqual({ calls: 2, refused: { no_access: 1 }, tools: {} });
  });

  it('writes one other waiting credential per verification, so one no longer called is written too', async () => {
    const { rec, written } = recorder();
    rec.count(use('a'), at(0));
    rec.count(use('b'), at(0));
    rec.count(use('c'), at(0));
    await rec.flushDue(at(60_000), 'c');
    expect(written.map((d) => d.credential_id).sort()).toEqual(['a', 'c']);
    await rec.flushDue(at(61_000), 'x');
    expect(written.map((d) => d.credential_id).sort()).toEqual(['a', 'b', 'c']);
    expect(rec.pending()).toBe(0);
  });

  it('writes a day that ended as its own item, then forgets it', async () => {
    const { rec, written } = recorder();
    const lateEvening = new Date('2026-11-28T23:59:30.000Z');
    rec.count(use('k1'), lateEvening);
    rec.count(use('k1'), new Date('2026-11-29T00:00:10.000Z'));
    await rec.flushAll(new Date('2026-11-29T00:01:00.000Z'));
    expect(written.map((d) => [d.day, d.calls])).toEqual([
      ['2026-11-28', 1],
      ['2026-11-29', 1],
    ]);
  });

  it('keeps each instance’s counts apart: the items of two instances add up', async () => {
    const one = recorder('i-1');
    const two = recorder('i-2');
    one.rec.count(use('k1'), at(0));
    two.rec.count(use('k1'), at(0));
    two.rec.count(use('k1'), at(1));
    await one.rec.flushAll(at(2));
    await two.rec.flushAll(at(2));
    const days = [...one.written, ...two.written];
    expect(days.map((d) => d.instance).sort()).toEqual(['i-1', 'i-2']);
    const range = usageRange({ from: '2026-11-28T00:00:00Z', to: '2026-11-29T00:00:00Z' }, T0);
    expect(bucketsOf(days, range)[0]?.calls).toBe(3);
  });
});

describe('what a call counts as', () => {
  it('names the tool of a tools/call only, and a name that is no tool’s as (other)', () => {
    expect(toolOf({ method: 'tools/call', name: 'list_forms' })).toBe('list_forms');
    expect(toolOf({ method: 'tools/call', name: '<script>' })).toBe(OTHER_TOOL);
    expect(toolOf({ method: 'tools/list' })).toBeUndefined();
    expect(toolOf(undefined)).toBeUndefined();
  });

  it('keeps at most 50 tool names a bucket; a refused call counts no tool', () => {
    const tally = emptyTally();
    for (let i = 0; i < MAX_TOOLS_PER_BUCKET + 5; i++)
      addUse(tally, { outcome: 'allowed', tool: `tool_${i}` });
    addUse(tally, { outcome: 'expired', tool: 'tool_0' });
    expect(Object.keys(tally.tools)).toHaveLength(MAX_TOOLS_PER_BUCKET + 1);
    expect(tally.tools[OTHER_TOOL]).toBe(5);
    expect(tally).toMatchObject({ calls: MAX_TOOLS_PER_BUCKET + 6, refused: { expired: 1 } });
  });
});

describe('the range a request asks for', () => {
  const now = new Date('2026-11-28T10:20:00.000Z');
  const refusal = (query: Parameters<typeof usageRange>[0]) => {
    try {
      usageRange(query, now);
    } catch (err) {
      return err instanceof AppError ? [err.code, err.errors] : err;
    }
    return undefined;
  };

  it('defaults to the last 30 days by day, widened to whole days', () => {
    const range = usageRange({}, now);
    expect([range.from.toISOString(), range.to.toISOString()]).toEqual([
      '2026-10-29T00:00:00.000Z',
      '2026-11-29T00:00:00.000Z',
    ]);
    expect(bucketsOf([], range)).toHaveLength(31);
  });

  it('defaults to the last 24 hours by hour', () => {
    expect(bucketsOf([], usageRange({ granularity: 'hour' }, now))).toHaveLength(25);
  });

  it('refuses an unreadable time, an empty range and one too long, naming the field', () => {
    expect(refusal({ from: 'yesterday' })).toEqual([
      'validation_failed',
      [{ path: 'from', message: 'must be an ISO 8601 date-time' }],
    ]);
    expect(refusal({ from: '2026-11-28T09:00:00Z', to: '2026-11-20T00:00:00Z' })).toEqual([
      'validation_failed',
      [{ path: 'from', message: 'must be before `to`' }],
    ]);
    expect(refusal({ from: '2026-10-01T00:00:00Z', granularity: 'hour' })).toEqual([
      'validation_failed',
      [{ path: 'from', message: 'the range may span at most 14 days at granularity hour' }],
    ]);
    expect(refusal({ from: '2026-01-01T00:00:00Z' })).toEqual([
      'validation_failed',
      [{ path: 'from', message: 'the range may span at most 92 days at granularity day' }],
    ]);
    expect(refusal({ from: '2026-09-01T00:00:00Z' })).toBeUndefined();
  });
});
