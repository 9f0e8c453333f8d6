/**
 * 8: workspace governance: the admin list as a workspace grows, and the policy fan-out's time
 * against its floor (the same reads and as many written items, bare), in turn.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { generateKey, keyHint } from '#lib/keys/format';
import type { KeyRecord } from '#lib/keys/model';
import { entryItem } from '#lib/store/workspace-items';
import { listWorkspaceKeys } from '#lib/workspaces/keys';
import { applyWorkspacePolicy, FAN_OUT_CONCURRENCY, putPolicy } from '#lib/workspaces/policy';
import type { BenchContext } from './context.ts';
import { record, scaled, sequential } from './harness.ts';

/** Keys of many creators reaching `workspaceId` (and one other workspace each), in stored form. */
async function seedWorkspace(ctx: BenchContext, workspaceId: string, count: number) {
  const { rt, config } = ctx;
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const { id, apiKey } = generateKey();
    const record: KeyRecord = {
      id,
      user_id: `creator-${i % 200}`,
      lineage_id: id,
      name: `k${i}`,
      workspace_ids: [workspaceId, randomUUID()],
      scopes: ['svc.forms.read'],
      digest: createHmac('sha256', 'x').update(apiKey).digest('base64'),
      pepper_version: 1,
      key_hint: keyHint(apiKey),
      created_at: new Date(Date.now() - (count - i) * 1000).toISOString(),
      expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    };
    items.push(rt.store.toItem(record));
    for (const ws of record.workspace_ids) items.push(entryItem(record, ws, config.settings.retentionDays));
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let b = batches.shift(); b; b = batches.shift()) {
        await rt.doc.send(
          new BatchWriteCommand({
            RequestItems: { [config.keysTableName]: b.map((Item) => ({ PutRequest: { Item } })) },
          }),
        );
      }
    }),
  );
}

async function ownerOf(ctx: BenchContext, workspaceId: string): Promise<string> {
  const owner = `owner-${randomUUID()}`;
  await ctx.rt.doc.send(
    new PutCommand({
      TableName: ctx.config.membershipsTableName,
      Item: { pk: owner, sk: workspaceId, role: 'owner' },
    }),
  );
  return owner;
}

