import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Scope } from '#lib/access/scopes';
import { assembleKey, secretField } from '#lib/keys/format';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { countCapacity } from '#test/support/capacity';
import { countCommands } from '#test/support/count';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';

/**
 * A warm verification (a key whose digest matched before, in the same process) reads the key's
 * state and the memberships in one request. Nothing it keeps may delay a revocation, a removed
 * membership or a changed role, nor survive a change to what it kept.
 */
let tables: TestTables;
let rt: Runtime;
let calls: ReturnType<typeof countCommands>;
const clock = manualClock();

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
  calls = countCommands(tables.doc);
});
afterAll(() => tables.drop());
// A runtime per test: the usage one test counted is never written during another's count of calls.
beforeEach(() => {
  rt = tables.runtime({ now: clock.now });
  calls.reset();
});

/** A key verified once (so the next verification is warm), with the calls counted from here. */
async function warmKey(scopes: Scope[] = ['svc.forms.read', 'svc.forms.write'], runtime = rt) {
  const issued = await issueKey(tables, runtime.service, { role: 'editor', scopes });
  expect((await runtime.verify(issued.apiKey)).outcome).toBe('valid');
  calls.reset();
  return issued;
}

const setKeyField = (id: string, field: string, value: unknown) => tables.setKeyField(id, field, value);

describe('seen on the very next warm verification, in one DynamoDB call', () => {
  it('a revoked key', async () => {
    const { apiKey, id, userId } = await warmKey();
    await revokeKey(rt.service, userId, id);
    calls.reset();
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'revoked', key_id: id });
    // Beside the answer, the refusal's usage is written at once (contract §18).
    await vi.waitFor(() => expect(calls.snapshot()).toEqual({ BatchGetItem: 1, PutItem: 1, UpdateItem: 1 }));
  });

  it('a removed membership', async () => {
    const { apiKey, id, userId, workspaceId } = await warmKey();
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.membershipsTable, Key: { pk: userId, sk: workspaceId } }),
    );
    calls.reset();
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'no_access', key_id: id });
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
  });

  it('a downgraded role', async () => {
    const { apiKey, userId, workspaceId } = await warmKey();
    await tables.setRole(userId, workspaceId, 'viewer');
    calls.reset();
    const result = await rt.verify(apiKey);
    expect(result).toMatchObject({
      outcome: 'valid',
      scopes: ['svc.forms.read'],
      workspaces: [{ id: workspaceId, role: 'viewer', scopes: ['svc.forms.read'] }],
    });
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
  });

  it('an upgraded role, and a membership added back', async () => {
    const { apiKey, userId, workspaceId } = await warmKey();
    await tables.setRole(userId, workspaceId, 'viewer');
    expect(await rt.verify(apiKey)).toMatchObject({ scopes: ['svc.forms.read'] });
    await tables.setRole(userId, workspaceId, 'owner');
    expect(await rt.verify(apiKey)).toMatchObject({ scopes: ['svc.forms.read', 'svc.forms.write'] });
  });
});

describe('DynamoDB calls per warm verification', () => {
  it('exactly one for each of 20 warm verifications within a minute', async () => {
    const { apiKey } = await warmKey();
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      expect((await rt.verify(apiKey)).outcome).toBe('valid');
    }
    expect(calls.snapshot()).toEqual({ BatchGetItem: 20 });
  });

  it('the last-use and usage writes go alongside the read, once a minute, and once for concurrent calls', async () => {
    const { apiKey } = await warmKey();
    clock.advance(60_000);
    await Promise.all(Array.from({ length: 5 }, () => rt.verify(apiKey)));
    expect(calls.snapshot()).toEqual({ BatchGetItem: 5, UpdateItem: 2, PutItem: 1 });
  });
});

describe('what the verifier keeps', () => {
  it('a deleted item (TTL) is not_found and forgotten', async () => {
    const { apiKey, id } = await warmKey();
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.keysTable, Key: { pk: keyPk(id), sk: KEY_SK } }),
    );
    calls.reset();
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'not_found' });
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
    calls.reset();
    // Forgotten: the next call reads by id, like any unknown key.
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'not_found' });
    expect(calls.snapshot()).toEqual({ GetItem: 1 });
  });

  it.each([
    ['digest', 'AAAA', 'not_found'],
    ['pepper_version', 2, 'not_found'],
    ['expires_at', '2000-01-01T00:00:00.000Z', 'expired'],
  ] as const)(
    'a changed %s in the store drops what was kept and verifies from scratch',
    async (field, value, outcome) => {
      const { apiKey, id } = await warmKey();
      await setKeyField(id, field, value);
      calls.reset();
      expect((await rt.verify(apiKey)).outcome).toBe(outcome);
      // The warm read saw the change, then the key was read by id and judged on what is stored.
      expect(calls.of('BatchGetItem')).toBe(1);
      expect(calls.of('GetItem')).toBe(1);
    },
  );

  it('a later expiry or another workspace list is picked up, not served from memory', async () => {
    const { apiKey, id, userId } = await warmKey();
    const extra = randomUUID();
    await tables.setRole(userId, extra, 'viewer');
    const { workspace_ids } = (await rt.service.keys.get(id)) as { workspace_ids: string[] };
    await setKeyField(id, 'workspace_ids', [...workspace_ids, extra]);
    calls.reset();
    const result = await rt.verify(apiKey);
    expect(result.outcome === 'valid' && result.workspaces.map((w) => w.id)).toEqual([
      ...workspace_ids,
      extra,
    ]);
    expect(calls.of('GetItem')).toBe(1);
    calls.reset();
    await rt.verify(apiKey);
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
  });

  it('a wrong secret for a kept id is answered like an unknown id, and the key stays warm', async () => {
    const { apiKey, id } = await warmKey();
    const other = await issueKey(tables, rt.service);
    calls.reset();
    expect(await rt.verify(assembleKey(id, secretField(other.apiKey)))).toEqual({ outcome: 'not_found' });
    expect(calls.snapshot()).toEqual({ GetItem: 1 });
    calls.reset();
    expect((await rt.verify(apiKey)).outcome).toBe('valid');
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
  });

  it('keeps at most the configured number of keys, forgetting the least recently used', async () => {
    const small = tables.runtime({ now: clock.now, verifierCacheSize: 2 });
    const [a, b, c] = [
      await warmKey(undefined, small),
      await warmKey(undefined, small),
      await warmKey(undefined, small),
    ];
    calls.reset();
    expect((await small.verify(c.apiKey)).outcome).toBe('valid');
    expect((await small.verify(b.apiKey)).outcome).toBe('valid');
    expect(calls.snapshot()).toEqual({ BatchGetItem: 2 });
    calls.reset();
    expect((await small.verify(a.apiKey)).outcome).toBe('valid');
    expect(calls.of('GetItem')).toBe(1);
  });
});

