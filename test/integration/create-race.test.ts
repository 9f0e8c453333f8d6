import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KeyStore } from '#lib/keys/port';
import { freshCaller, loadApi } from '#test/support/api';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { captureOutput } from '#test/support/logs';

let tables: TestTables;
const output = captureOutput();
beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(async () => {
  output.restore();
  await tables.drop();
});

it('answers 409 conflict when concurrent creates keep taking the slot it freed, and writes no key', async () => {
  const { userId, workspaceId } = await newMember(tables, 'editor');
  const rt = tables.runtime({ settings: { maxActiveKeys: 1 } });
  // Every slot looks full of a lapsed lineage, and every release is taken again at once.
  const lapsed = { 'other-lineage': '2000-01-01T00:00:00.000Z' };
  const keys = Object.create(rt.service.keys) as KeyStore;
  keys.insert = async () => ({ kind: 'no_free_slot', slots: lapsed });
  keys.releaseSlots = async () => undefined;
  const racing = loadApi({ ...rt, service: { ...rt.service, keys } });
  const reply = await racing.create({
    caller: freshCaller(userId),
    body: { name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
  });
  expect(reply.status, reply.raw).toBe(409);
  expect(reply.body).toMatchObject({ status: 409, code: 'conflict' });
  expect(await tables.scanKeys()).toEqual([]);
  // The refusal is logged as one, with its code.
  const refused = output
    .text()
    .split('\n')
    .filter((line) => line.includes('"request refused"'))
    .map((line) => JSON.parse(line));
  expect(refused).toEqual([
    expect.objectContaining({ operation: 'createKey', status: 409, code: 'conflict' }),
  ]);
});
