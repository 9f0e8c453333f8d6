import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillDeployment } from '#infra/backfill-workspace-index';
import { createKey, type KeyServiceDeps, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { backfillEntry, backfillWorkspaceIndex } from '#lib/store/workspace-backfill';
import { type CallOptions, freshCaller, type Reply } from '#test/support/api';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { loadWorkspaceApi } from '#test/support/workspace-api';

/**
 * Upgrading a deployment made before workspace governance (contract §12): its keys have no
 * workspace index entries, so administrators neither see nor cut them off and a policy misses
 * them. The backfill writes the entries create and rotate would have written, never overwrites
 * one, and the operator's script then applies the policy of every workspace the keys reach.
 */
let tables: TestTables;
let rt: Runtime;
let ws: ReturnType<typeof loadWorkspaceApi>;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  ws = loadWorkspaceApi(rt);
});
afterAll(() => tables.drop());

const user = () => `user-${randomUUID()}`;
const as = (sub: string): CallOptions => ({ caller: freshCaller(sub) });
const options = () => ({ tableName: tables.keysTable, retentionDays: 90 });

const entriesOf = (workspaceId: string) => tables.workspaceEntries(workspaceId);

/** The table as a version without the index left it: the workspaces' entries deleted. */
async function dropEntries(...workspaceIds: string[]) {
  for (const workspaceId of workspaceIds) {
    for (const entry of await entriesOf(workspaceId)) {
      await tables.doc.send(
        new DeleteCommand({ TableName: tables.keysTable, Key: { pk: entry.pk, sk: entry.sk } }),
      );
    }
  }
}

/** A workspace with an owner and a creator who is also an editor of a second workspace. */
async function workspaces(service: KeyServiceDeps = rt.service) {
  const [a, b] = [randomUUID(), randomUUID()];
  const [owner, creator] = [user(), user()];
  await Promise.all([
    tables.setRole(owner, a, 'owner'),
    tables.setRole(creator, a, 'editor'),
    tables.setRole(creator, b, 'editor'),
  ]);
  const create = (workspaceIds: string[], scopes = ['svc.forms.read'] as const) =>
    createKey(service, { userId: creator, name: 'old', workspaceIds, scopes: [...scopes] });
  return { a, b, owner, creator, create };
}

interface Listed {
  id: string;
  status: string;
  workspace_access: string;
}
const listedOf = (reply: Reply) => reply.body.data as Listed[];
const idsOf = (reply: Reply) =>
  listedOf(reply)
    .map((k) => k.id)
    .sort();
const bySk = (items: Record<string, unknown>[]) =>
  [...items].sort((x, y) => String(x.sk).localeCompare(String(y.sk)));