export async function governance(ctx: BenchContext, log: (line: string) => void) {
  log('8. workspace governance: admin list at 10 and 10,000 keys; policy fan-out of 1,000 keys');
  const { rt } = ctx;
  const seq = async (fn: () => Promise<unknown>, n: number) => (await sequential(fn, n)).p50;
  const listP50 = async (workspaceId: string, owner: string) => {
    const page = () => listWorkspaceKeys(rt.governance, { userId: owner, workspaceId, limit: 50 });
    await seq(page, 10);
    return seq(page, 50);
  };
  const small = randomUUID();
  const large = randomUUID();
  await seedWorkspace(ctx, small, 10);
  await seedWorkspace(ctx, large, scaled(10_000));
  const base = await listP50(small, await ownerOf(ctx, small));
  record('admin list page of 50, workspace with 10 keys (p50)', base, 'ms');
  record(
    'admin list page of 50, workspace with 10,000 keys (p50)',
    await listP50(large, await ownerOf(ctx, large)),
    'ms',
    { name: '10 keys p50 ms', value: base },
    { text: '≤ 3x (flat)', met: (m) => (m.ratio ?? Infinity) <= 3 },
  );

  // Two workspaces of 1,000 active keys: each cut off in turn with its floor, so that a slow
  // spell of the machine falls on both alike.
  const targets = [randomUUID(), randomUUID()];
  const keys = scaled(1000);
  for (const t of targets) await seedWorkspace(ctx, t, keys);
  const owners = [await ownerOf(ctx, targets[0] as string), await ownerOf(ctx, targets[1] as string)];
  let started = performance.now();
  const answer = await putPolicy(rt.governance, {
    userId: owners[0] as string,
    workspaceId: targets[0] as string,
    policy: { mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
  });
  const putMs = performance.now() - started;
  if (answer.affected_keys !== keys)
    throw new Error(`expected ${keys} affected keys, got ${answer.affected_keys}`);
  record('policy PUT answer, counting 1,000 affected keys', putMs, 'ms');
  const fanOuts: number[] = [];
  const floors: number[] = [];
  let shape: FanOutCall[] = [];
  for (const [i, workspaceId] of targets.entries()) {
    if (i > 0) {
      await putPolicy(rt.governance, {
        userId: owners[i] as string,
        workspaceId,
        policy: { mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
      });
    }
    const calls = recordCalls(ctx);
    started = performance.now();
    const cut = await applyWorkspacePolicy(rt.governance, workspaceId);
    fanOuts.push((performance.now() - started) / 1000);
    if (i === 0) shape = calls.calls;
    calls.remove();
    if (cut !== keys) throw new Error(`expected ${keys} keys cut off, got ${cut}`);
    const left = await listWorkspaceKeys(rt.governance, {
      userId: owners[i] as string,
      workspaceId,
      limit: 1,
      status: 'active',
    });
    if (left.data.length !== 0) throw new Error('the fan-out left an active key in the workspace');
    floors.push(await fanOutFloor(ctx, shape));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  record(
    'policy fan-out, 1,000 keys cut off (DynamoDB Local; mean of 2)',
    mean(fanOuts),
    's',
    { name: 'floor: its reads, and its transactions as bare puts, s', value: mean(floors) },
    { text: '≤ 2x', met: (m) => (m.ratio ?? Infinity) <= 2 },
  );
}

interface FanOutCall {
  command: string;
  input: Record<string, unknown>;
}

/** The DynamoDB commands the runtime's client sends until `remove()`, with their inputs. */
function recordCalls(ctx: BenchContext) {
  const calls: FanOutCall[] = [];
  const name = `bench-record-${randomUUID()}`;
  ctx.rt.doc.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: 'initialize', name, priority: 'high' },
  );
  return { calls, remove: () => ctx.rt.doc.middlewareStack.remove(name) };
}

/**
 * The fan-out's floor: its reads again (the same queries), and each of its transactions as one of
 * as many bare puts of fresh items, as many at a time as the fan-out runs (`FAN_OUT_CONCURRENCY`):
 * the same round trips and written items, without the conditions, the events or the policy's logic.
 */
async function fanOutFloor(ctx: BenchContext, shape: FanOutCall[]): Promise<number> {
  const { rt, config } = ctx;
  const reads = shape.filter((c) => c.command !== 'TransactWriteItemsCommand');
  const writes = shape
    .filter((c) => c.command === 'TransactWriteItemsCommand')
    .map((c) => (c.input.TransactItems as unknown[]).length);
  const started = performance.now();
  for (const read of reads) {
    const input = read.input as never;
    if (read.command === 'QueryCommand') await rt.doc.send(new QueryCommand(input));
    else if (read.command === 'GetItemCommand') await rt.doc.send(new GetCommand(input));
    // The service sends its batch reads as DynamoDB's own command, keys already marshalled
    // (lib/store/batch.ts): they are repeated as they were sent.
    else if (read.command === 'BatchGetItemCommand') await rt.doc.send(new BatchGetItemCommand(input));
    else throw new Error(`the fan-out's floor cannot repeat ${read.command}`);
  }
  await Promise.all(
    Array.from({ length: FAN_OUT_CONCURRENCY }, async () => {
      for (let n = writes.shift(); n !== undefined; n = writes.shift()) {
        await rt.doc.send(
          new TransactWriteCommand({
            TransactItems: Array.from({ length: n }, () => ({
              Put: {
                TableName: config.keysTableName,
                Item: { pk: `bench-floor#${randomUUID()}`, sk: 'floor', pad: 'x'.repeat(300) },
              },
            })),
          }),
        );
      }
    }),
  );
  return (performance.now() - started) / 1000;
}
