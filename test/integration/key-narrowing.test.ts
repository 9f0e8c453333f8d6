import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import type { Limits } from '#lib/keys/limits';
import type { KeyRecord } from '#lib/keys/model';
import { DAY_MS } from '#lib/limits';
import type { Runtime } from '#lib/runtime';
import { freshCaller, loadApi, type Reply } from '#test/support/api';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { updateRoute } from '#test/support/route-call';

/**
 * PATCH /v1/mcp/api-keys/{key_id} (contract §19) on DynamoDB Local, through the route: a key's
 * tools narrowed and its limits lowered, obeyed by the next verification, `key.updated` in its
 * history; every refusal naming what it refuses and writing nothing; a narrowing that loses to a
 * concurrent change read again, and the transaction's conditions themselves.
 */
let tables: TestTables;
const clock = manualClock(new Date('2026-12-06T10:00:00.000Z'));
let rt: Runtime;
let patch: ReturnType<typeof updateRoute>;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
  patch = updateRoute(rt);
});
afterAll(() => tables.drop());

async function keyOf(options: { tools?: string[]; limits?: Limits; write?: boolean } = {}) {
  const member = await newMember(tables);
  const issued = await createKey(rt.service, {
    userId: member.userId,
    name: 'k',
    workspaceIds: [member.workspaceId],
    scopes: [options.write ? 'svc.forms.write' : 'svc.forms.read'],
    tools: options.tools,
    limits: options.limits,
  });
  return { ...member, ...issued, id: issued.metadata.id };
}

function problem(reply: Reply, status: number, code: string) {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.body).toMatchObject({ status, code });
}

const tool = (name: string) => ({ method: 'tools/call', name });

