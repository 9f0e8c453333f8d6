import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceRules } from '#lib/access/tools';
import { createKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { DynamoKeyReads, readKeys } from '#lib/store/key-reads';
import { writeWorkspaceRules } from '#lib/store/workspace-rules';
import { countCommands } from '#test/support/count';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';

/**
 * The two writes contract §19 adds to a credential's own item, on DynamoDB Local: a workspace's
 * rules (`workspace_rules.<id>`, set or removed by the policy fan-out, the map made when the item
 * has none, never an item made again) and a limited credential's counted calls (`rate_<window>`,
 * added, with ended windows removed, answering the totals).
 */
let tables: TestTables;
let rt: Runtime;
let reads: DynamoKeyReads;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  reads = new DynamoKeyReads(tables.doc, tables.keysTable);
});
afterAll(() => tables.drop());

const GONE = '00000000-0000-4000-8000-00000000dead';

async function keyId() {
  const member = await newMember(tables);
  const { metadata } = await createKey(rt.service, {
    userId: member.userId,
    name: 'k',
    workspaceIds: [member.workspaceId],
    scopes: ['svc.forms.read'],
  });
  return metadata.id;
}

const item = async (id: string) => (await tables.scanKeys()).find((i) => i.sk === 'KEY' && i.id === id);
const write = (id: string, workspaceId: string, rules: WorkspaceRules | undefined) =>
  writeWorkspaceRules(tables.doc, tables.keysTable, id, workspaceId, rules);

/** Fails the `nth` UpdateItem sent from now on with a server error (a throttle, an outage). */
function failing(nth: number) {
  const name = `fail-${Math.random()}`;
  let seen = 0;
  tables.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateItemCommand' && ++seen === nth)
        throw Object.assign(new Error('InternalServerError (injected)'), {
          name: 'InternalServerError',
          $fault: 'server',
          $metadata: { httpStatusCode: 500 },
        });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => tables.doc.middlewareStack.remove(name);
}

