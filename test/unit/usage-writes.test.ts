import { describe, expect, it } from 'vitest';
import type { CountedUse, UsageDay } from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';

/**
 * When the recorder writes besides a call's due write (contract §18): a refusal of a revoked or
 * expired credential at once, a credential forgotten past capacity before it goes, everything under
 * way or waiting when the instance ends. The writer here keeps items as DynamoDB does: a put
 * replaces the item of the same credential, day and `instance`.
 */

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const MINUTE = 60_000;

function store() {
  const items = new Map<string, UsageDay>();
  const puts: UsageDay[] = [];
  const held: (() => void)[] = [];
  const state = { hold: false, failing: false, errors: 0 };
  return {
    puts,
    state,
    /** The calls stored for a credential, every item of it summed (what a reader sees). */
    stored: (id: string) =>
      [...items.values()].filter((d) => d.credential_id === id).reduce((n, d) => n + d.calls, 0),
    release: () => {
      for (const go of held.splice(0)) go();
    },
    putDay: async (day: UsageDay) => {
      puts.push(day);
      if (state.hold) await new Promise<void>((go) => held.push(go));
      if (state.failing) throw new Error('throttled');
      items.set(`${day.credential_id} ${day.day} ${day.instance}`, day);
    },
  };
}

function recorder(capacity?: number) {
  const s = store();
  const rec = new UsageRecorder({
    instance: 'i-1',
    writer: s,
    ...(capacity !== undefined && { capacity }),
    onWriteError: () => {
      s.state.errors += 1;
    },
  });
  return { rec, ...s };
}

const use = (id: string, outcome: CountedUse['outcome'] = 'allowed'): CountedUse => ({
  credential_id: id,
  kind: 'api_key',
  outcome,
});

/** Lets writes started without being awaited settle. */
const settle = () => new Promise<void>((go) => setImmediate(go));

describe('a refusal of a revoked or expired credential', () => {
  it('is written at once, with no later call: the probe of a leaked key on a quiet instance', async () => {
    const { rec, puts, stored } = recorder();
    rec.count(use('leaked', 'revoked'), at(0));
    rec.count(use('old', 'expired'), at(0));
    await settle();
    expect(puts.map((d) => [d.credential_id, d.hours['10']?.refused])).toEqual([
      ['leaked', { revoked: 1 }],
      ['old', { expired: 1 }],
    ]);
    expect([stored('leaked'), stored('old'), rec.pending()]).toEqual([1, 1, 0]);
  });

  it('at most once a minute more: a key hammered after its revocation is two writes a minute', async () => {
    const { rec, puts, stored } = recorder();
    let calls = 0;
    for (let t = 0; t <= 3 * MINUTE; t += 100) {
      await rec.flushDue(at(t), 'leaked'); // as a verification does, before its own count
      rec.count(use('leaked', 'revoked'), at(t));
      calls += 1;
    }
    await settle();
    // At 0 at once; then at each minute its due write and one at once.
    expect(puts).toHaveLength(7);
    expect(stored('leaked')).toBe(calls);
  });

  it('other outcomes wait: an allowed call, a refusal for want of access or for another server', async () => {
    const { rec, puts } = recorder();
    for (const outcome of ['allowed', 'no_access', 'wrong_resource'] as const)
      rec.count(use('k', outcome), at(0));
    await settle();
    expect(puts).toEqual([]);
  });

  it('asked while a write of it is under way, goes as that write ends, with what came since', async () => {
    const { rec, puts, state, release, stored } = recorder();
    rec.count(use('k'), at(0));
    state.hold = true;
    const due = rec.flushDue(at(MINUTE), 'k');
    rec.count(use('k', 'revoked'), at(MINUTE + 1));
    await settle();
    expect(puts).toHaveLength(1);
    state.hold = false;
    release();
    await due;
    await settle();
    expect([puts.length, stored('k')]).toEqual([2, 2]);
  });
});

