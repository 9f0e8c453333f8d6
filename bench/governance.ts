/** 7: workspace governance: the admin list as a workspace grows, and the policy fan-out's time. */
import { createHmac, randomUUID } from 'node:crypto';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { generateKey, keyHint } from '#lib/keys/format';
import type { KeyRecord } from '#lib/keys/model';
import { entryItem } from '#lib/store/workspace-items';
import { listWorkspaceKeys } from '#lib/workspaces/keys';
import { applyWorkspacePolicy, putPolicy } from '#lib/workspaces/policy';
import type { BenchContext } from './context.ts';
import { record, sequential } from './harness.ts';

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
  log('7. workspace governance: admin list at 10 and 10,000 keys; policy fan-out of 1,000 keys');
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
  await seedWorkspace(ctx, large, 10_000);
  const base = await listP50(small, await ownerOf(ctx, small));
  record('admin list page of 50, workspace with 10 keys (p50)', base, 'ms');
  record(
    'admin list page of 50, workspace with 10,000 keys (p50)',
    await listP50(large, await ownerOf(ctx, large)),
    'ms',
    { name: '10 keys p50 ms', value: base },
    { text: '≤ 3x (flat)', met: (m) => (m.ratio ?? Infinity) <= 3 },
  );

  const target = randomUUID();
  await seedWorkspace(ctx, target, 1000);
  const owner = await ownerOf(ctx, target);
  let started = performance.now();
  const answer = await putPolicy(rt.governance, {
    userId: owner,
    workspaceId: target,
    policy: { mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
  });
  const putMs = performance.now() - started;
  if (answer.affected_keys !== 1000)
    throw new Error(`expected 1,000 affected keys, got ${answer.affected_keys}`);
  record('policy PUT answer, counting 1,000 affected keys', putMs, 'ms');
  started = performance.now();
  const cut = await applyWorkspacePolicy(rt.governance, target);
  const fanOutS = (performance.now() - started) / 1000;
  if (cut !== 1000) throw new Error(`expected 1,000 keys cut off, got ${cut}`);
  record('policy fan-out, 1,000 keys cut off (DynamoDB Local)', fanOutS, 's', undefined, {
    text: '≤ 6 s (10,000 in ≤ 60 s at this rate)',
    met: (m) => m.value <= 6,
  });
  const left = await listWorkspaceKeys(rt.governance, {
    userId: owner,
    workspaceId: target,
    limit: 1,
    status: 'active',
  });
  if (left.data.length !== 0) throw new Error('the fan-out left an active key in the workspace');
}
