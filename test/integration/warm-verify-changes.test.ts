import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '#lib/access/scopes';
import { createKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
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

const setKeyField = (id: string, field: string, value: unknown) =>
  tables.doc.send(
    new UpdateCommand({
      TableName: tables.keysTable,
      Key: { pk: keyPk(id), sk: KEY_SK },
      UpdateExpression: 'SET #f = :v',
      ExpressionAttributeNames: { '#f': field },
      ExpressionAttributeValues: { ':v': value },
    }),
  );

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
