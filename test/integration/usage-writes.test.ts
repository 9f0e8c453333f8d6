import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { revokeKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { DynamoUsageWriter } from '#lib/store/usage-items';
import { DynamoUsageReader } from '#lib/store/usage-reads';
import type { UsageDay } from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';
import { dynamoKeyVerifier } from '#lib/verifier';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';

/**
 * When usage is written besides a call's due write (contract §18), on DynamoDB Local: a refusal
 * of a revoked or expired credential at once, a credential forgotten past an instance's capacity
 * before it goes (and counted again into an item of its own), and due counts on local mode's
 * timer where no call comes.
 */
let tables: TestTables;
let rt: Runtime;
let reader: DynamoUsageReader;
const clock = manualClock(new Date('2026-11-28T10:00:00.000Z'));
const DAY = '2026-11-28';

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
  reader = new DynamoUsageReader(tables.doc, tables.keysTable);
});
afterAll(() => tables.drop());

/** What is stored for a credential today, every item summed. */
async function stored(id: string) {
  const days = await reader.daysOf(id, DAY, DAY);
  return {
    calls: days.reduce((n, d) => n + d.calls, 0),
    revoked: days.reduce((n, d) => n + (d.hours['10']?.refused.revoked ?? 0), 0),
    expired: days.reduce((n, d) => n + (d.hours['10']?.refused.expired ?? 0), 0),
    items: days.length,
  };
}

describe('a refusal of a revoked or expired key', () => {
  it('is written at once: one probe of a leaked key on a quiet instance, and no call after it', async () => {
    const leaked = await issueKey(tables, rt.service);
    await revokeKey(rt.service, leaked.userId, leaked.id);
    const lapsed = await issueKey(tables, rt.service);
    await tables.setKeyField(lapsed.id, 'expires_at', '2026-11-27T00:00:00.000Z');
    const quiet = tables.runtime({ now: clock.now });
    expect((await quiet.verify(leaked.apiKey)).outcome).toBe('revoked');
    expect((await quiet.verify(lapsed.apiKey)).outcome).toBe('expired');
    await vi.waitFor(async () => {
      expect(await stored(leaked.id)).toMatchObject({ calls: 1, revoked: 1 });
      expect(await stored(lapsed.id)).toMatchObject({ calls: 1, expired: 1 });
    });
  });
});

/** A verifier on these tables whose recorder keeps `capacity` credentials, with writes that can be held. */
function smallInstance(capacity: number) {
  const writer = new DynamoUsageWriter(tables.doc, tables.keysTable, 90);
  const gate = { hold: false, held: [] as (() => void)[] };
  const usage = new UsageRecorder({
    capacity,
    writer: {
      putDay: async (day: UsageDay) => {
        if (gate.hold) await new Promise<void>((go) => gate.held.push(go));
        await writer.putDay(day);
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
  const release = () => {
    gate.hold = false;
    for (const go of gate.held.splice(0)) go();
  };
  return { verify, usage, gate, release };
}

describe('an instance past its capacity', () => {
  it('a key forgotten and called again the same day adds to its stored calls (3, then 4), not replaces them', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => issueKey(tables, rt.service)));
    const instance = smallInstance(2);
    for (let i = 0; i < 3; i++) expect((await instance.verify(a?.apiKey)).outcome).toBe('valid');
    await instance.usage.flushAll(clock.now());
    expect((await stored(a?.id as string)).calls).toBe(3);
    await instance.verify(b?.apiKey);
    await instance.verify(c?.apiKey); // a is forgotten
    await instance.verify(a?.apiKey);
    await instance.usage.flushAll(clock.now());
    expect(await stored(a?.id as string)).toMatchObject({ calls: 4, items: 2 });
  });

  it('a key forgotten while its write is under way with new counts: they are written, and the next call is verified', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => issueKey(tables, rt.service)));
    const instance = smallInstance(1);
    await instance.verify(a?.apiKey);
    instance.gate.hold = true;
    const writing = instance.usage.flushAll(clock.now());
    await instance.verify(a?.apiKey); // counted while its write is under way
    await instance.verify(b?.apiKey); // a is forgotten
    instance.release();
    await writing;
    // Before, a's id waited with nothing behind it: this verification threw (a 503 in-process).
    expect((await instance.verify(c?.apiKey)).outcome).toBe('valid');
    await vi.waitFor(async () => expect((await stored(a?.id as string)).calls).toBe(2));
  });
});

describe('local mode’s timer', () => {
  it('writes the counts that are due with no call to carry them, and stops when the instance ends', async () => {
    const key = await issueKey(tables, rt.service);
    const local = tables.runtime({ now: clock.now, usageTimerMs: 20 });
    expect((await local.verify(key.apiKey)).outcome).toBe('valid');
    await new Promise((go) => setTimeout(go, 60));
    expect((await stored(key.id)).calls).toBe(0); // not due yet
    clock.advance(60_000);
    await vi.waitFor(async () => expect((await stored(key.id)).calls).toBe(1));
    await local.endUsage();
  });
});