describe('a workspace’s rules on a credential', () => {
  it('on an item without the map: the map made with the workspace’s entry; later entries added beside it', async () => {
    const id = await keyId();
    const updates = countCommands(tables.doc);
    await write(id, 'w1', { tools: ['list_forms'] });
    expect(updates.of('UpdateItem')).toBe(2);
    updates.reset();
    await write(id, 'w2', { per_day: 5 });
    expect(updates.of('UpdateItem')).toBe(1);
    updates.remove();
    expect((await item(id))?.workspace_rules).toEqual({ w1: { tools: ['list_forms'] }, w2: { per_day: 5 } });
    await write(id, 'w1', { tools: ['read_draft'], per_minute: 1 });
    expect((await item(id))?.workspace_rules).toEqual({
      w1: { tools: ['read_draft'], per_minute: 1 },
      w2: { per_day: 5 },
    });
  });

  it('removed: only that workspace’s entry goes; without a map there is nothing to remove and nothing made', async () => {
    const id = await keyId();
    await write(id, 'w1', { tools: [] });
    await write(id, 'w2', { per_day: 5 });
    await write(id, 'w1', undefined);
    expect((await item(id))?.workspace_rules).toEqual({ w2: { per_day: 5 } });
    const bare = await keyId();
    const updates = countCommands(tables.doc);
    await write(bare, 'w1', undefined);
    updates.remove();
    expect(updates.of('UpdateItem')).toBe(1);
    expect(await item(bare)).not.toHaveProperty('workspace_rules');
  });

  it('a credential deleted meanwhile is not made again, after three attempts', async () => {
    const updates = countCommands(tables.doc);
    await write(GONE, 'w1', { tools: [] });
    await write(GONE, 'w1', undefined);
    updates.remove();
    expect(updates.of('UpdateItem')).toBe(7);
    expect((await tables.scanKeys()).filter((i) => String(i.pk).includes(GONE))).toEqual([]);
  });

  it('another fan-out making the map first: the entry is written into its map', async () => {
    const id = await keyId();
    const name = 'map-race';
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = (args as { input: { UpdateExpression?: string } }).input;
        if (context.commandName === 'UpdateItemCommand' && input.UpdateExpression === 'SET #rules = :map') {
          tables.doc.middlewareStack.remove(name);
          await tables.setKeyField(id, 'workspace_rules', { other: { per_day: 1 } });
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    await write(id, 'w1', { tools: ['list_forms'] });
    expect((await item(id))?.workspace_rules).toEqual({
      other: { per_day: 1 },
      w1: { tools: ['list_forms'] },
    });
  });

  it('a failure other than a condition reaches the caller, from either write', async () => {
    const id = await keyId();
    let stop = failing(1);
    await expect(write(id, 'w1', { tools: [] })).rejects.toThrow(/InternalServerError/);
    stop();
    stop = failing(2);
    await expect(write(id, 'w1', { tools: [] })).rejects.toThrow(/InternalServerError/);
    stop();
    expect(await item(id)).not.toHaveProperty('workspace_rules');
  });
});

describe('a limited credential’s counted calls', () => {
  it('are added to its counters, the totals answered, ended windows removed; the verification’s read brings them back', async () => {
    const id = await keyId();
    expect(await reads.addRates(id, { 'rate_2026-12-06': 2 }, [])).toEqual({ 'rate_2026-12-06': 2 });
    await tables.setKeyField(id, 'rate_2026-12-05', 40);
    expect(
      await reads.addRates(id, { 'rate_2026-12-06': 3, 'rate_2026-12-06T10:15': 1 }, ['rate_2026-12-05']),
    ).toEqual({ 'rate_2026-12-06': 5, 'rate_2026-12-06T10:15': 1 });
    const stored = await item(id);
    expect(stored).toMatchObject({ 'rate_2026-12-06': 5, 'rate_2026-12-06T10:15': 1 });
    expect(stored).not.toHaveProperty('rate_2026-12-05');
    expect((await reads.get(id))?.rate_counts).toEqual({ 'rate_2026-12-06': 5, 'rate_2026-12-06T10:15': 1 });
  });

  it('several counters added and several removed in one update', async () => {
    const id = await keyId();
    await tables.setKeyField(id, 'rate_2026-12-04', 1);
    await tables.setKeyField(id, 'rate_2026-12-05', 2);
    const adds = { 'rate_2026-12-06': 4, 'rate_2026-12-06T10:15': 2 };
    expect(await reads.addRates(id, adds, ['rate_2026-12-04', 'rate_2026-12-05'])).toEqual(adds);
    const stored = await item(id);
    expect(
      Object.keys(stored ?? {})
        .filter((k) => k.startsWith('rate_'))
        .sort(),
    ).toEqual(Object.keys(adds).sort());
  });

  it('a credential gone counts nothing and is not made again; another failure reaches the caller', async () => {
    expect(await reads.addRates(GONE, { 'rate_2026-12-06': 1 }, ['rate_2026-12-05'])).toEqual({});
    expect((await tables.scanKeys()).filter((i) => String(i.pk).includes(GONE))).toEqual([]);
    const id = await keyId();
    const stop = failing(1);
    await expect(reads.addRates(id, { 'rate_2026-12-06': 1 }, [])).rejects.toThrow(/InternalServerError/);
    stop();
  });
});

/** The inputs of the commands sent from now on, by command name. */
function inputs() {
  const sent: { command: string; input: Record<string, unknown> }[] = [];
  const name = `inputs-${Math.random()}`;
  tables.doc.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({
        command: String(context.commandName),
        input: (args as { input: Record<string, unknown> }).input,
      });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { sent, stop: () => tables.doc.middlewareStack.remove(name) };
}

describe('what the verifier reads and writes of a key item', () => {
  it('reads a key, or many, strongly consistently', async () => {
    const [a, b] = [await keyId(), await keyId()];
    const seen = inputs();
    expect((await reads.get(a))?.id).toBe(a);
    expect(await reads.get(GONE)).toBeUndefined();
    const many = await readKeys(tables.doc, tables.keysTable, [a, b, a, GONE]);
    seen.stop();
    expect([...many.keys()].sort()).toEqual([a, b].sort());
    const gets = seen.sent.filter((c) => c.command === 'GetItemCommand');
    expect(gets.map((c) => c.input.ConsistentRead)).toEqual([true, true]);
    const batch = seen.sent.find((c) => c.command === 'BatchGetItemCommand')?.input as {
      RequestItems: Record<string, { ConsistentRead?: boolean; Keys: unknown[] }>;
    };
    expect(batch.RequestItems[tables.keysTable]).toMatchObject({ ConsistentRead: true });
    expect(batch.RequestItems[tables.keysTable]?.Keys).toHaveLength(3);
    expect((await readKeys(tables.doc, tables.keysTable, [GONE])).size).toBe(0);
  });

  it('records a use at most once a minute: written, then already written; another failure reaches the caller', async () => {
    const id = await keyId();
    const now = new Date();
    expect(await reads.recordUse(id, now)).toBe(true);
    expect(await reads.recordUse(id, new Date(now.getTime() + 1000))).toBe(false);
    expect((await item(id))?.last_used_at).toBe(now.toISOString());
    const stop = failing(1);
    await expect(reads.recordUse(id, new Date(now.getTime() + 120_000))).rejects.toThrow(
      /InternalServerError/,
    );
    stop();
  });
});
