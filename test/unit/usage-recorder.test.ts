import { describe, expect, it } from 'vitest';
import type { CountedUse, UsageDay } from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';

/** The recorder's edges (contract §18): eviction, what a day keeps, concurrent and failed writes, which credentials a call writes. */

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

/** A writer whose writes wait until released, or fail while `failing`. */
function writer() {
  const written: UsageDay[] = [];
  const held: (() => void)[] = [];
  const state = { hold: false, failing: false, errors: 0 };
  return {
    written,
    state,
    release: () => {
      for (const go of held.splice(0)) go();
    },
    putDay: async (day: UsageDay) => {
      if (state.hold) await new Promise<void>((go) => held.push(go));
      if (state.failing) throw new Error('throttled');
      written.push(day);
    },
  };
}

function recorder(capacity?: number) {
  const w = writer();
  const rec = new UsageRecorder({
    instance: 'i-1',
    writer: w,
    ...(capacity !== undefined && { capacity }),
    onWriteError: () => {
      w.state.errors += 1;
    },
  });
  return { rec, ...w };
}

const use = (id: string, extra: Partial<CountedUse> = {}): CountedUse => ({
  credential_id: id,
  kind: 'api_key',
  outcome: 'allowed',
  ...extra,
});

describe('what a day keeps', () => {
  it('the user and client last learned: a refusal that learned none keeps them', async () => {
    const { rec, written } = recorder();
    rec.count(use('g', { kind: 'oauth_grant', user_id: 'ana', client_id: 'https://app.example/c' }), at(0));
    rec.count(use('g', { kind: 'oauth_grant', outcome: 'revoked' }), at(1));
    await rec.flushAll(at(2));
    expect(written[0]).toMatchObject({
      kind: 'oauth_grant',
      user_id: 'ana',
      client_id: 'https://app.example/c',
    });
    rec.count(use('k', { outcome: 'expired' }), at(3));
    await rec.flushAll(at(4));
    expect(written[1]).not.toHaveProperty('user_id');
    expect(written[1]).not.toHaveProperty('client_id');
  });

  it('today’s counts across writes; a day that ended is forgotten once written', async () => {
    const { rec, written } = recorder();
    rec.count(use('k'), at(0));
    await rec.flushAll(at(1));
    rec.count(use('k'), at(2));
    await rec.flushAll(at(3));
    expect(written.map((d) => d.calls)).toEqual([1, 2]);
    // 23:59 counted, written after midnight: forgotten, so a late count of that day starts afresh,
    // in an item of its own (a put over the first would replace its 3 with 1).
    const late = new Date('2026-11-28T23:59:50.000Z');
    rec.count(use('k'), late);
    await rec.flushAll(new Date('2026-11-29T00:00:30.000Z'));
    rec.count(use('k'), late);
    await rec.flushAll(new Date('2026-11-29T00:00:40.000Z'));
    expect(written.slice(2).map((d) => [d.day, d.instance, d.calls])).toEqual([
      ['2026-11-28', 'i-1', 3],
      ['2026-11-28', 'i-1.1', 1],
    ]);
  });

  it('a credential with nothing left in memory starts its minute again at its next count', async () => {
    const { rec, written } = recorder();
    rec.count(use('k'), new Date('2026-11-28T23:59:50.000Z'));
    await rec.flushAll(new Date('2026-11-29T00:01:00.000Z'));
    rec.count(use('k'), new Date('2026-11-29T00:01:10.000Z'));
    // 65 s after the last write, but 55 s after its first count since: not due.
    await rec.flushDue(new Date('2026-11-29T00:02:05.000Z'), 'k');
    expect(written).toHaveLength(1);
    await rec.flushDue(new Date('2026-11-29T00:02:10.000Z'), 'k');
    expect(written).toHaveLength(2);
  });
});

describe('writes under way and failed', () => {
  it('one write at a time per credential: counts made during it wait for the next', async () => {
    const { rec, written, state, release } = recorder();
    rec.count(use('k'), at(0));
    state.hold = true;
    const first = rec.flushDue(at(60_000), 'k');
    rec.count(use('k'), at(61_000));
    // A minute later the first write is still under way: no second one beside it.
    await rec.flushDue(at(121_000), 'x');
    await rec.flushDue(at(121_000), 'k');
    release();
    await first;
    expect(written.map((d) => d.calls)).toEqual([1]);
    state.hold = false;
    await rec.flushDue(at(122_000), 'k');
    expect(written.map((d) => d.calls)).toEqual([1, 2]);
  });

  it('a day counted again while its write is under way is kept after midnight', async () => {
    const { rec, written, state, release } = recorder();
    const late = new Date('2026-11-28T23:59:50.000Z');
    rec.count(use('k'), late);
    state.hold = true;
    const writing = rec.flushAll(new Date('2026-11-29T00:00:10.000Z'));
    rec.count(use('k'), late);
    release();
    await writing;
    state.hold = false;
    await rec.flushAll(new Date('2026-11-29T00:00:20.000Z'));
    expect(written.map((d) => d.calls)).toEqual([1, 2]);
  });

  it('a failed write is told, keeps the counts, and a call for another credential writes them later', async () => {
    const { rec, written, state } = recorder();
    rec.count(use('k'), at(0));
    state.failing = true;
    await rec.flushAll(at(60_000)); // gives up at once: nothing it could write
    await rec.flushDue(at(90_000), 'k'); // a minute after the failed attempt, not before
    expect(state.errors).toBe(1);
    await rec.flushDue(at(120_000), 'k');
    expect(state.errors).toBe(2);
    expect(rec.pending()).toBe(1);
    state.failing = false;
    await rec.flushDue(at(180_000), 'x');
    expect(written.map((d) => [d.credential_id, d.calls])).toEqual([['k', 1]]);
    expect(rec.pending()).toBe(0);
  });
});

describe('which credentials a call writes', () => {
  it('its own when due, and one other that is due, never itself twice', async () => {
    const { rec, written } = recorder();
    for (const id of ['a', 'b', 'c', 'd']) rec.count(use(id), at(0));
    await rec.flushDue(at(60_000), 'a');
    expect(written.map((d) => d.credential_id)).toEqual(['a', 'b']);
    await rec.flushDue(at(60_000), 'zz');
    expect(written.map((d) => d.credential_id)).toEqual(['a', 'b', 'c']);
  });

  it('looks at the eight that waited longest only', async () => {
    const { rec, written } = recorder();
    // Eight counted late (not due) ahead of one counted early (due).
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) rec.count(use(id), at(30_000));
    rec.count(use('early'), at(0));
    await rec.flushDue(at(60_000), 'zz');
    expect(written).toEqual([]);
    // It was due: its own call writes it.
    await rec.flushDue(at(60_000), 'early');
    expect(written.map((d) => d.credential_id)).toEqual(['early']);
  });

  it('none for a credential never counted, and none written twice once clean', async () => {
    const { rec, written } = recorder();
    await rec.flushDue(at(60_000), 'never');
    rec.count(use('k'), at(0));
    await rec.flushDue(at(60_000), 'k');
    await rec.flushDue(at(200_000), 'k');
    await rec.flushAll(at(300_000));
    expect(written).toHaveLength(1);
  });
});
