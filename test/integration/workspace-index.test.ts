import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { countCapacity } from '#test/support/capacity';
import { countCommands } from '#test/support/count';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { recordTransactionSizes } from '#test/support/transactions';

/**
 * The workspace index (contract §12): each key's entries are written in the key's own
 * transaction, within DynamoDB's 100-action limit at the 50-workspace maximum, and the key's
 * workspace list, now mutable, is read with its state by the verifier's warm path.
 */
let tables: TestTables;
let rt: Runtime;
let transactions: ReturnType<typeof recordTransactionSizes>;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  transactions = recordTransactionSizes(tables.doc);
});
afterAll(() => tables.drop());
beforeEach(() => transactions.reset());

async function memberOf(count: number, role: 'editor' | 'admin' = 'editor') {
  const userId = `user-${randomUUID()}`;
  const workspaceIds = Array.from({ length: count }, () => randomUUID());
  await Promise.all(workspaceIds.map((ws) => tables.setRole(userId, ws, role)));
  return { userId, workspaceIds };
}

const entriesOf = (workspaceId: string) => tables.workspaceEntries(workspaceId);

/** What a cut-off does to the key item: the workspace leaves its list (the only change tested here). */
const dropWorkspace = (keyId: string, index: number) =>
  tables.doc.send(
    new UpdateCommand({
      TableName: tables.keysTable,
      Key: { pk: keyPk(keyId), sk: KEY_SK },
      UpdateExpression: `REMOVE workspace_ids[${index}]`,
    }),
  );

describe('index entries are written with the key', () => {
  it('create at 50 workspaces: one transaction of 53 actions (key, slot, event, 50 entries)', async () => {
    const { userId, workspaceIds } = await memberOf(50);
    const issued = await createKey(rt.service, {
      userId,
      name: 'fifty',
      workspaceIds,
      scopes: ['svc.forms.read'],
    });
    // A user's first key makes their slot item first, then sends the same transaction again.
    expect(new Set(transactions.sizes())).toEqual(new Set([53]));
    for (const ws of [workspaceIds[0], workspaceIds[49]] as string[]) {
      const entries = await entriesOf(ws);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        key_id: issued.metadata.id,
        user_id: userId,
        workspace_access: 'active',
        scopes: ['svc.forms.read'],
      });
      // Never the key's other workspaces, its digest or its hint.
      expect(entries[0]).not.toHaveProperty('workspace_ids');
      expect(entries[0]).not.toHaveProperty('digest');
    }
  });

  it('rotate at 50 workspaces: one transaction of 55 actions, entries for the new key', async () => {
    const { userId, workspaceIds } = await memberOf(50);
    const issued = await createKey(rt.service, {
      userId,
      name: 'r',
      workspaceIds,
      scopes: ['svc.forms.read'],
    });
    transactions.reset();
    const rotated = await rotateKey(rt.service, userId, issued.metadata.id);
    // The old key, the new one, the person's check (no IdP disabled them), two events, 50 entries.
    expect(transactions.sizes()).toEqual([55]);
    const ids = (await entriesOf(workspaceIds[7] as string)).map((e) => e.key_id);
    expect(ids.sort()).toEqual([issued.metadata.id, rotated.metadata.id].sort());
  });

  it('a create that fails writes no entry (the transaction is whole)', async () => {
    const { userId, workspaceIds } = await memberOf(2);
    const limited = tables.runtime({ settings: { maxActiveKeys: 1 } });
    await createKey(limited.service, { userId, name: 'a', workspaceIds, scopes: ['svc.forms.read'] });
    await expect(
      createKey(limited.service, { userId, name: 'b', workspaceIds, scopes: ['svc.forms.read'] }),
    ).rejects.toMatchObject({ code: 'key_limit_reached' });
    expect(await entriesOf(workspaceIds[0] as string)).toHaveLength(1);
  });
});

describe('a rotation never carries a workspace removed after it read the key', () => {
  it('rotates the key as it is after the cut-off, and carries removed_workspace_ids', async () => {
    const { userId, workspaceIds } = await memberOf(2);
    const issued = await createKey(rt.service, {
      userId,
      name: 'r',
      workspaceIds,
      scopes: ['svc.forms.read'],
    });
    const stale = await rt.service.keys.get(issued.metadata.id);
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.keysTable,
        Key: { pk: keyPk(issued.metadata.id), sk: KEY_SK },
        UpdateExpression: 'REMOVE workspace_ids[0] SET removed_workspace_ids = :r',
        ExpressionAttributeValues: { ':r': [workspaceIds[0]] },
      }),
    );
    // The store refuses the stale read; the use case reads again and rotates what is there now.
    const next = { ...(stale as NonNullable<typeof stale>), id: randomUUID() };
    const outcome = await rt.service.keys.rotate(stale as NonNullable<typeof stale>, next, new Date(), []);
    expect(outcome.kind).toBe('changed');
    const rotated = await rotateKey(rt.service, userId, issued.metadata.id);
    expect(rotated.metadata.workspace_ids).toEqual([workspaceIds[1]]);
    expect(rotated.metadata.removed_workspace_ids).toEqual([workspaceIds[0]]);
    expect((await entriesOf(workspaceIds[0] as string)).map((e) => e.key_id)).toEqual([issued.metadata.id]);
  });
});

describe('the verifier reads the workspace list with the key state', () => {
  it('a workspace removed from a warm key is gone on the very next call, in one BatchGetItem', async () => {
    const { userId, workspaceIds } = await memberOf(2);
    const issued = await createKey(rt.service, {
      userId,
      name: 'v',
      workspaceIds,
      scopes: ['svc.forms.read'],
    });
    expect((await rt.verify(issued.apiKey)).outcome).toBe('valid');
    const calls = countCommands(tables.doc);
    await dropWorkspace(issued.metadata.id, 0);
    calls.reset();
    const result = await rt.verify(issued.apiKey);
    expect(result.outcome === 'valid' && result.workspaces.map((w) => w.id)).toEqual([workspaceIds[1]]);
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
    calls.reset();
    const again = await rt.verify(issued.apiKey);
    expect(again.outcome === 'valid' && again.workspaces.map((w) => w.id)).toEqual([workspaceIds[1]]);
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
    calls.remove();
  });

  it('a warm one-workspace key still costs one round trip and 2 read units', async () => {
    const { userId, workspaceIds } = await memberOf(1);
    const issued = await createKey(rt.service, {
      userId,
      name: 'w',
      workspaceIds,
      scopes: ['svc.forms.read'],
    });
    await rt.verify(issued.apiKey);
    await rt.verify(issued.apiKey); // last use recorded: the next one only reads
    const calls = countCommands(tables.doc);
    const capacity = countCapacity(tables.doc);
    await rt.verify(issued.apiKey);
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1 });
    expect(capacity.reads()).toBe(2);
    calls.remove();
    capacity.remove();
  });
});
