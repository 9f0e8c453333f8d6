import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotsPk } from '#lib/store/keys-store';
import { loadApi } from '#test/support/api';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { captureOutput } from '#test/support/logs';

/**
 * The active-key cap (contract §5, default 50) under concurrent creates by one user: the cap is
 * one conditional write on the user's slot map, so creates under the cap never lose to each
 * other and creates over it answer key_limit_reached, never conflict.
 */
const DAY = 86_400_000;
const CAP = 50;
let tables: TestTables;
const clock = manualClock(new Date());
let api: ReturnType<typeof loadApi>;
const output = captureOutput();

beforeAll(async () => {
  tables = await createTestTables();
  api = loadApi(tables.runtime({ now: clock.now, settings: { maxActiveKeys: CAP } }));
});
afterAll(async () => {
  output.restore();
  await tables.drop();
});

async function member() {
  const sub = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  await tables.setRole(sub, workspaceId, 'editor');
  // A login as fresh as the test's clock, so step-up passes whatever the clock says.
  const caller = () => ({
    sub,
    email_verified: 'true',
    auth_time: String(Math.floor(clock.now().getTime() / 1000)),
  });
  const create = async (expiresInDays = 30) => {
    const reply = await api.create({
      caller: caller(),
      body: {
        name: 'k',
        workspace_ids: [workspaceId],
        scopes: ['svc.forms.read'],
        expires_in_days: expiresInDays,
      },
    });
    return reply.status === 201 ? 'created' : String(reply.body.code ?? reply.status);
  };
  const concurrently = async (n: number, days?: number) => {
    const outcomes = await Promise.all(Array.from({ length: n }, () => create(days)));
    const tally: Record<string, number> = {};
    for (const o of outcomes) tally[o] = (tally[o] ?? 0) + 1;
    return tally;
  };
  const activeKeys = async () => {
    const reply = await api.list({ caller: caller(), query: { status: 'active', limit: '100' } });
    return (reply.body.data as unknown[]).length;
  };
  const slots = async () => {
    const item = (await tables.scanKeys()).find((i) => i.pk === slotsPk(sub));
    return Object.keys((item?.active as Record<string, string> | undefined) ?? {}).length;
  };
  return { create, concurrently, activeKeys, slots };
}

describe('the active-key cap under concurrent creates', () => {
  it('70 concurrent creates with a cap of 50: exactly 50 created, 20 key_limit_reached, no conflict', async () => {
    const user = await member();
    expect(await user.concurrently(70)).toEqual({ created: 50, key_limit_reached: 20 });
    expect(await user.activeKeys()).toBe(50);
    expect(await user.slots()).toBe(50);
  });

  it('40 concurrent creates under a cap of 50 all answer 201', async () => {
    const user = await member();
    expect(await user.concurrently(40)).toEqual({ created: 40 });
    expect(await user.activeKeys()).toBe(40);
  });

  it('reclaims lapsed slots: with 50 slots of which 10 have expired, 15 concurrent creates make 10 keys', async () => {
    const user = await member();
    expect(await user.concurrently(40, 30)).toEqual({ created: 40 });
    expect(await user.concurrently(10, 1)).toEqual({ created: 10 });
    expect(await user.create()).toBe('key_limit_reached');
    clock.advance(DAY + 1);
    expect(await user.concurrently(15)).toEqual({ created: 10, key_limit_reached: 5 });
    expect(await user.activeKeys()).toBe(50);
    expect(await user.slots()).toBe(50);
  });
});
