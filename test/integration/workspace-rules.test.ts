import { randomUUID } from 'node:crypto';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { createKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { type CallOptions, freshCaller, type Reply } from '#test/support/api';
import { countCommands } from '#test/support/count';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { streamReader } from '#test/support/stream';
import { loadWorkspaceApi } from '#test/support/workspace-api';

/**
 * A workspace policy's tools and caps (contract §19) on DynamoDB Local: set and read by
 * administrators, checked against the catalogue, and written onto every credential of the
 * workspace by the fan-out the policy's event starts, in both directions and only where they
 * changed, so the next verification obeys them and a redelivered event writes nothing.
 */
let tables: TestTables;
let rt: Runtime;
let ws: ReturnType<typeof loadWorkspaceApi>;
let stream: ReturnType<typeof streamReader>;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  ws = loadWorkspaceApi(rt);
  stream = streamReader(tables.endpoint, tables.keysTable);
});
afterAll(async () => {
  stream.close();
  await tables.drop();
});

const as = (sub: string): CallOptions => ({ caller: freshCaller(sub) });

async function workspace() {
  const id = randomUUID();
  const elsewhere = randomUUID();
  const [owner, creator] = [`owner-${randomUUID()}`, `creator-${randomUUID()}`];
  await Promise.all([
    tables.setRole(owner, id, 'owner'),
    tables.setRole(creator, id, 'editor'),
    tables.setRole(creator, elsewhere, 'editor'),
  ]);
  return { id, elsewhere, owner, creator };
}

const policy = (over: Record<string, unknown> = {}) => ({
  mcp_access: 'enabled',
  allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
  max_expiry_days: null,
  ...over,
});

function problem(reply: Reply, status: number, code: string) {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.body).toMatchObject({ status, code });
}

/** Delivers the stream's new records to the fan-out function as Lambda would. */
async function deliverStream() {
  const Records = (await stream.next()) as DynamoDBStreamEvent['Records'];
  const out = await ws.applyPolicy({ Records }, lambdaContext('fan-out'));
  expect(out).toEqual({ batchItemFailures: [] });
  return Records;
}

const keyItem = async (id: string) => (await tables.scanKeys()).find((i) => i.sk === 'KEY' && i.id === id);
const tool = (name: string) => ({ method: 'tools/call', name });

describe('the policy’s tools and caps', () => {
  it('are shown as set, null when the policy has none', async () => {
    const w = await workspace();
    const set = await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({
        allowed_tools: ['read_draft', 'list_forms'],
        max_calls_per_minute: 60,
        max_calls_per_day: 1000,
      }),
    });
    expect(set.status, set.raw).toBe(200);
    expect(set.body).toMatchObject({
      allowed_tools: ['read_draft', 'list_forms'],
      max_calls_per_minute: 60,
      max_calls_per_day: 1000,
    });
    expect((await ws.getPolicy(w.id, as(w.creator))).body).toMatchObject({
      allowed_tools: ['read_draft', 'list_forms'],
      max_calls_per_minute: 60,
      max_calls_per_day: 1000,
    });
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ max_expiry_days: 30 }) });
    expect((await ws.getPolicy(w.id, as(w.creator))).body).toMatchObject({
      allowed_tools: null,
      max_calls_per_minute: null,
      max_calls_per_day: null,
      max_expiry_days: 30,
    });
  });

  it('name tools of the catalogue only: 400 naming each other one, nothing written', async () => {
    const w = await workspace();
    const before = await tables.scanKeys();
    const refused = await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({ allowed_tools: ['list_forms', 'drop_tables', 'read_draft', 'rm'] }),
    });
    problem(refused, 400, 'validation_failed');
    expect(refused.body.errors).toEqual([
      { path: 'allowed_tools.1', message: 'drop_tables is not a tool of this MCP server' },
      { path: 'allowed_tools.3', message: 'rm is not a tool of this MCP server' },
    ]);
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('the same tools in another order and the same caps write nothing; a changed tool or cap is a new version', async () => {
    const w = await workspace();
    const first = policy({
      allowed_tools: ['list_forms', 'read_draft'],
      max_calls_per_minute: 5,
      max_calls_per_day: 50,
    });
    await ws.putPolicy(w.id, { ...as(w.owner), body: first });
    const scan = await tables.scanKeys();
    const again = await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: { ...first, allowed_tools: ['read_draft', 'list_forms'] },
    });
    expect(again.status).toBe(200);
    expect(await tables.scanKeys()).toEqual(scan);
    const changes = [
      { allowed_tools: ['list_forms'] },
      { allowed_tools: ['list_forms', 'compile_dsl'] },
      { allowed_tools: null },
      { allowed_tools: ['list_forms', 'compile_dsl'] },
      { max_calls_per_minute: 6 },
      { max_calls_per_day: 49 },
      { max_calls_per_minute: null },
    ];
    let body = first;
    for (const change of changes) {
      body = { ...body, ...change };
      const count = (await tables.scanKeys()).length;
      expect((await ws.putPolicy(w.id, { ...as(w.owner), body })).status).toBe(200);
      expect((await tables.scanKeys()).length, JSON.stringify(change)).toBe(count + 1);
    }
  });
});

