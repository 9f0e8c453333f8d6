import { describe, expect, it } from 'vitest';
import type { UsageDay } from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';

/**
 * The calls a recorder adds to each credential's own count of the day (what the list's `calls_7d`
 * reads, contract §18): with each write, exactly what the count lacks; a failed add is made good by
 * the next write, a landed one is never repeated, whatever happens to the day's put beside it.
 */

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const MINUTE = 60_000;

function writer() {
  const counts = new Map<string, number>();
  const state = { failAdd: false, failPut: false, adds: 0, puts: 0 };
  return {
    state,
    counted: (id: string, day = '2026-11-28') => counts.get(`${id} ${day}`) ?? 0,
    putDay: async (_day: UsageDay) => {
      state.puts += 1;
      if (state.failPut) throw new Error('put throttled');
    },
    addCalls: async (id: string, day: string, calls: number) => {
      state.adds += 1;
      if (state.failAdd) throw new Error('add throttled');
      counts.set(`${id} ${day}`, (counts.get(`${id} ${day}`) ?? 0) + calls);
    },
  };
}

function recorder() {
  const w = writer();
  const errors: unknown[] = [];
  const rec = new UsageRecorder({ instance: 'i-1', writer: w, onWriteError: (err) => errors.push(err) });
  const count = (id: string, ms: number) =>
    rec.count({ credential_id: id, kind: 'api_key', outcome: 'allowed' }, at(ms));
  return { rec, w, errors, count };
}

describe('the calls added to a credential’s own day', () => {
  it('adds what each write has counted since the last, so the count equals the calls made', async () => {
    const { rec, w, count } = recorder();
    for (let i = 0; i < 5; i++) count('a', i * 1000);
    await rec.flushDue(at(MINUTE), 'a');
    expect(w.counted('a')).toBe(5);
    for (let i = 0; i < 3; i++) count('a', MINUTE + i * 1000);
    await rec.flushDue(at(2 * MINUTE + 1), 'a');
    expect(w.counted('a')).toBe(8);
    expect(w.state.adds).toBe(2);
  });

  it('retries a failed add with the next write, once, and never repeats one that landed when the put failed', async () => {
    const { rec, w, errors, count } = recorder();
    count('a', 0);
    count('a', 1);
    w.state.failAdd = true;
    await rec.flushDue(at(MINUTE), 'a');
    expect([w.counted('a'), errors.length]).toEqual([0, 1]);
    // The day is written again with the next due write, and its add goes with it.
    w.state.failAdd = false;
    w.state.failPut = true;
    await rec.flushDue(at(2 * MINUTE), 'a');
    expect([w.counted('a'), errors.length]).toEqual([2, 2]);
    // The put failed: it is retried, but the count already has both calls.
    w.state.failPut = false;
    await rec.flushDue(at(3 * MINUTE), 'a');
    expect(w.counted('a')).toBe(2);
    expect(w.state.puts).toBe(3);
  });

  it('adds nothing when the day’s count already has every call (a put retried alone)', async () => {
    const { rec, w, count } = recorder();
    count('a', 0);
    w.state.failPut = true;
    await rec.flushDue(at(MINUTE), 'a');
    w.state.failPut = false;
    const adds = w.state.adds;
    await rec.flushAll(at(2 * MINUTE));
    expect([w.counted('a'), w.state.adds]).toEqual([1, adds]);
  });
});
