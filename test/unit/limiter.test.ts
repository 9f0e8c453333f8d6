import { describe, expect, it } from 'vitest';
import { RATE_SYNC_MS, RateLimiter, type RateWriter } from '#lib/keys/limiter';
import { type EffectiveLimit, rateAttribute } from '#lib/keys/limits';

/**
 * One function instance counting a limited credential's calls (contract §19; lib/keys/limiter.ts):
 * what it admits with what the verification's read found stored, what it writes and when (at
 * most once a second, alongside a read), and what it does with a write's answer or failure.
 */

const AT = new Date('2026-12-06T10:15:42.250Z');
const MINUTE = rateAttribute('2026-12-06T10:15');
const DAY = rateAttribute('2026-12-06');
/** A writer that records each write and answers what the test sets. */
function writer(answer: (adds: Record<string, number>) => Promise<Record<string, number>> = async (a) => a) {
  const writes: { id: string; adds: Record<string, number>; removes: readonly string[] }[] = [];
  const rates: RateWriter = {
    addRates: (id, adds, removes) => {
      writes.push({ id, adds: { ...adds }, removes: [...removes] });
      return answer(adds);
    },
  };
  return { rates, writes };
}

const perMinute = (limit: number): EffectiveLimit => ({ window: 'minute', limit, by: 'credential' });
const perDay = (limit: number): EffectiveLimit => ({ window: 'day', limit, by: 'policy', workspace_id: 'w' });
const later = (ms: number) => new Date(AT.getTime() + ms);

describe('one instance counting a limited credential', () => {
  it('admits up to the limit with what is stored, then refuses until the window’s end', () => {
    const limiter = new RateLimiter(writer().rates);
    expect(limiter.admit('k', [perMinute(3)], { [MINUTE]: 1 }, AT)).toBeUndefined();
    expect(limiter.admit('k', [perMinute(3)], {}, AT)).toBeUndefined();
    expect(limiter.admit('k', [perMinute(3)], {}, AT)).toEqual({
      window: 'minute',
      limit: 3,
      by: 'credential',
      until: '2026-12-06T10:16:00.000Z',
      retry_after: 18,
    });
    // A later read that found less stored (another instance's write not yet seen) lowers nothing.
    expect(limiter.admit('k', [perMinute(3)], { [MINUTE]: 0 }, AT)).toMatchObject({ limit: 3 });
    // The next minute starts again.
    expect(limiter.admit('k', [perMinute(3)], {}, new Date('2026-12-06T10:16:00.000Z'))).toBeUndefined();
  });

  it('a credential without limits is not counted, and has nothing to write', () => {
    const { rates, writes } = writer();
    const limiter = new RateLimiter(rates);
    expect(limiter.admit('k', [], { [MINUTE]: 99 }, AT)).toBeUndefined();
    expect(limiter.writeDue('k', later(5000))).toBeUndefined();
    expect(writes).toEqual([]);
  });

  it('over both windows, the refusal is the later-ending one’s; retry_after counts whole seconds up', () => {
    const limiter = new RateLimiter(writer().rates);
    const end = new Date('2026-12-06T10:15:59.900Z');
    expect(limiter.admit('k', [perMinute(1), perDay(1)], {}, end)).toBeUndefined();
    expect(limiter.admit('k', [perMinute(1), perDay(1)], {}, end)).toEqual({
      window: 'day',
      limit: 1,
      by: 'policy',
      workspace_id: 'w',
      until: '2026-12-07T00:00:00.000Z',
      retry_after: 49_441,
    });
    expect(limiter.admit('k', [perMinute(1), perDay(5)], {}, end)).toMatchObject({
      window: 'minute',
      retry_after: 1,
    });
    const start = new Date('2026-12-06T10:15:00.000Z');
    expect(limiter.admit('j', [perMinute(1)], { [MINUTE]: 1 }, start)).toMatchObject({ retry_after: 60 });
  });

  it('each credential is counted apart', () => {
    const limiter = new RateLimiter(writer().rates);
    expect(limiter.admit('a', [perMinute(1)], {}, AT)).toBeUndefined();
    expect(limiter.admit('b', [perMinute(1)], {}, AT)).toBeUndefined();
    expect(limiter.admit('a', [perMinute(1)], {}, AT)).toBeDefined();
  });
});