describe('the workspace index backfill', () => {
  it('writes the entries create and rotate wrote, so administrators see the keys again; a second run writes nothing', async () => {
    // Stored with a 30-day retention: the entries get their TTL from the key, not from the option.
    const stored = tables.runtime({ settings: { retentionDays: 30 } }).service;
    const w = await workspaces(stored);
    const both = await w.create([w.a, w.b]);
    const first = await w.create([w.a]);
    const rotated = await rotateKey(stored, w.creator, first.metadata.id);
    const revoked = await w.create([w.b]);
    await revokeKey(stored, w.creator, revoked.metadata.id);
    const written = { a: bySk(await entriesOf(w.a)), b: bySk(await entriesOf(w.b)) };
    expect(written.a).toHaveLength(3);
    expect(written.b).toHaveLength(2);

    await dropEntries(w.a, w.b);
    // Before: the keys are invisible to the workspace's administrator, and out of reach.
    expect(idsOf(await ws.listKeys(w.a, as(w.owner)))).toEqual([]);
    expect((await ws.cutOff(w.a, both.metadata.id, as(w.owner))).status).toBe(404);

    const summary = await backfillWorkspaceIndex(tables.doc, { ...options(), segments: 3, concurrency: 2 });
    expect(summary).toEqual({ keys: 4, written: 5, present: 0, changed: 0, workspaces: new Set([w.a, w.b]) });
    expect(bySk(await entriesOf(w.a))).toEqual(written.a);
    expect(bySk(await entriesOf(w.b))).toEqual(written.b);
    // The digest is never read, so it cannot reach an entry.
    expect(JSON.stringify(await entriesOf(w.a))).not.toMatch(/digest|svc_mcp_v1_/);

    const listed = await ws.listKeys(w.a, as(w.owner));
    expect(idsOf(listed)).toEqual([both.metadata.id, first.metadata.id, rotated.metadata.id].sort());
    expect(listedOf(listed).find((k) => k.id === first.metadata.id)).toMatchObject({
      status: 'revoked',
      workspace_access: 'active',
    });

    // A second run writes nothing, and still names every workspace: their policies are applied again.
    const again = await backfillWorkspaceIndex(tables.doc, options());
    expect(again).toEqual({ keys: 4, written: 0, present: 5, changed: 0, workspaces: new Set([w.a, w.b]) });
  });

  it('never overwrites an entry, and writes none for a workspace the key has lost since it was read', async () => {
    const w = await workspaces();
    const key = await w.create([w.a, w.b]);
    const stale = (await rt.service.keys.get(key.metadata.id)) as NonNullable<
      Awaited<ReturnType<typeof rt.service.keys.get>>
    >;
    expect((await ws.cutOff(w.a, key.metadata.id, as(w.owner))).status).toBe(200);
    const removed = await entriesOf(w.a);
    expect(removed).toMatchObject([{ key_id: key.metadata.id, workspace_access: 'removed' }]);

    // The cut-off's entry stays as the cut-off wrote it.
    expect(await backfillEntry(tables.doc, options(), stale, w.a)).toBe('present');
    expect(await entriesOf(w.a)).toEqual(removed);
    // Without it (as before the index), the key read before the cut-off gets no entry back.
    await dropEntries(w.a);
    expect(await backfillEntry(tables.doc, options(), stale, w.a)).toBe('changed');
    expect(await entriesOf(w.a)).toEqual([]);
    // Its other workspace is still due.
    await dropEntries(w.b);
    expect(await backfillEntry(tables.doc, options(), stale, w.b)).toBe('written');
    expect(await entriesOf(w.b)).toMatchObject([{ key_id: key.metadata.id, workspace_access: 'active' }]);
  });

  it('stops every writer at the first error, and the script says so and applies no policy', async () => {
    const w = await workspaces();
    for (let i = 0; i < 6; i++) await w.create([w.a]);
    await dropEntries(w.a);
    let transactions = 0;
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && ++transactions === 2) {
          throw new Error('connection reset');
        }
        return next(args);
      },
      { step: 'initialize', name: 'fail-second-write' },
    );
    const lines: string[] = [];
    const deployment = { table: tables.keysTable, retentionDays: 90 };
    try {
      const options = { ...deployment, segments: 1, concurrency: 2 };
      expect(await backfillDeployment(tables.doc, options, (l) => lines.push(l))).toBe(1);
    } finally {
      tables.doc.middlewareStack.remove('fail-second-write');
    }
    // One segment's two workers: the write in flight when the other failed, and no more.
    expect(transactions).toBe(2);
    expect(lines).toEqual(['backfill: FAILED (Error: connection reset); it is safe to run again']);
    expect(await backfillDeployment(tables.doc, deployment, () => {})).toBe(0);
    expect(await entriesOf(w.a)).toHaveLength(6);
  });
});

/** The IAM actions of the calls a client sends: a transaction's, those of its items. */
function recordActions() {
  const actions = new Set<string>();
  const ITEM_ACTIONS: Record<string, string> = {
    ConditionCheck: 'ConditionCheckItem',
    Put: 'PutItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
  };
  tables.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      const items = (args.input as { TransactItems?: Record<string, unknown>[] }).TransactItems;
      for (const name of items
        ? items.flatMap((item) => Object.keys(item).map((k) => ITEM_ACTIONS[k]))
        : [command])
        actions.add(`dynamodb:${name}`);
      return next(args);
    },
    { step: 'initialize', name: 'record-actions' },
  );
  return { actions, remove: () => tables.doc.middlewareStack.remove('record-actions') };
}

