import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { DynamoUsageWriter } from '#lib/store/usage-items';
import type { Tally } from '#lib/usage/model';
import { freshCaller, loadApi } from '#test/support/api';
import { countCapacity } from '#test/support/capacity';
import { countCommands } from '#test/support/count';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';
import { loadWorkspaceApi } from '#test/support/workspace-api';

/**
 * Usage (contract §18) on DynamoDB Local: the write rate whatever the call rate, the totals that
 * add up across instances, and the owner's and administrators' views with their refusals.
 */
let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T10:00:00.000Z'));
let rt: Runtime;
let ws: ReturnType<typeof loadWorkspaceApi>;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
  ws = loadWorkspaceApi(rt);
});
afterAll(() => tables.drop());

const call = (method: string, name?: string) => ({ method, name });

describe('the write rate', () => {
  it('1,000 verifications of one credential within a minute: one usage write per instance, and the totals add up exactly', async () => {
    const { apiKey, id, userId } = await issueKey(tables, rt.service);
    // Two function instances: each counts in its own memory and writes its own item.
    const instances = [tables.runtime({ now: clock.now }), tables.runtime({ now: clock.now })];
    const puts = countCommands(tables.doc);
    for (let i = 0; i < 500; i++) {
      clock.advance(100);
      const results = await Promise.all(
        instances.map((instance) => instance.verify(apiKey, call('tools/call', 'list_forms'))),
      );
      expect(results.every((r) => r.outcome === 'valid')).toBe(true);
    }
    expect(puts.snapshot().PutItem).toBeUndefined();
    clock.advance(11_000); // a minute after each instance’s first count
    await Promise.all(instances.map((instance) => instance.verify(apiKey, call('tools/list'))));
    expect(puts.snapshot().PutItem).toBe(2);
    puts.reset();

    const usage = await ws.keyUsage(id, { caller: freshCaller(userId), query: { granularity: 'hour' } });
    expect(usage.status, usage.raw).toBe(200);
    expect(usage.body.total).toEqual({ calls: 1000, refused: {}, tools: { list_forms: 1000 } });
    const list = await loadApi(rt).list({ caller: freshCaller(userId) });
    expect((list.body.data as { id: string; calls_7d: number }[]).find((k) => k.id === id)?.calls_7d).toBe(
      1000,
    );
  });
});

describe('the list’s calls_7d', () => {
  it('comes with the page’s own Query (the keys’ items carry their days’ calls), refusals and every instance counted', async () => {
    const first = await issueKey(tables, rt.service, { name: 'roll-up 1' });
    const { userId } = first;
    const others = await Promise.all(
      [2, 3].map((n) =>
        createKey(rt.service, {
          userId,
          name: `roll-up ${n}`,
          workspaceIds: [first.workspaceId],
          scopes: ['svc.forms.read'],
        }),
      ),
    );
    const [second, third] = others as [(typeof others)[0], (typeof others)[0]];
    const instances = [tables.runtime({ now: clock.now }), tables.runtime({ now: clock.now })];
    for (const instance of instances) {
      for (let i = 0; i < 3; i++) await instance.verify(first.apiKey, call('tools/call', 'list_forms'));
      await instance.verify(second.apiKey, call('tools/list'));
    }
    await revokeKey(rt.service, userId, second.metadata.id);
    expect((await instances[0]?.verify(second.apiKey))?.outcome).toBe('revoked');
    await Promise.all(instances.map((instance) => instance.endUsage()));

    const reads = countCommands(tables.doc);
    const list = await loadApi(rt).list({ caller: freshCaller(userId), query: { limit: '50' } });
    expect(list.status, list.raw).toBe(200);
    // The page's keys and their calls: one Query of the user index, whatever the page's length.
    expect(reads.snapshot()).toEqual({ Query: 1 });
    const calls = Object.fromEntries(
      (list.body.data as { id: string; calls_7d: number }[]).map((k) => [k.id, k.calls_7d]),
    );
    expect(calls).toEqual({ [first.id]: 6, [second.metadata.id]: 3, [third.metadata.id]: 0 });
  });
});

describe('what a write costs', () => {
  it('1 write unit for a day with an hour of calls, 4 for one busy every hour with five tools; 2 for the key’s count of the day', async () => {
    const writer = new DynamoUsageWriter(tables.doc, tables.keysTable, 90);
    const capacity = countCapacity(tables.doc);
    const hour = (tools: number): Tally => ({
      calls: 1234,
      refused: { revoked: 3, no_access: 1 },
      tools: Object.fromEntries(Array.from({ length: tools }, (_, i) => [`forms_tool_${i}`, 100 + i])),
    });
    const day = (hours: number, tools: number) => ({
      credential_id: randomUUID(),
      kind: 'oauth_grant' as const,
      user_id: `user-${randomUUID()}`,
      client_id: 'https://client.example.com/oauth/metadata.json',
      day: '2026-11-28',
      instance: randomUUID(),
      hours: Object.fromEntries(
        Array.from({ length: hours }, (_, h) => [String(h).padStart(2, '0'), hour(tools)]),
      ),
      calls: 1234 * hours,
    });
    const units = async (hours: number, tools: number) => {
      capacity.reset();
      await writer.putDay(day(hours, tools));
      return capacity.writes();
    };
    const measured = { oneHourTwoTools: await units(1, 2), busyDay: await units(24, 5) };
    capacity.remove();
    console.log(`usage write units: ${JSON.stringify(measured)}`);
    expect(measured).toEqual({ oneHourTwoTools: 1, busyDay: 4 });
    // The day's calls added to the key's own item: the item and its entry in the user index.
    const key = await issueKey(tables, rt.service);
    const adding = countCapacity(tables.doc);
    await writer.addCalls(key.id, '2026-11-28', 1234);
    const added = adding.writes();
    adding.remove();
    expect(added).toBe(2);
    // A day two weeks back goes with the next write: the item keeps about a fortnight of counts.
    await writer.addCalls(key.id, '2026-11-18', 5);
    await writer.addCalls(key.id, '2026-11-28', 1);
    expect((await rt.service.keys.get(key.id))?.calls_by_day).toEqual({ '2026-11-28': 1235 });
    // A key no longer stored is not made again.
    const gone = randomUUID();
    await writer.addCalls(gone, '2026-11-28', 1);
    expect(await rt.service.keys.get(gone)).toBeUndefined();
  });
});

