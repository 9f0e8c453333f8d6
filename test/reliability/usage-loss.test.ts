import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { DynamoUsageReader } from '#lib/store/usage-reads';
import { USAGE_WRITE_INTERVAL_MS } from '#lib/usage/model';
import { manualClock } from '#test/support/clock';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { scale } from '#test/support/soak';

/**
 * The usage loss bound (contract §18, docs/operations.md#usage-counts): calls spread over function
 * instances that are recycled without warning; what was counted never exceeds what was made, and
 * what went missing is at most what each recycled instance counted in its last minute per
 * credential — measured, call by call, against the counts on DynamoDB Local.
 */
const CALLS = scale(600, 15_000);
const KEYS = 6;
const INSTANCES = 3;
let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

/** A seeded generator: the run is the same every time. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * What an instance may lose of one credential: the calls after its last write, which all fall
 * within a minute of that write (a later call writes them). The test cannot see the write, so it
 * takes the most calls in any minute of the instance's calls of that credential.
 */
function mostInAMinute(times: number[]): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while ((times[last] as number) - (times[first] as number) >= USAGE_WRITE_INTERVAL_MS) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

const boundOf = (instance: { made: Map<string, number[]> }) =>
  [...instance.made.values()].reduce((sum, times) => sum + mostInAMinute(times), 0);

describe(`${CALLS} calls over ${INSTANCES} instances recycled at random`, () => {
  it('counts every call but, at most, each recycled instance’s last minute per credential', async () => {
    const clock = manualClock(new Date('2026-11-28T08:00:00.000Z'));
    const rt = tables.runtime({ now: clock.now });
    const userId = `loss-${randomUUID()}`;
    const ws = randomUUID();
    await tables.setRole(userId, ws, 'editor');
    const keys = await Promise.all(
      Array.from({ length: KEYS }, (_, i) =>
        createKey(rt.service, { userId, name: `k${i}`, workspaceIds: [ws], scopes: ['svc.forms.read'] }),
      ),
    );
    const next = random(42);
    /** Per live instance: when it verified each credential. */
    type Instance = { runtime: Runtime; made: Map<string, number[]> };
    const fresh = (): Instance => ({ runtime: tables.runtime({ now: clock.now }), made: new Map() });
    const instances = Array.from({ length: INSTANCES }, fresh);
    let made = 0;
    let bound = 0;
    let recycled = 0;
    for (let i = 0; i < CALLS; i++) {
      clock.advance(Math.floor(next() * 1500));
      const slot = Math.floor(next() * INSTANCES);
      if (next() < 0.01) {
        // Recycled without warning: whatever it counted in its last minute may be lost.
        const gone = instances[slot] as Instance;
        bound += boundOf(gone);
        instances[slot] = fresh();
        recycled += 1;
      }
      const instance = instances[slot] as Instance;
      const key = keys[Math.floor(next() * KEYS)] as (typeof keys)[number];
      expect((await instance.runtime.verify(key.apiKey)).outcome).toBe('valid');
      made += 1;
      const times = instance.made.get(key.metadata.id) ?? [];
      times.push(clock.now().getTime());
      instance.made.set(key.metadata.id, times);
    }
    // The instances still alive are recycled too, at the end.
    for (const instance of instances) bound += boundOf(instance);

    const reader = new DynamoUsageReader(tables.doc, tables.keysTable);
    const day = clock.now().toISOString().slice(0, 10);
    let counted = 0;
    for (const key of keys)
      for (const stored of await reader.daysOf(key.metadata.id, '2026-11-28', day)) counted += stored.calls;
    const lost = made - counted;
    console.log(
      `usage loss: ${made} calls made, ${counted} counted, ${lost} lost over ${recycled + INSTANCES} recycled instances (bound ${bound})`,
    );
    expect(recycled).toBeGreaterThan(0);
    expect(counted).toBeLessThanOrEqual(made);
    expect(lost).toBeLessThanOrEqual(bound);
    expect(counted).toBeGreaterThan(made * 0.5);
  }, 120_000);
});
