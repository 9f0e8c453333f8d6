import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuePage, ExpiryStore } from '#lib/events/port';
import { runExpirySweep } from '#lib/events/sweep';
import type { KeyRecord } from '#lib/keys/model';
import type { Runtime } from '#lib/runtime';
import { keyItem } from '#lib/store/items';
import { createTestTables, type TestTables } from '#test/support/dynamo';

/**
 * What a sweep reports about its run, against DynamoDB Local: every due key counted once, as
 * written or as skipped, however many keys are due and however stale the index read was.
 */
const DAY = 86_400_000;
let tables: TestTables;
let rt: Runtime;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
});
afterAll(() => tables.drop());

/** `count` keys written straight to the table, each expiring `expiresIn` after `now`. */
async function seed(count: number, now: number, expiresIn: number): Promise<void> {
  const items = Array.from({ length: count }, () => {
    const id = randomUUID();
    const record: KeyRecord = {
      id,
      user_id: `user-${id}`,
      lineage_id: id,
      name: 'bulk',
      workspace_ids: [randomUUID()],
      scopes: ['svc.forms.read'],
      digest: 'x'.repeat(44),
      pepper_version: 1,
      key_hint: 'svc_mcp_v1_…abcd',
      created_at: new Date(now - 30 * DAY).toISOString(),
      expires_at: new Date(now + expiresIn).toISOString(),
    };
    return keyItem(record, 90);
  });
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await tables.doc.send(new BatchWriteCommand({ RequestItems: { [tables.keysTable]: batch } }));
  }
}

describe('the sweep summary', () => {
  it('counts each of many due keys once, as written, when more are due than it writes at once', async () => {
    const now = Date.parse('2027-01-01T00:00:00.000Z');
    await seed(25, now, 3 * DAY);
    const summary = await runExpirySweep(rt, new Date(now));
    expect(summary.due).toBe(25);
    expect(summary.written).toEqual({ expiring_7: 25, expiring_1: 0, expired: 0 });
    expect(summary.skipped).toBe(0);
  });

  it('counts a key whose notice was written after the index was read as skipped, not written', async () => {
    const now = Date.parse('2027-03-01T00:00:00.000Z');
    await runExpirySweep(rt, new Date(now));
    await seed(2, now, -DAY);
    // The index is read eventually consistently: a page may list keys whose notice is already
    // written. Reading each page twice makes that happen deterministically.
    const stale: ExpiryStore = {
      async *dueKeys(at: Date): AsyncIterable<DuePage> {
        for await (const page of rt.expiry.dueKeys(at)) {
          yield page;
          yield page;
        }
      },
      recordNotice: (...args) => rt.expiry.recordNotice(...args),
    };
    const summary = await runExpirySweep({ expiry: stale }, new Date(now));
    expect(summary.due).toBe(4);
    expect(summary.written).toEqual({ expiring_7: 0, expiring_1: 0, expired: 2 });
    expect(summary.skipped).toBe(2);
  });
});