describe('the rules written onto credentials', () => {
  it('a key created where a policy restricts holds its rules from the start', async () => {
    const w = await workspace();
    await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({ allowed_tools: ['list_forms'], max_calls_per_day: 7 }),
    });
    const key = await createKey(rt.service, {
      userId: w.creator,
      name: 'k',
      workspaceIds: [w.id, w.elsewhere],
      scopes: ['svc.forms.read'],
    });
    expect(key.metadata.workspace_rules).toEqual({ [w.id]: { tools: ['list_forms'], per_day: 7 } });
    expect(await rt.verify(key.apiKey, tool('read_draft'))).toMatchObject({ outcome: 'valid' });
  });

  it('the fan-out writes them in both directions, only where they changed; redelivered, it writes nothing', async () => {
    const w = await workspace();
    const create = (workspaceIds: string[], tools?: string[]) =>
      createKey(rt.service, {
        userId: w.creator,
        name: 'k',
        workspaceIds,
        scopes: ['svc.forms.read'],
        tools,
      });
    const both = await create([w.id, w.elsewhere]);
    const own = await create([w.id], ['read_draft', 'compile_dsl']);
    const outside = await create([w.elsewhere]);
    await tables.setKeyField(both.metadata.id, 'workspace_rules', { [w.elsewhere]: { per_day: 3 } });
    await stream.next();

    await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({ allowed_tools: ['list_forms', 'read_draft'], max_calls_per_minute: 5 }),
    });
    const records = await deliverStream();
    const rules = { tools: ['list_forms', 'read_draft'], per_minute: 5 };
    expect((await keyItem(both.metadata.id))?.workspace_rules).toEqual({
      [w.elsewhere]: { per_day: 3 },
      [w.id]: rules,
    });
    expect((await keyItem(own.metadata.id))?.workspace_rules).toEqual({ [w.id]: rules });
    expect((await keyItem(outside.metadata.id))?.workspace_rules).toBeUndefined();
    expect(await rt.verify(own.apiKey, tool('compile_dsl'))).toMatchObject({
      outcome: 'tool_not_allowed',
      by: 'policy',
      workspace_ids: [w.id],
    });
    expect(await rt.verify(own.apiKey, tool('read_draft'))).toMatchObject({ outcome: 'valid' });

    // Redelivered: every credential holds its rules already.
    const writes = countCommands(tables.doc);
    const scan = await tables.scanKeys();
    await ws.applyPolicy({ Records: records }, lambdaContext('again'));
    writes.remove();
    expect(writes.of('UpdateItem') + writes.of('TransactWriteItems')).toBe(0);
    expect(await tables.scanKeys()).toEqual(scan);

    // Allowed again: the rules go, and the tool is callable again within the key's own list.
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy() });
    await deliverStream();
    expect((await keyItem(both.metadata.id))?.workspace_rules).toEqual({ [w.elsewhere]: { per_day: 3 } });
    expect((await keyItem(own.metadata.id))?.workspace_rules).toEqual({});
    expect(await rt.verify(own.apiKey, tool('compile_dsl'))).toMatchObject({ outcome: 'valid' });
    expect(await rt.verify(own.apiKey, tool('list_forms'))).toMatchObject({
      outcome: 'tool_not_allowed',
      by: 'credential',
    });
  });

  it('a change that leaves a credential’s rules as they are writes only where they differ', async () => {
    const w = await workspace();
    const create = () =>
      createKey(rt.service, {
        userId: w.creator,
        name: 'k',
        workspaceIds: [w.id],
        scopes: ['svc.forms.read'],
      });
    const held = await create();
    await stream.next();
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ allowed_tools: ['list_forms'] }) });
    await deliverStream();
    const fresh = await create();
    await stream.next();
    // A cap added: both change, each once.
    await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({ allowed_tools: ['list_forms'], max_calls_per_day: 2 }),
    });
    const writes = countCommands(tables.doc);
    await deliverStream();
    writes.remove();
    expect(writes.of('UpdateItem')).toBe(2);
    for (const key of [held, fresh])
      expect((await keyItem(key.metadata.id))?.workspace_rules).toEqual({
        [w.id]: { tools: ['list_forms'], per_day: 2 },
      });
    // The scopes changed but not what they leave these keys: nothing to write.
    await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({
        allowed_scopes: ['svc.forms.read'],
        allowed_tools: ['list_forms'],
        max_calls_per_day: 2,
      }),
    });
    const none = countCommands(tables.doc);
    await deliverStream();
    none.remove();
    expect(none.of('UpdateItem') + none.of('TransactWriteItems')).toBe(0);
  });
});
