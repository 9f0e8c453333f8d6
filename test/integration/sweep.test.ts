import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTICES } from '#lib/events/expiry';
import type { KeyEvent } from '#lib/events/model';
import { runExpirySweep } from '#lib/events/sweep';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import type { Runtime } from '#lib/runtime';
import { fromEventItem, keyItem } from '#lib/store/items';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';

/**
 * The expiry sweep against DynamoDB Local: each notice once per key and threshold, at its time,
 * whatever the number of runs, and a cost that follows the keys due, not the table.
 */
const DAY = 86_400_000;
const clock = manualClock(new Date('2026-11-01T12:00:00.000Z'));
let tables: TestTables;
let rt: Runtime;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
});
afterAll(() => tables.drop());

const sweepAt = (at: Date | number) => runExpirySweep(rt, new Date(at));

async function newKey(days: number) {
  const userId = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  await tables.setRole(userId, workspaceId, 'editor');
  const { metadata } = await createKey(rt.service, {
    userId,
    name: 'laptop',
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.read'],
    expiresInDays: days,
  });
  return { userId, id: metadata.id, expires: Date.parse(metadata.expires_at) };
}

/** The sweep's events about one key, oldest first. */
async function eventsAbout(keyId: string): Promise<KeyEvent[]> {
  return (await tables.scanKeys())
    .map((i) => fromEventItem(i))
    .filter((e): e is KeyEvent => e?.key_id === keyId && e.actor.type === 'system')
    .sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));
}

const label = (e: KeyEvent) => (e.type === 'key.expiring' ? `expiring ${e.details.days_left}` : e.type);

describe('thresholds', () => {
  it('writes key.expiring at 7 and 1 days left and key.expired at the expiry, each once', async () => {
    const key = await newKey(30);
    const at = (ms: number) => key.expires - ms;
    const runs = [
      clock.now().getTime(),
      at(7 * DAY) - 1,
      at(7 * DAY),
      at(7 * DAY) + 1000,
      at(DAY) - 1,
      at(DAY),
      at(DAY) + 3_600_000,
      at(1),
      key.expires,
      key.expires + DAY,
    ];
    const seen: string[][] = [];
    for (const run of runs) {
      await sweepAt(run);
      seen.push((await eventsAbout(key.id)).map(label));
    }
    expect(seen).toEqual([
      [],
      [],
      ['expiring 7'],
      ['expiring 7'],
      ['expiring 7'],
      ['expiring 7', 'expiring 1'],
      ['expiring 7', 'expiring 1'],
      ['expiring 7', 'expiring 1'],
      ['expiring 7', 'expiring 1', 'key.expired'],
      ['expiring 7', 'expiring 1', 'key.expired'],
    ]);
    const [seven, one, expired] = await eventsAbout(key.id);
    expect(seven).toMatchObject({
      type: 'key.expiring',
      occurred_at: new Date(at(7 * DAY)).toISOString(),
      actor: { type: 'system', id: null },
      details: { expires_at: new Date(key.expires).toISOString(), days_left: 7 },
    });
    expect(one?.details).toEqual({ expires_at: new Date(key.expires).toISOString(), days_left: 1 });
    expect(expired?.details).toEqual({ expires_at: new Date(key.expires).toISOString() });
    // With every notice written, the key has left the index.
    const item = (await tables.scanKeys()).find((i) => i.pk === `KEY#${key.id}`);
    expect(item).not.toHaveProperty('gsi2pk');
    expect(item).toMatchObject({ notified_7: expect.any(String), notified_expired: expect.any(String) });
  });

  it('a late sweep writes only the latest notice due, never a stale one', async () => {
    const late = await newKey(30);
    await sweepAt(late.expires - 12 * 3_600_000);
    expect((await eventsAbout(late.id)).map(label)).toEqual(['expiring 1']);
    const later = await newKey(30);
    await sweepAt(later.expires + 5 * DAY);
    expect((await eventsAbout(later.id)).map(label)).toEqual(['key.expired']);
  });

  it('does not announce a threshold the key started within', async () => {
    const short = await newKey(5);
    await sweepAt(short.expires - 4 * DAY);
    expect(await eventsAbout(short.id)).toEqual([]);
    await sweepAt(short.expires - DAY);
    expect((await eventsAbout(short.id)).map(label)).toEqual(['expiring 1']);
  });

  it('skips a key the index lists before any of its notices is due, writing nothing', async () => {
    const early = await newKey(30);
    await tables.setKeyField(early.id, 'gsi2sk', '2000-01-01T00:00:00.000Z');
    const summary = await sweepAt(clock.now());
    expect(summary).toMatchObject({
      due: 1,
      skipped: 1,
      written: { expiring_7: 0, expiring_1: 0, expired: 0 },
    });
    expect(await eventsAbout(early.id)).toEqual([]);
  });

  it('writes nothing for revoked keys; a rotation hands the schedule to the new key', async () => {
    const revoked = await newKey(30);
    await revokeKey(rt.service, revoked.userId, revoked.id);
    const old = await newKey(30);
    const rotated = await rotateKey(rt.service, old.userId, old.id);
    await sweepAt(old.expires + DAY);
    expect(await eventsAbout(revoked.id)).toEqual([]);
    expect(await eventsAbout(old.id)).toEqual([]);
    expect((await eventsAbout(rotated.metadata.id)).map(label)).toEqual(['key.expired']);
  });
});

