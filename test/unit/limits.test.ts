import { describe, expect, it } from 'vitest';
import {
  effectiveLimits,
  hasLimits,
  rateAttribute,
  rateCountsOf,
  rateSentence,
  windowAt,
} from '#lib/keys/limits';

/**
 * Limits (contract §19; lib/keys/limits.ts): the smallest limit of each window and
 * who set it, the UTC windows, the counters an item holds and the 429's sentence (the counting
 * itself: test/unit/limiter.test.ts).
 */

const AT = new Date('2026-12-06T10:15:42.250Z');
const MINUTE = rateAttribute('2026-12-06T10:15');
const DAY = rateAttribute('2026-12-06');

describe('a credential’s limits', () => {
  it('set some when either window has one', () => {
    expect(hasLimits(undefined)).toBe(false);
    expect(hasLimits({})).toBe(false);
    expect(hasLimits({ per_minute: 1 })).toBe(true);
    expect(hasLimits({ per_day: 1 })).toBe(true);
  });

  it('the effective limit of each window is the smallest of its own and its workspaces’ caps, minute first', () => {
    expect(effectiveLimits(undefined, undefined, ['w1'])).toEqual([]);
    expect(effectiveLimits({ per_day: 500, per_minute: 10 }, undefined, ['w1'])).toEqual([
      { window: 'minute', limit: 10, by: 'credential' },
      { window: 'day', limit: 500, by: 'credential' },
    ]);
    const rules = { w1: { per_minute: 5, per_day: 900 }, w2: { per_minute: 3 }, w3: { per_day: 100 } };
    expect(effectiveLimits({ per_minute: 10, per_day: 500 }, rules, ['w1', 'w2'])).toEqual([
      { window: 'minute', limit: 3, by: 'policy', workspace_id: 'w2' },
      { window: 'day', limit: 500, by: 'credential' },
    ]);
    expect(effectiveLimits(undefined, rules, ['w3', 'w1'])).toEqual([
      { window: 'minute', limit: 5, by: 'policy', workspace_id: 'w1' },
      { window: 'day', limit: 100, by: 'policy', workspace_id: 'w3' },
    ]);
  });

  it('a cap equal to its own leaves its owner’s limit; of equal caps the first workspace’s; workspaces it does not reach count for nothing', () => {
    const rules = { w1: { per_minute: 10 }, w2: { per_minute: 10 }, gone: { per_minute: 1 } };
    expect(effectiveLimits({ per_minute: 10 }, rules, ['w1', 'w2'])).toEqual([
      { window: 'minute', limit: 10, by: 'credential' },
    ]);
    expect(effectiveLimits(undefined, rules, ['w2', 'w1'])).toEqual([
      { window: 'minute', limit: 10, by: 'policy', workspace_id: 'w2' },
    ]);
    expect(effectiveLimits({ per_minute: 20 }, { w1: {} }, ['w1'])).toEqual([
      { window: 'minute', limit: 20, by: 'credential' },
    ]);
  });
});

describe('the windows and their counters', () => {
  it('the UTC minute and day, each ending at the next one’s start', () => {
    expect(windowAt('minute', AT)).toEqual({
      id: '2026-12-06T10:15',
      endsAt: new Date('2026-12-06T10:16:00.000Z'),
    });
    expect(windowAt('day', AT)).toEqual({ id: '2026-12-06', endsAt: new Date('2026-12-07T00:00:00.000Z') });
    expect(windowAt('minute', new Date('2026-12-31T23:59:00.000Z')).endsAt).toEqual(
      new Date('2027-01-01T00:00:00.000Z'),
    );
  });

  it('an item’s counters are its numeric rate_ attributes, or those a record read through the store gathered', () => {
    expect(MINUTE).toBe('rate_2026-12-06T10:15');
    expect(rateCountsOf(undefined)).toEqual({});
    expect(rateCountsOf({ [MINUTE]: 3, [DAY]: 40, rate_note: 'x', pk: 'KEY#1', xrate_1: 2 })).toEqual({
      [MINUTE]: 3,
      [DAY]: 40,
    });
    expect(rateCountsOf({ rate_counts: { [DAY]: 7 }, [MINUTE]: 1 })).toEqual({ [DAY]: 7 });
  });
});

describe('the sentence at 429', () => {
  const until = '2026-12-07T00:00:00.000Z';

  it('a key over its owner’s daily limit, counted with a thousands separator', () => {
    expect(
      rateSentence({
        kind: 'api_key',
        window: 'day',
        limit: 1000,
        by: 'credential',
        until,
        retry_after: 49_458,
      }),
    ).toBe(
      'This key made its 1,000 calls for today, the limit its owner set; it can call again at 00:00 UTC.',
    );
  });

  it('an app over a policy’s limit of one call a minute, with the seconds to wait', () => {
    expect(
      rateSentence({
        kind: 'oauth',
        window: 'minute',
        limit: 1,
        by: 'policy',
        workspace_id: 'w1',
        until: '2026-12-06T10:16:00.000Z',
        retry_after: 18,
      }),
    ).toBe(
      'This app made its 1 call for this minute, the limit the policy of workspace w1 sets; it can call again at 10:16 UTC, in 18 s.',
    );
  });
});