describe('what an instance writes, and when', () => {
  it('the calls counted in each window, at once the first time, then at most once a second', async () => {
    const { rates, writes } = writer();
    const limiter = new RateLimiter(rates);
    expect(limiter.writeDue('k', AT)).toBeUndefined();
    limiter.admit('k', [perMinute(100), perDay(1000)], {}, AT);
    limiter.admit('k', [perMinute(100), perDay(1000)], {}, AT);
    await limiter.writeDue('k', AT);
    expect(writes).toEqual([{ id: 'k', adds: { [MINUTE]: 2, [DAY]: 2 }, removes: [] }]);
    limiter.admit('k', [perMinute(100), perDay(1000)], {}, later(10));
    expect(limiter.writeDue('k', later(RATE_SYNC_MS - 1))).toBeUndefined();
    await limiter.writeDue('k', later(RATE_SYNC_MS));
    expect(writes.at(-1)?.adds).toEqual({ [MINUTE]: 1, [DAY]: 1 });
    expect(RATE_SYNC_MS).toBe(1000);
  });

  it('nothing counted since the last write writes nothing, and keeps the next call’s write due', async () => {
    const { rates, writes } = writer();
    const limiter = new RateLimiter(rates);
    limiter.admit('k', [perMinute(100)], {}, AT);
    await limiter.writeDue('k', AT);
    expect(limiter.writeDue('k', later(1500))).toBeUndefined();
    limiter.admit('k', [perMinute(100)], {}, later(1600));
    await limiter.writeDue('k', later(1600));
    expect(writes.map((w) => w.adds)).toEqual([{ [MINUTE]: 1 }, { [MINUTE]: 1 }]);
  });

  it('removes the counters of ended windows the last read found, never a live one nor one it adds to', async () => {
    const { rates, writes } = writer();
    const limiter = new RateLimiter(rates);
    const stored = { 'rate_2026-12-05': 50, 'rate_2026-12-06T10:14': 4, [MINUTE]: 1, [DAY]: 60 };
    limiter.admit('k', [perMinute(100)], stored, AT);
    await limiter.writeDue('k', AT);
    expect(writes).toEqual([
      { id: 'k', adds: { [MINUTE]: 1 }, removes: ['rate_2026-12-05', 'rate_2026-12-06T10:14'] },
    ]);
  });

  it('a write’s answer is what every instance added: the next call judged by it', async () => {
    const { rates } = writer(async (adds) => ({ ...adds, [MINUTE]: 5, rate_unknown: 9 }));
    const limiter = new RateLimiter(rates);
    limiter.admit('k', [perMinute(5)], {}, AT);
    await expect(limiter.writeDue('k', AT)).resolves.toBeUndefined();
    expect(limiter.admit('k', [perMinute(5)], {}, AT)).toMatchObject({ limit: 5 });
  });

  it('an answer lower than what was seen lowers nothing', async () => {
    const { rates } = writer(async () => ({ [MINUTE]: 1 }));
    const limiter = new RateLimiter(rates);
    limiter.admit('k', [perMinute(3)], { [MINUTE]: 2 }, AT);
    await limiter.writeDue('k', AT);
    expect(limiter.admit('k', [perMinute(3)], {}, AT)).toBeUndefined();
    expect(limiter.admit('k', [perMinute(3)], {}, AT)).toMatchObject({ limit: 3 });
  });

  it('a failed write is told, never rejects, and its calls are written with the next one', async () => {
    let fail = true;
    const errors: unknown[] = [];
    const { rates, writes } = writer(async (adds) => {
      if (fail) throw new Error('throttled');
      return adds;
    });
    const limiter = new RateLimiter(rates, (err) => errors.push(err));
    limiter.admit('k', [perMinute(100)], {}, AT);
    limiter.admit('k', [perMinute(100)], {}, AT);
    await expect(limiter.writeDue('k', AT)).resolves.toBeUndefined();
    expect(errors).toEqual([new Error('throttled')]);
    fail = false;
    limiter.admit('k', [perMinute(100)], {}, later(RATE_SYNC_MS));
    await limiter.writeDue('k', later(RATE_SYNC_MS));
    expect(writes.at(-1)?.adds).toEqual({ [MINUTE]: 3 });
  });

  it('a failed write whose window ended and was forgotten meanwhile drops its calls, and still never rejects', async () => {
    let reject: (err: unknown) => void = () => {};
    const { rates, writes } = writer(
      () =>
        new Promise((_, no) => {
          reject = no;
        }),
    );
    const limiter = new RateLimiter(rates);
    limiter.admit('k', [perMinute(100)], {}, AT);
    const pending = limiter.writeDue('k', AT);
    // The next minute's call forgets the ended minute's counter (nothing unwritten there now).
    limiter.admit('k', [perMinute(100)], {}, later(20_000));
    reject(new Error('lost'));
    await expect(pending).resolves.toBeUndefined();
    void limiter.writeDue('k', later(21_000));
    expect(writes.at(-1)?.adds).toEqual({ 'rate_2026-12-06T10:16': 1 });
  });

  it('calls of an ended window not yet written are kept and written; a written one is forgotten', async () => {
    const { rates, writes } = writer();
    const limiter = new RateLimiter(rates);
    limiter.admit('k', [perMinute(100)], {}, AT);
    limiter.admit('k', [perMinute(100)], {}, later(20_000));
    await limiter.writeDue('k', later(20_000));
    expect(writes.at(-1)?.adds).toEqual({ [MINUTE]: 1, 'rate_2026-12-06T10:16': 1 });
    limiter.admit('k', [perMinute(100)], {}, later(20_100));
    await limiter.writeDue('k', later(21_100));
    expect(writes.at(-1)?.adds).toEqual({ 'rate_2026-12-06T10:16': 1 });
  });

  it('a live counter just written keeps counting', async () => {
    const { rates, writes } = writer();
    const limiter = new RateLimiter(rates);
    limiter.admit('k', [perMinute(100)], {}, AT);
    await limiter.writeDue('k', AT);
    limiter.admit('k', [perMinute(100)], {}, later(100));
    limiter.admit('k', [perMinute(100)], {}, later(200));
    await limiter.writeDue('k', later(RATE_SYNC_MS));
    expect(writes.at(-1)?.adds).toEqual({ [MINUTE]: 2 });
    expect(limiter.admit('k', [perMinute(3)], {}, later(RATE_SYNC_MS))).toBeUndefined();
    expect(limiter.admit('k', [perMinute(3)], {}, later(RATE_SYNC_MS))).toBeDefined();
  });

  it('keeps counts for 5,000 credentials, forgetting the least recently used first', () => {
    const { rates } = writer();
    const limiter = new RateLimiter(rates);
    for (let i = 0; i <= 5000; i++) limiter.admit(`k${i}`, [perMinute(100)], {}, AT);
    expect(limiter.writeDue('k0', AT)).toBeUndefined();
    expect(limiter.writeDue('k1', AT)).toBeDefined();
  });

  it('a credential without limits takes no place among them', () => {
    const { rates } = writer();
    const limiter = new RateLimiter(rates);
    for (let i = 0; i < 5000; i++) limiter.admit(`k${i}`, [perMinute(100)], {}, AT);
    limiter.admit('unlimited', [], { [MINUTE]: 3 }, AT);
    expect(limiter.writeDue('k0', AT)).toBeDefined();
  });
});