describe('exactly once', () => {
  it('repeated and concurrent sweeps write each notice once', async () => {
    const keys = await Promise.all([newKey(10), newKey(10), newKey(10)]);
    const when = (keys[0]?.expires ?? 0) - 6 * DAY;
    const summaries = await Promise.all([sweepAt(when), sweepAt(when), sweepAt(when)]);
    const again = await sweepAt(when + 1000);
    for (const key of keys) expect((await eventsAbout(key.id)).map(label)).toEqual(['expiring 7']);
    const written = summaries.reduce((n, s) => n + s.written.expiring_7, 0);
    expect(written).toBeGreaterThanOrEqual(3);
    expect(again.written).toEqual({ expiring_7: 0, expiring_1: 0, expired: 0 });
  });

  it('the store refuses a notice already written, or superseded by a later one', async () => {
    const key = await newKey(10);
    const subject = { id: key.id, user_id: key.userId, lineage_id: key.id, expires_at: '' };
    subject.expires_at = new Date(key.expires).toISOString();
    const [seven, one] = NOTICES;
    if (!seven || !one) throw new Error('notices missing');
    const now = new Date(key.expires - 2 * DAY);
    expect(await rt.expiry.recordNotice(subject, one, one.build(subject, now), undefined)).toBe(true);
    expect(await rt.expiry.recordNotice(subject, one, one.build(subject, now), undefined)).toBe(false);
    expect(await rt.expiry.recordNotice(subject, seven, seven.build(subject, now), undefined)).toBe(false);
    expect((await eventsAbout(key.id)).map(label)).toEqual(['expiring 1']);
  });
});

describe('cost', () => {
  /** Writes `total` keys straight to the table, `due` of them within 7 days of expiring at `now`. */
  async function seed(total: number, due: number, now: number) {
    const items = Array.from({ length: total }, (_, i) => {
      const createdAt = new Date(now - 30 * DAY).toISOString();
      const expiresIn = i < due ? 3 * DAY + i * 1000 : 30 * DAY + (i % 1000) * 60_000;
      const record: KeyRecord = {
        id: randomUUID(),
        user_id: `bulk-${i % 500}`,
        lineage_id: '',
        name: 'bulk',
        workspace_ids: [randomUUID()],
        scopes: ['svc.forms.read'],
        digest: 'x'.repeat(44),
        pepper_version: 1,
        key_hint: 'svc_mcp_v1_…abcd',
        created_at: createdAt,
        expires_at: new Date(now + expiresIn).toISOString(),
      };
      record.lineage_id = record.id;
      return keyItem(record, 90);
    });
    const batches: (typeof items)[] = [];
    for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
    const write = async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) {
        let pending: Record<string, unknown>[] | undefined = batch.map((Item) => ({ PutRequest: { Item } }));
        while (pending && pending.length > 0) {
          const out = await tables.doc.send(
            new BatchWriteCommand({ RequestItems: { [tables.keysTable]: pending as never } }),
          );
          pending = out.UnprocessedItems?.[tables.keysTable] as Record<string, unknown>[] | undefined;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, write));
  }

  it('a sweep over 10,000 keys of which 10 are due reads 10 items', async () => {
    const now = Date.parse('2027-06-01T00:00:00.000Z');
    // Notify whatever earlier tests left due, so the measured run sees only the seeded keys.
    await sweepAt(now);
    await seed(10_000, 10, now);
    const reads = { items: 0, units: 0, queries: 0, scans: 0 };
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const body = out.output as { ScannedCount?: number; ConsumedCapacity?: { CapacityUnits?: number } };
        if (context.commandName === 'QueryCommand') {
          reads.queries++;
          reads.items += body.ScannedCount ?? 0;
          reads.units += body.ConsumedCapacity?.CapacityUnits ?? 0;
        }
        if (context.commandName === 'ScanCommand') reads.scans++;
        return out;
      },
      { step: 'initialize', name: 'read-meter' },
    );
    try {
      const summary = await sweepAt(now);
      const repeat = await sweepAt(now + 1000);
      console.log(
        `sweep over 10,000 keys, 10 due: ${reads.queries} queries, items read ${summary.items_read}, ` +
          `read units ${summary.read_units} (then a repeat run: ${repeat.items_read} items, ${repeat.read_units} RRU)`,
      );
      expect(summary.due).toBe(10);
      expect(summary.written).toEqual({ expiring_7: 10, expiring_1: 0, expired: 0 });
      expect(summary.items_read).toBe(10);
      expect(reads.items).toBe(10);
      expect(reads.scans).toBe(0);
      // Four shards, each at most one 4 KB unit of eventually consistent reads.
      expect(summary.read_units).toBe(reads.units);
      expect(summary.read_units).toBeLessThanOrEqual(2);
      expect(repeat.items_read).toBe(0);
    } finally {
      tables.doc.middlewareStack.remove('read-meter');
    }
  }, 120_000);
});