describe('npm run backfill:workspace-index', () => {
  it('uses only the actions docs/deploying.md asks its credentials for, and needs each of them', async () => {
    const w = await workspaces();
    await w.create([w.a]);
    await w.create([w.a, w.b]);
    await dropEntries(w.a, w.b);
    await ws.putPolicy(w.a, {
      ...as(w.owner),
      body: { mcp_access: 'disabled', allowed_scopes: [], max_expiry_days: null },
    });
    const recorder = recordActions();
    try {
      // What the script runs, on the test's client.
      const lines: string[] = [];
      const deployment = { table: tables.keysTable, retentionDays: 90 };
      expect(await backfillDeployment(tables.doc, deployment, (l) => lines.push(l))).toBe(0);
      expect(lines).toContain(`policy: workspace ${w.a}: 2 keys cut off by its policy`);
    } finally {
      recorder.remove();
    }
    const docs = readFileSync('docs/deploying.md', 'utf8');
    const section = docs.slice(docs.indexOf('## Upgrading from a version without workspace governance'));
    const listed = section.slice(0, section.indexOf('\n## ', 1)).match(/dynamodb:\w+/g) ?? [];
    expect([...recorder.actions].sort()).toEqual([...new Set(listed)].sort());
  });

  const script = join(process.cwd(), 'infra/backfill-workspace-index.ts');
  const tsx = join(process.cwd(), 'node_modules/tsx/dist/cli.mjs');
  const run = async (args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [tsx, script, ...args], {
        env: { ...process.env, AWS_REGION: '' },
      });
      return { code: 0, stdout };
    } catch (err) {
      const e = err as { code: number; stdout: string };
      return { code: e.code, stdout: e.stdout };
    }
  };

  it('applies a policy set before the backfill to the keys it could not reach, also after a run that stopped short', async () => {
    const w = await workspaces();
    const only = await w.create([w.a], ['svc.forms.read']);
    const shared = await w.create([w.a, w.b], ['svc.forms.read']);
    await dropEntries(w.a, w.b);
    const put = await ws.putPolicy(w.a, {
      ...as(w.owner),
      body: { mcp_access: 'disabled', allowed_scopes: [], max_expiry_days: null },
    });
    // The gap the backfill closes: the policy counts no key, and both keep working.
    expect(put.body).toMatchObject({ mcp_access: 'disabled', affected_keys: 0 });
    expect((await rt.verify(only.apiKey)).outcome).toBe('valid');
    // An earlier run that wrote the entries and stopped before the policies.
    expect((await backfillWorkspaceIndex(tables.doc, options())).written).toBe(3);

    const out = await run([
      '--table',
      tables.keysTable,
      '--region',
      'us-east-1',
      '--endpoint',
      tables.endpoint,
    ]);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain(`policy: workspace ${w.a}: 2 keys cut off by its policy`);
    expect(out.stdout).toMatch(
      /^index: \d+ keys read; 0 entries written, \d+ already present, \d+ no longer due$/m,
    );
    expect(out.stdout).toMatch(/^backfill: done \(policies of \d+ workspaces applied; 2 keys cut off\)$/m);
    expect(out.stdout).not.toMatch(/svc_mcp_v1_|digest/);

    // The key that reached only the disabled workspace is revoked; the other keeps its second.
    expect((await rt.verify(only.apiKey)).outcome).toBe('revoked');
    const after = await rt.verify(shared.apiKey);
    expect(after).toMatchObject({ outcome: 'valid', workspaces: [{ id: w.b }] });
    const listed = await ws.listKeys(w.a, as(w.owner));
    expect(listedOf(listed).map((k) => k.status)).toEqual(['removed', 'removed']);
  });

  it('refuses bad arguments with its usage and touches nothing (exit 2)', async () => {
    const before = await tables.scanKeys();
    const out = await run(['--table', 'x', '--retention-days', '0']);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain('--table must be a DynamoDB table name');
    expect(out.stdout).toContain('--region (or AWS_REGION) is required');
    expect(out.stdout).toContain('--retention-days must be a whole number from 1 to 3650');
    expect(out.stdout).toContain('usage: npm run backfill:workspace-index');
    expect((await run(['--tabel', tables.keysTable])).code).toBe(2);
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('says it failed, and that running it again is safe, when the table cannot be read (exit 1)', async () => {
    const out = await run([
      '--table',
      'no-such-table',
      '--region',
      'us-east-1',
      '--endpoint',
      tables.endpoint,
    ]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /^backfill: FAILED \(ResourceNotFoundException: .*\); it is safe to run again$/m,
    );
  });
});