describe('past capacity', () => {
  it('a credential forgotten and counted again the same day adds to what was written: 3 written, then 1 more is 4', async () => {
    const { rec, stored } = recorder(2);
    for (let i = 0; i < 3; i++) rec.count(use('a'), at(0));
    await rec.flushAll(at(1));
    expect(stored('a')).toBe(3);
    rec.count(use('b'), at(2));
    rec.count(use('c'), at(3)); // 'a' is forgotten
    rec.count(use('a'), at(4));
    await rec.flushAll(at(5));
    expect(stored('a')).toBe(4);
  });

  it('a credential forgotten with counts waiting is written before it goes', async () => {
    const { rec, stored } = recorder(2);
    for (const id of ['a', 'b', 'c']) rec.count(use(id), at(0));
    await settle();
    expect(stored('a')).toBe(1);
    await rec.flushAll(at(1));
    expect(['a', 'b', 'c'].map(stored)).toEqual([1, 1, 1]);
  });

  it('forgotten while its write is under way with new counts: they are written, and the next call verifies as usual', async () => {
    const { rec, state, release, stored } = recorder(1);
    rec.count(use('a'), at(0));
    state.hold = true;
    const writing = rec.flushAll(at(MINUTE));
    rec.count(use('a'), at(MINUTE + 1)); // new counts while the write is under way
    rec.count(use('b'), at(MINUTE + 2)); // 'a' is forgotten
    state.hold = false;
    release();
    await writing;
    await settle();
    // Before: `waiting` held 'a' again with no entry, and this threw a TypeError.
    expect(() => rec.flushDue(at(3 * MINUTE), 'c')).not.toThrow();
    await rec.flushAll(at(3 * MINUTE));
    expect([stored('a'), stored('b')]).toEqual([2, 1]);
  });

  it('a forgotten credential whose write fails is told once and not retried', async () => {
    const { rec, state, puts } = recorder(1);
    state.failing = true;
    rec.count(use('a'), at(0));
    rec.count(use('b'), at(1));
    await settle();
    expect([puts.length, state.errors]).toEqual([1, 1]);
    await rec.flushAll(at(MINUTE));
    expect(puts.map((d) => d.credential_id)).toEqual(['a', 'b']);
  });
});

describe('an instance that ends', () => {
  it('waits for the writes under way, which a call started (flushAll)', async () => {
    const { rec, state, release, stored } = recorder();
    rec.count(use('k'), at(0));
    state.hold = true;
    void rec.flushDue(at(MINUTE), 'k');
    let ended = false;
    const ending = rec.flushAll(at(MINUTE + 1)).then(() => {
      ended = true;
    });
    await settle();
    expect(ended).toBe(false);
    state.hold = false;
    release();
    await ending;
    expect([stored('k'), rec.pending()]).toEqual([1, 0]);
  });

  it('writeDue writes every credential that is due, and only those (a timer, where no call comes)', async () => {
    const { rec, puts } = recorder();
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']) rec.count(use(id), at(0));
    rec.count(use('late'), at(30_000));
    await rec.writeDue(at(MINUTE));
    expect(puts.map((d) => d.credential_id).sort()).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'j',
    ]);
    await rec.writeDue(at(MINUTE + 1));
    expect(puts).toHaveLength(10);
    await rec.writeDue(at(MINUTE + 30_000));
    expect(puts.at(-1)?.credential_id).toBe('late');
  });
});

describe('the edges of a write', () => {
  it('flushDue answers nothing to wait for when nothing is due', () => {
    const { rec } = recorder();
    rec.count(use('k1'), at(0));
    expect(rec.flushDue(at(1), 'k1')).toBeUndefined();
    expect(rec.flushDue(at(MINUTE), 'k1')).toBeInstanceOf(Promise);
  });

  it('a refusal’s write at once writes its own day, ahead of an older one waiting', async () => {
    const { rec, stored, puts } = recorder();
    rec.count(use('k1'), at(0));
    rec.count(use('k1', 'revoked'), at(14 * 60 * MINUTE));
    await settle();
    expect(puts.map((p) => p.day)).toEqual(['2026-11-29']);
    await rec.flushAll(at(14 * 60 * MINUTE + 1));
    expect(puts.map((p) => p.day)).toEqual(['2026-11-29', '2026-11-28']);
    expect(stored('k1')).toBe(2);
  });

  it('flushAll writes every day a credential waits with, one write a day', async () => {
    const { rec, stored, puts } = recorder();
    rec.count(use('k1'), at(0));
    rec.count(use('k1'), at(14 * 60 * MINUTE));
    rec.count(use('k1'), at(14 * 60 * MINUTE + 1));
    await rec.flushAll(at(14 * 60 * MINUTE + 2));
    expect(puts.map((p) => [p.day, p.calls])).toEqual([
      ['2026-11-28', 1],
      ['2026-11-29', 2],
    ]);
    expect(stored('k1')).toBe(3);
    expect(rec.pending()).toBe(0);
  });
});