describe('unprocessed keys', () => {
  /** Makes the next BatchGetItem leave `table`'s keys unprocessed, as a throttled one does. */
  function leaveUnprocessed(table: () => string, times = 1) {
    let left = times;
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        if (context.commandName !== 'BatchGetItemCommand' || left === 0) return out;
        left--;
        const input = args.input as { RequestItems: Record<string, unknown> };
        const output = out.output as {
          Responses?: Record<string, unknown[]>;
          UnprocessedKeys?: Record<string, unknown>;
        };
        const name = table();
        output.Responses = { ...output.Responses, [name]: [] };
        output.UnprocessedKeys = { ...output.UnprocessedKeys, [name]: input.RequestItems[name] };
        return out;
      },
      { step: 'initialize', name: 'unprocessed' },
    );
    return () => tables.doc.middlewareStack.remove('unprocessed');
  }

  it.each([
    ['the key', () => tables.keysTable],
    ['the memberships', () => tables.membershipsTable],
  ])('%s left unprocessed are read again, never taken as absent', async (_label, table) => {
    const { apiKey } = await warmKey();
    const restore = leaveUnprocessed(table);
    try {
      expect((await rt.verify(apiKey)).outcome).toBe('valid');
      expect(calls.snapshot()).toEqual({ BatchGetItem: 2 });
    } finally {
      restore();
    }
  });

  it('keys left unprocessed every time fail the verification (the authorizer fails closed)', async () => {
    const { apiKey } = await warmKey();
    const restore = leaveUnprocessed(() => tables.membershipsTable, 100);
    try {
      await expect(rt.verify(apiKey)).rejects.toThrow('unprocessed');
    } finally {
      restore();
    }
  });
});

describe('memberships by Query where it costs less', () => {
  async function creatorWith(memberships: number, keyWorkspaces: number) {
    const userId = randomUUID();
    const ids = Array.from({ length: memberships }, () => randomUUID()).sort();
    for (let i = 0; i < ids.length; i += 25) {
      await tables.doc.send(
        new BatchWriteCommand({
          RequestItems: {
            [tables.membershipsTable]: ids
              .slice(i, i + 25)
              .map((sk) => ({ PutRequest: { Item: { pk: userId, sk, role: 'editor' } } })),
          },
        }),
      );
    }
    const step = Math.floor(memberships / keyWorkspaces);
    const workspaceIds = Array.from({ length: keyWorkspaces }, (_, i) => ids[i * step] as string);
    const { apiKey } = await createKey(rt.service, {
      userId,
      name: 'k',
      workspaceIds,
      scopes: ['svc.forms.read'],
    });
    return { apiKey, workspaceIds, userId };
  }

  it('a key with 10 workspaces of a creator with 20 memberships: GetItem and Query together', async () => {
    const { apiKey, workspaceIds, userId } = await creatorWith(20, 10);
    await rt.verify(apiKey);
    const capacity = countCapacity(tables.doc);
    try {
      calls.reset();
      const result = await rt.verify(apiKey);
      expect(result.outcome === 'valid' && result.workspaces.length).toBe(10);
      expect(calls.snapshot()).toEqual({ GetItem: 1, Query: 1 });
      expect(capacity.reads()).toBe(2);
      // A membership removed from the middle of the range is seen at once.
      await tables.doc.send(
        new DeleteCommand({ TableName: tables.membershipsTable, Key: { pk: userId, sk: workspaceIds[4] } }),
      );
      const after = await rt.verify(apiKey);
      expect(after.outcome === 'valid' && after.workspaces.map((w) => w.id)).not.toContain(workspaceIds[4]);
    } finally {
      capacity.remove();
    }
  });

  it('a creator with many memberships: the Query stops at its bound and the key is read by key after', async () => {
    const { apiKey } = await creatorWith(300, 3);
    const capacity = countCapacity(tables.doc);
    try {
      calls.reset();
      const cold = await rt.verify(apiKey);
      expect(cold.outcome === 'valid' && cold.workspaces.length).toBe(3);
      expect(calls.of('Query')).toBe(1);
      calls.reset();
      capacity.reset();
      const warm = await rt.verify(apiKey);
      expect(warm.outcome === 'valid' && warm.workspaces.length).toBe(3);
      expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
      // Never more than the key and one unit per workspace.
      expect(capacity.reads()).toBe(4);
    } finally {
      capacity.remove();
    }
  });
});