describe('the owner’s view', () => {
  it('shows calls by hour with refusals by reason; another user’s key is not found; a bad range changes nothing', async () => {
    const { apiKey, id, userId } = await issueKey(tables, rt.service, { name: 'usage-owner' });
    const instance = tables.runtime({ now: clock.now });
    await instance.verify(apiKey, call('tools/call', 'read_draft'));
    await revokeKey(rt.service, userId, id);
    for (let i = 0; i < 3; i++) expect((await instance.verify(apiKey)).outcome).toBe('revoked');
    // The first refusal was written at once; the instance ending writes the rest.
    await instance.endUsage();

    const mine = await ws.keyUsage(id, {
      caller: freshCaller(userId),
      query: { granularity: 'hour', from: new Date(clock.now().getTime() - 3_600_000).toISOString() },
    });
    expect(mine.status, mine.raw).toBe(200);
    expect(mine.body).toMatchObject({ credential_id: id, kind: 'api_key', granularity: 'hour' });
    const busy = (mine.body.buckets as { calls: number }[]).filter((b) => b.calls > 0);
    expect(busy).toEqual([
      expect.objectContaining({ calls: 4, refused: { revoked: 3 }, tools: { read_draft: 1 } }),
    ]);

    const other = await ws.keyUsage(id, { caller: freshCaller(`user-${randomUUID()}`) });
    expect([other.status, other.body.code]).toEqual([404, 'not_found']);
    const reversed = await ws.keyUsage(id, {
      caller: freshCaller(userId),
      query: { from: '2026-11-28T00:00:00Z', to: '2026-11-01T00:00:00Z' },
    });
    expect([reversed.status, reversed.body.code]).toEqual([400, 'validation_failed']);
    const unknown = await ws.keyUsage(id, { caller: freshCaller(userId), query: { granularity: 'week' } });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'validation_failed']);
  });
});

describe('the administrators’ view', () => {
  it('groups the workspace’s credentials by credential, client and tool, and names a revoked key still presented', async () => {
    const workspaceId = randomUUID();
    const [owner, bo, cy] = [`owner-${randomUUID()}`, `bo-${randomUUID()}`, `cy-${randomUUID()}`];
    for (const [user, role] of [
      [owner, 'owner'],
      [bo, 'editor'],
      [cy, 'editor'],
    ] as const)
      await tables.setRole(user, workspaceId, role);
    const key = (userId: string, name: string) =>
      createKey(rt.service, { userId, name, workspaceIds: [workspaceId], scopes: ['svc.forms.read'] });
    const busy = await key(bo, 'busy laptop');
    const leaked = await key(cy, 'old script');
    await revokeKey(rt.service, cy, leaked.metadata.id);
    const instance = tables.runtime({ now: clock.now });
    for (let i = 0; i < 5; i++) await instance.verify(busy.apiKey, call('tools/call', 'list_forms'));
    await instance.verify(busy.apiKey, call('tools/call', 'read_draft'));
    for (let i = 0; i < 5; i++) expect((await instance.verify(leaked.apiKey)).outcome).toBe('revoked');
    await instance.endUsage();

    const byCredential = await ws.usage(workspaceId, { caller: freshCaller(owner) });
    expect(byCredential.status, byCredential.raw).toBe(200);
    expect(byCredential.body.groups).toEqual([
      expect.objectContaining({ key: busy.metadata.id, kind: 'api_key', user_id: bo, calls: 6 }),
      expect.objectContaining({ key: leaked.metadata.id, user_id: cy, calls: 5, refused: { revoked: 5 } }),
    ]);
    expect(byCredential.body.revoked_still_presented).toEqual([
      expect.objectContaining({
        credential_id: leaked.metadata.id,
        name: 'old script',
        user_id: cy,
        presented: 5,
      }),
    ]);
    const byTool = await ws.usage(workspaceId, { caller: freshCaller(owner), query: { group_by: 'tool' } });
    expect((byTool.body.groups as { key: string; calls: number }[]).map((g) => [g.key, g.calls])).toEqual([
      ['list_forms', 5],
      ['read_draft', 1],
    ]);
    const byClient = await ws.usage(workspaceId, {
      caller: freshCaller(owner),
      query: { group_by: 'client' },
    });
    expect(byClient.body.groups).toEqual([expect.objectContaining({ key: 'api_key', calls: 11 })]);

    const member = await ws.usage(workspaceId, { caller: freshCaller(bo) });
    expect([member.status, member.body.code]).toEqual([403, 'workspace_admin_required']);
    const bad = await ws.usage(workspaceId, { caller: freshCaller(owner), query: { group_by: 'user' } });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });
});
