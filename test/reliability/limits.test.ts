import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_TOOLS } from '#lib/access/tools';
import { createKey } from '#lib/keys/lifecycle';
import type { Limits } from '#lib/keys/limits';
import { createKeyVerifier } from '#lib/keys/verify';
import { DynamoKeyReads } from '#lib/store/key-reads';
import { DynamoMemberships } from '#lib/store/memberships-store';
import { DynamoVerificationReads } from '#lib/store/verification-reads';
import { manualClock } from '#test/support/clock';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { scale, soakOnly } from '#test/support/soak';

/**
 * The limits' accuracy and cost (contract §19, docs/capacity.md#limits), measured against
 * DynamoDB Local: four function instances, each its own verifier (its own counts in memory),
 * call one credential limited to 600 calls, 10 calls a second each (40 together), for 90 seconds
 * of a clock the test moves (so the run takes seconds, and the windows are the clock's); `npm
 * test` runs 30 seconds across the window's end with a limit of 300, `npm run test:soak` the
 * whole run. In each UTC window the calls allowed are at most the limit plus what the instances
 * make in one synchronisation interval (a second: 40), and at least 99% of the limit; each
 * instance writes at most once a second.
 */
const INSTANCES = 4;
const CALLS_PER_SECOND = 40;
const SECONDS = scale(20, 90);
const LIMIT = scale(300, 600);
/** How long before the window's end the run starts: both windows it spans reach the limit. */
const BEFORE_END_MS = (SECONDS / 2) * 1000;
/** What the instances make in one synchronisation interval (a second), together. */
const ONE_INTERVAL = CALLS_PER_SECOND;

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

interface Run {
  /** Allowed calls by window (the UTC minute or day of the clock when they were made). */
  allowed: Map<string, number>;
  refused: number;
  /** Writes of counted calls by instance and clock second. */
  writes: Map<string, number>;
  /** Every refusal's `retry_after` was the seconds to its window's end. */
  retryAfterRight: boolean;
}

async function run(limits: Limits, start: Date, windowOf: (at: Date) => string): Promise<Run> {
  const clock = manualClock(start);
  const rt = tables.runtime({ now: clock.now });
  const userId = `limits-${randomUUID()}`;
  const ws = randomUUID();
  await tables.setRole(userId, ws, 'editor');
  const key = await createKey(rt.service, {
    userId,
    name: 'busy',
    workspaceIds: [ws],
    scopes: ['svc.forms.read'],
    limits,
  });
  const result: Run = { allowed: new Map(), refused: 0, writes: new Map(), retryAfterRight: true };
  const instances = Array.from({ length: INSTANCES }, (_, i) => {
    const keys = new DynamoKeyReads(tables.doc, tables.keysTable);
    const memberships = new DynamoMemberships(tables.doc, tables.membershipsTable);
    return createKeyVerifier({
      keys,
      memberships,
      reads: new DynamoVerificationReads(tables.doc, tables.keysTable, memberships),
      tools: REFERENCE_TOOLS,
      rates: {
        addRates: (id, adds, removes) => {
          const slot = `${i}@${clock.now().toISOString().slice(0, 19)}`;
          result.writes.set(slot, (result.writes.get(slot) ?? 0) + 1);
          return keys.addRates(id, adds, removes);
        },
      },
      peppers: rt.service.peppers,
      now: clock.now,
    });
  });
  const tick = 1000 / (CALLS_PER_SECOND / INSTANCES);
  for (let t = 0; t < (SECONDS * 1000) / tick; t++) {
    const at = clock.now();
    // The four instances call at once, as four Lambda instances would.
    const outcomes = await Promise.all(
      instances.map((verify) => verify(key.apiKey, { method: 'tools/call', name: 'list_forms' })),
    );
    for (const outcome of outcomes) {
      if (outcome.outcome === 'valid')
        result.allowed.set(windowOf(at), (result.allowed.get(windowOf(at)) ?? 0) + 1);
      else {
        expect(outcome.outcome).toBe('rate_limited');
        result.refused += 1;
        if (outcome.outcome === 'rate_limited')
          result.retryAfterRight &&=
            outcome.retry_after === Math.ceil((Date.parse(outcome.until) - at.getTime()) / 1000);
      }
    }
    clock.advance(tick);
  }
  return result;
}

describe(`${INSTANCES} instances, ${CALLS_PER_SECOND} calls a second for ${SECONDS} s, a limit of ${LIMIT}`, () => {
  it('per minute: each UTC minute allows between 99% of the limit and the limit plus one interval’s calls', async () => {
    const out = await run(
      { per_minute: LIMIT },
      new Date(Date.parse('2026-12-06T10:01:00.000Z') - BEFORE_END_MS),
      (at) => at.toISOString().slice(0, 16),
    );
    // 10:00 (its last 15 or 45 s: 600 or 1,800 calls made) and 10:01 (as many) both reach the limit.
    expect([...out.allowed.keys()]).toEqual(['2026-12-06T10:00', '2026-12-06T10:01']);
    for (const [minute, allowed] of out.allowed) {
      console.info(`limits: ${minute} allowed ${allowed} of ${LIMIT} (bound ${LIMIT + ONE_INTERVAL})`);
      expect(allowed).toBeLessThanOrEqual(LIMIT + ONE_INTERVAL);
      expect(allowed).toBeGreaterThanOrEqual(Math.ceil(LIMIT * 0.99));
    }
    expect(out.refused).toBe(
      SECONDS * CALLS_PER_SECOND - [...out.allowed.values()].reduce((a, b) => a + b, 0),
    );
    expect(out.retryAfterRight).toBe(true);
    // At most one write a second per instance, whatever the rate.
    expect(Math.max(...out.writes.values())).toBe(1);
  });

  soakOnly('per day: the same across a UTC midnight', async () => {
    const out = await run(
      { per_day: LIMIT },
      new Date(Date.parse('2026-12-07T00:00:00.000Z') - BEFORE_END_MS),
      (at) => at.toISOString().slice(0, 10),
    );
    expect([...out.allowed.keys()]).toEqual(['2026-12-06', '2026-12-07']);
    for (const [day, allowed] of out.allowed) {
      console.info(`limits: ${day} allowed ${allowed} of ${LIMIT} (bound ${LIMIT + ONE_INTERVAL})`);
      expect(allowed).toBeLessThanOrEqual(LIMIT + ONE_INTERVAL);
      expect(allowed).toBeGreaterThanOrEqual(Math.ceil(LIMIT * 0.99));
    }
    expect(Math.max(...out.writes.values())).toBe(1);
  });
});
