import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import { DynamoUsageWriter } from '#lib/store/usage-items';
import { DynamoUsageReader } from '#lib/store/usage-reads';
import type { UsageDay } from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';
import { dynamoKeyVerifier } from '#lib/verifier';
import { manualClock } from '#test/support/clock';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { scale } from '#test/support/soak';

/**
 * The usage loss bound (contract §18, docs/operations.md#usage-counts), measured call by call
 * against the counts on DynamoDB Local: calls (some with revoked keys) spread over function
 * instances that end at random, half of them as Lambda ends one (SIGTERM: the authorizer writes
 * what waits) and half crashing, each past its capacity (it forgets credentials as it goes). What was counted never exceeds what was made; an instance that
 * ended loses nothing; a crashed one loses at most the calls each credential made on it after its
 * last completed write — and nothing written is ever lost.
 */
const CALLS = scale(600, 15_000);
const KEYS = 6;
const REVOKED = 2;
const INSTANCES = 3;
/** Credentials an instance keeps counting in memory: fewer than the keys, so it forgets some as it goes. */
const CAPACITY = 5;
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

/** A function instance: its verifier and recorder, the calls made on it and what its completed writes carried. */
interface Instance {
  verify: (rawKey: unknown) => Promise<{ outcome: string }>;
  usage: UsageRecorder;
  /** Calls made on this instance, by credential. */
  made: Map<string, number>;
  /** The calls each of its items carried in its last completed write, by item. */
  written: Map<string, { credential: string; calls: number }>;
}

/** The calls made on an instance after each credential's last completed write: what it may lose. */
function unwritten(instance: Instance): number {
  let n = 0;
  for (const [credential, made] of instance.made) {
    let carried = 0;
    for (const item of instance.written.values()) if (item.credential === credential) carried += item.calls;
    n += made - carried;
  }
  return n;
}

describe(`${CALLS} calls over ${INSTANCES} instances that end at random`, () => {
  it('loses nothing of an instance that ended, and of a crashed one at most the calls after each credential’s last write', async () => {
    const clock = manualClock(new Date('2026-11-28T08:00:00.000Z'));
    const rt = tables.runtime({ now: clock.now });
    const userId = `loss-${randomUUID()}`;
    const ws = randomUUID();
    await tables.setRole(userId, ws, 'editor');
    const keys = await Promise.all(
      Array.from({ length: KEYS + REVOKED }, (_, i) =>
        createKey(rt.service, { userId, name: `k${i}`, workspaceIds: [ws], scopes: ['svc.forms.read'] }),
      ),
    );
    for (const key of keys.slice(KEYS)) await revokeKey(rt.service, userId, key.metadata.id);
    const writer = new DynamoUsageWriter(tables.doc, tables.keysTable, 90);
    const fresh = (): Instance => {
      const written: Instance['written'] = new Map();
      const usage = new UsageRecorder({
        capacity: CAPACITY,
        writer: {
          putDay: async (day: UsageDay) => {
            await writer.putDay(day);
            written.set(`${day.credential_id}#${day.day}#${day.instance}`, {
              credential: day.credential_id,
              calls: day.calls,
            });
          },
        },
      });
      const verify = dynamoKeyVerifier({
        doc: tables.doc,
        keysTableName: tables.keysTable,
        membershipsTableName: tables.membershipsTable,
        peppers: rt.service.peppers,
        now: clock.now,
        usageRecorder: usage,
      });
      return { verify, usage, made: new Map(), written };
    };
    const next = random(42);
    const instances = Array.from({ length: INSTANCES }, fresh);
    let made = 0;
    let bound = 0;
    let mostOfOne = 0;
    const ends = { ended: 0, crashed: 0 };
    /** Ends an instance as Lambda does (SIGTERM: everything waiting written) or as a crash does. */
    const end = async (instance: Instance, crash: boolean) => {
      if (crash) {
        bound += unwritten(instance);
        for (const [credential, calls] of instance.made) {
          const carried = [...instance.written.values()].filter((i) => i.credential === credential);
          mostOfOne = Math.max(mostOfOne, calls - carried.reduce((n, i) => n + i.calls, 0));
        }
        ends.crashed += 1;
      } else {
        await instance.usage.flushAll(clock.now());
        expect(unwritten(instance)).toBe(0);
        ends.ended += 1;
      }
    };
    for (let i = 0; i < CALLS; i++) {
      clock.advance(Math.floor(next() * 1500));
      const slot = Math.floor(next() * INSTANCES);
      if (next() < 0.01) {
        await end(instances[slot] as Instance, next() < 0.5);
        instances[slot] = fresh();
      }
      const instance = instances[slot] as Instance;
      const k = Math.floor(next() * (KEYS + REVOKED));
      const key = keys[k] as (typeof keys)[number];
      expect((await instance.verify(key.apiKey)).outcome).toBe(k < KEYS ? 'valid' : 'revoked');
      made += 1;
      instance.made.set(key.metadata.id, (instance.made.get(key.metadata.id) ?? 0) + 1);
    }
    // The instances still alive crash at the end. A write under way as an instance crashes may
    // still land here (a real crash could cut it off): the bound counts only completed writes.
    for (const instance of instances) await end(instance, true);

    const reader = new DynamoUsageReader(tables.doc, tables.keysTable);
    const day = clock.now().toISOString().slice(0, 10);
    let counted = 0;
    for (const key of keys)
      for (const stored of await reader.daysOf(key.metadata.id, '2026-11-28', day)) counted += stored.calls;
    const lost = made - counted;
    console.log(
      `usage loss: ${made} calls made, ${counted} counted, ${lost} lost; ${ends.ended} instances ended (SIGTERM), ${ends.crashed} crashed; bound ${bound} (calls after each credential's last write, at most ${mostOfOne} of one credential on one instance)`,
    );
    expect(ends.ended).toBeGreaterThan(0);
    expect(ends.crashed).toBeGreaterThan(INSTANCES);
    expect(counted).toBeLessThanOrEqual(made);
    expect(lost).toBeLessThanOrEqual(bound);
  }, 120_000);
});