describe('narrowing through the route', () => {
  it('narrows the tools; the next call obeys it; key.updated says before and after', async () => {
    const k = await keyOf({ write: true });
    expect((await rt.verify(k.apiKey, tool('create_form'))).outcome).toBe('valid');
    const reply = await patch(k.id, { caller: k.caller, body: { tools: ['read_draft', 'list_forms'] } });
    expect(reply.status, reply.raw).toBe(200);
    expect(reply.body.metadata).toMatchObject({ id: k.id, tools: ['list_forms', 'read_draft'] });
    expect(await rt.verify(k.apiKey, tool('create_form'))).toEqual({
      outcome: 'tool_not_allowed',
      key_id: k.id,
      kind: 'api_key',
      tool: 'create_form',
      by: 'credential',
      tools: ['list_forms', 'read_draft'],
      workspace_ids: [],
    });
    const history = await loadApi(rt).events(k.id, { caller: k.caller });
    expect(history.body.data).toContainEqual(
      expect.objectContaining({
        type: 'key.updated',
        actor: { type: 'user', id: k.userId },
        details: { tools_before: null, tools_after: ['list_forms', 'read_draft'] },
      }),
    );
  });

  it('adds and lowers limits, which the next calls obey', async () => {
    const k = await keyOf({ limits: { per_day: 100 } });
    const reply = await patch(k.id, { caller: k.caller, body: { limits: { per_minute: 2, per_day: 50 } } });
    expect(reply.body.metadata).toMatchObject({
      limits: { per_minute: 2, per_day: 50 },
      effective_limits: [
        { window: 'minute', limit: 2, by: 'credential', calls: 0 },
        { window: 'day', limit: 50, by: 'credential', calls: 0 },
      ],
    });
    const verify = tables.runtime({ now: clock.now }).verify;
    expect((await verify(k.apiKey)).outcome).toBe('valid');
    expect((await verify(k.apiKey)).outcome).toBe('valid');
    expect(await verify(k.apiKey)).toMatchObject({ outcome: 'rate_limited', window: 'minute', limit: 2 });
  });

  it('anything wider is 400 naming it, and nothing is written', async () => {
    const k = await keyOf({ tools: ['list_forms'], limits: { per_minute: 5 } });
    const before = await tables.scanKeys();
    const wider = await patch(k.id, { caller: k.caller, body: { tools: ['list_forms', 'read_draft'] } });
    problem(wider, 400, 'validation_failed');
    expect(wider.body.errors).toEqual([
      { path: 'tools.1', message: 'read_draft is not among its tools (list_forms): a PATCH only narrows' },
    ]);
    const raised = await patch(k.id, { caller: k.caller, body: { limits: { per_minute: 6 } } });
    problem(raised, 400, 'validation_failed');
    expect(raised.body.errors).toEqual([
      { path: 'limits.per_minute', message: 'must be at most 5, its limit now: a PATCH only lowers one' },
    ]);
    const unknown = await patch(k.id, { caller: k.caller, body: { tools: ['list_forms', 'nope'] } });
    expect(unknown.body.errors).toEqual([
      { path: 'tools.1', message: 'nope is not a tool of this MCP server' },
    ]);
    problem(
      await patch(k.id, { caller: k.caller, body: { limits: { per_minute: 0 } } }),
      400,
      'validation_failed',
    );
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('the same values again answer 200 and write nothing', async () => {
    const k = await keyOf({ tools: ['list_forms', 'read_draft'], limits: { per_day: 9 } });
    const before = await tables.scanKeys();
    const reply = await patch(k.id, {
      caller: k.caller,
      body: { tools: ['read_draft', 'list_forms'], limits: { per_day: 9 } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.metadata).toMatchObject({
      tools: ['list_forms', 'read_draft'],
      limits: { per_day: 9 },
    });
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('a revoked key is 409 key_revoked, an expired one 409 key_expired, another’s 404', async () => {
    const revoked = await keyOf();
    await revokeKey(rt.service, revoked.userId, revoked.id);
    problem(await patch(revoked.id, { caller: revoked.caller, body: { tools: [] } }), 409, 'key_revoked');
    const other = await newMember(tables);
    problem(await patch(revoked.id, { caller: other.caller, body: { tools: [] } }), 404, 'not_found');
    const expiring = await createKey(rt.service, {
      userId: other.userId,
      name: 'short',
      workspaceIds: [other.workspaceId],
      scopes: ['svc.forms.read'],
      expiresInDays: 1,
    });
    clock.advance(DAY_MS + 1);
    const expired = await patch(expiring.metadata.id, {
      caller: freshCaller(other.userId),
      body: { tools: [] },
    });
    problem(expired, 409, 'key_expired');
  });
});

/** Runs `change` on the key's item before each of the next `times` transactions: a concurrent PATCH winning. */
function interfering(times: number, change: () => Promise<unknown>) {
  const name = `interfere-${Math.random()}`;
  let left = times;
  tables.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && left > 0) {
        left--;
        await change();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => tables.doc.middlewareStack.remove(name);
}

describe('a concurrent change', () => {
  it('is read again: the PATCH lands on the credential as it is now', async () => {
    const k = await keyOf({ write: true });
    const stop = interfering(1, () => tables.setKeyField(k.id, 'tools', ['create_form', 'list_forms']));
    try {
      const reply = await patch(k.id, { caller: k.caller, body: { tools: ['list_forms'] } });
      expect(reply.status, reply.raw).toBe(200);
    } finally {
      stop();
    }
    const updates = (await tables.scanKeys()).filter((i) => i.key_id === k.id && i.type === 'key.updated');
    expect(updates.map((e) => e.details)).toEqual([
      { tools_before: ['create_form', 'list_forms'], tools_after: ['list_forms'] },
    ]);
  });

  it('winning every attempt is 409 conflict after three; nothing of the PATCH is written', async () => {
    const k = await keyOf({ limits: { per_day: 10 } });
    let n = 9;
    const stop = interfering(3, () => tables.setKeyField(k.id, 'limits', { per_day: n-- }));
    try {
      problem(await patch(k.id, { caller: k.caller, body: { limits: { per_minute: 1 } } }), 409, 'conflict');
    } finally {
      stop();
    }
    const item = (await tables.scanKeys()).find((i) => i.id === k.id);
    expect(item?.limits).toEqual({ per_day: 7 });
  });
});

describe('the narrowing’s transaction', () => {
  const narrow = (record: KeyRecord, changes: { tools?: string[]; limits?: Limits }) =>
    rt.service.keys.narrow(record, changes, clock.now(), []);

  it('lands only on an active credential whose tools and limits are as read', async () => {
    const k = await keyOf({ tools: ['list_forms', 'read_draft'], limits: { per_minute: 4 } });
    const record = (await rt.service.keys.get(k.id)) as KeyRecord;
    expect(await narrow({ ...record, tools: ['list_forms'] }, { tools: [] })).toEqual({ kind: 'changed' });
    expect(await narrow({ ...record, tools: undefined }, { tools: [] })).toEqual({ kind: 'changed' });
    expect(await narrow({ ...record, limits: { per_minute: 5 } }, { tools: [] })).toEqual({
      kind: 'changed',
    });
    expect(await narrow({ ...record, limits: undefined }, { tools: [] })).toEqual({ kind: 'changed' });
    const done = await narrow(record, { tools: ['read_draft'], limits: { per_minute: 3 } });
    expect(done).toEqual({
      kind: 'narrowed',
      record: { ...record, tools: ['read_draft'], limits: { per_minute: 3 } },
    });
    const stored = (await rt.service.keys.get(k.id)) as KeyRecord;
    expect([stored.tools, stored.limits]).toEqual([['read_draft'], { per_minute: 3 }]);
    await revokeKey(rt.service, k.userId, k.id);
    expect(await narrow(stored, { tools: [] })).toEqual({ kind: 'changed' });
  });

  it('a cancellation for another reason than its conditions reaches the caller', async () => {
    const k = await keyOf();
    const record = (await rt.service.keys.get(k.id)) as KeyRecord;
    const name = 'cancel-narrow';
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand')
          throw new TransactionCanceledException({
            message: 'Transaction cancelled (injected)',
            $metadata: {},
            CancellationReasons: [{ Code: 'ValidationError' }],
          });
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await expect(narrow(record, { tools: [] })).rejects.toThrow(
        'narrow transaction cancelled unexpectedly (reasons: ValidationError)',
      );
    } finally {
      tables.doc.middlewareStack.remove(name);
    }
  });

  it('a credential without tools or limits of its own is narrowed as read; a deleted one is not made again', async () => {
    const k = await keyOf();
    const record = (await rt.service.keys.get(k.id)) as KeyRecord;
    expect(await narrow(record, { limits: { per_day: 1 } })).toMatchObject({ kind: 'narrowed' });
    expect(await narrow({ ...record, id: '00000000-0000-4000-8000-000000000000' }, { tools: [] })).toEqual({
      kind: 'changed',
    });
    expect((await tables.scanKeys()).some((i) => i.id === '00000000-0000-4000-8000-000000000000')).toBe(
      false,
    );
  });
});
