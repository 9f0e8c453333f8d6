import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '#lib/access/scopes';
import { createKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { countCommands } from '#test/support/count';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';

/**
 * A key's workspace list and scopes can change in the table (workspace governance cuts a key
 * off a workspace, an operator fixes a key). A warm verifier keeps both in memory; each change
 * below keeps the list the same length, so only comparing every entry notices it.
 */
let tables: TestTables;
let rt: Runtime;
const clock = manualClock();

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
});
afterAll(() => tables.drop());

/** A key of an editor in three workspaces, for the first two of them, verified once (so warm). */
async function warmKeyInTwoOfThree(scopes: Scope[] = ['svc.forms.read']) {
  const userId = `user-${randomUUID()}`;
  const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
  for (const workspaceId of [first, second, third]) await tables.setRole(userId, workspaceId, 'editor');
  const { apiKey, metadata } = await createKey(rt.service, {
    userId,
    name: 'k',
    workspaceIds: [first, second],
    scopes,
  });
  expect((await rt.verify(apiKey)).outcome).toBe('valid');
  return { apiKey, id: metadata.id, first, second, third };
}

const setKeyField = (id: string, field: string, value: unknown) => tables.setKeyField(id, field, value);

const workspacesOf = (result: Awaited<ReturnType<Runtime['verify']>>) =>
  result.outcome === 'valid' ? result.workspaces.map((w) => w.id) : result.outcome;

describe('a warm verification grants what the stored key says, never what it kept', () => {
  it('a workspace swapped for another in the key’s list is granted on the very next call', async () => {
    const { apiKey, id, first, third } = await warmKeyInTwoOfThree();
    await setKeyField(id, 'workspace_ids', [first, third]);
    expect(workspacesOf(await rt.verify(apiKey))).toEqual([first, third]);
  });

  it('a key cut off its first workspace, with another in its place, loses it on the very next call', async () => {
    const { apiKey, id, second, third } = await warmKeyInTwoOfThree();
    await setKeyField(id, 'workspace_ids', [third, second]);
    expect(workspacesOf(await rt.verify(apiKey))).toEqual([third, second]);
  });

  it('a scope replaced by another in the stored key is granted on the very next call', async () => {
    const { apiKey, id } = await warmKeyInTwoOfThree(['svc.forms.read', 'svc.forms.write']);
    await setKeyField(id, 'scopes', ['svc.forms.read', 'svc.forms.generate']);
    expect(await rt.verify(apiKey)).toMatchObject({
      outcome: 'valid',
      scopes: ['svc.forms.read', 'svc.forms.generate'],
    });
  });

  it('a key narrowed to read only loses write on the very next call', async () => {
    const { apiKey, id } = await warmKeyInTwoOfThree(['svc.forms.write']);
    await setKeyField(id, 'scopes', ['svc.forms.read']);
    expect(await rt.verify(apiKey)).toMatchObject({ outcome: 'valid', scopes: ['svc.forms.read'] });
  });
});

/** `count` memberships of `userId` (editor), in workspaces whose ids all sort between 0… and f…. */
async function addMemberships(userId: string, count: number) {
  const ids = Array.from({ length: count }, () => `5${randomUUID().slice(1)}`);
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
}

/** A key in three workspaces whose ids bound the range of every other membership of its creator. */
async function keyAcrossTheRange() {
  const userId = `user-${randomUUID()}`;
  const workspaceIds = [
    '00000000-0000-4000-8000-000000000000',
    '80000000-0000-4000-8000-000000000000',
    'ffffffff-ffff-4fff-bfff-ffffffffffff',
  ];
  for (const workspaceId of workspaceIds) await tables.setRole(userId, workspaceId, 'editor');
  const { apiKey } = await createKey(rt.service, {
    userId,
    name: 'k',
    workspaceIds,
    scopes: ['svc.forms.read'],
  });
  return { apiKey, userId };
}

describe('a kept key whose stored item cannot be read as a key', () => {
  // Each is a field the warm check compares; without it the key is verified from scratch (and
  // fails there), and the kept copy is dropped: once whole again, the key is read by id (GetItem).
  it.each(['workspace_ids', 'scopes'])(
    'without %s: fails the verification, and is verified from scratch once the item is whole again',
    async (field) => {
      const { apiKey, id, first, second } = await warmKeyInTwoOfThree();
      await tables.doc.send(
        new UpdateCommand({
          TableName: tables.keysTable,
          Key: { pk: keyPk(id), sk: KEY_SK },
          UpdateExpression: 'REMOVE #f',
          ExpressionAttributeNames: { '#f': field },
        }),
      );
      await expect(rt.verify(apiKey)).rejects.toThrow();
      await setKeyField(id, field, field === 'scopes' ? ['svc.forms.read'] : [first, second]);
      const calls = countCommands(tables.doc);
      try {
        expect(workspacesOf(await rt.verify(apiKey))).toEqual([first, second]);
        expect(calls.of('GetItem')).toBe(1);
      } finally {
        calls.remove();
      }
    },
  );
});

describe('a verifier learns how to read a key’s memberships, and keeps what it learned', () => {
  it('once a Query proved dearer than reading by key, every later verification reads by key', async () => {
    const { apiKey, userId } = await keyAcrossTheRange();
    await addMemberships(userId, 300);
    const calls = countCommands(tables.doc);
    try {
      await rt.verify(apiKey); // cold: the Query stops at its bound
      calls.reset();
      for (let i = 0; i < 3; i++) expect((await rt.verify(apiKey)).outcome).toBe('valid');
      expect(calls.snapshot()).toEqual({ BatchGetItem: 3 });
    } finally {
      calls.remove();
    }
  });

  it('a Query that becomes dearer on a warm call (the creator joined many workspaces) is given up', async () => {
    const { apiKey, userId } = await keyAcrossTheRange();
    const calls = countCommands(tables.doc);
    try {
      await rt.verify(apiKey); // cold: a Query of three memberships
      await addMemberships(userId, 300);
      await rt.verify(apiKey); // warm: the Query stops at its bound
      calls.reset();
      for (let i = 0; i < 3; i++) expect((await rt.verify(apiKey)).outcome).toBe('valid');
      expect(calls.snapshot()).toEqual({ BatchGetItem: 3 });
    } finally {
      calls.remove();
    }
  });
});
