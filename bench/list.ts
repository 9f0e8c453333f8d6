/** 6: list latency as a user's keys grow (first page and a page from the middle). */
import { createHmac } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { generateKey, keyHint } from '#lib/keys/format';
import { listKeys } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import type { BenchContext } from './context.ts';
import { record, sequential } from './harness.ts';

export async function listScaling(ctx: BenchContext, log: (line: string) => void) {
  log('6. list latency for users with 10, 1,000 and 10,000 keys');
  const { rt, config } = ctx;
  const ws = (await ctx.creatorWithKey(1)).key.metadata.workspace_ids;
  const seq = async (fn: () => Promise<unknown>, n: number) => (await sequential(fn, n)).p50;
  // Users with 10, 1,000 and 10,000 keys, written directly in their stored form.
  const seed = async (userId: string, count: number) => {
    const items = Array.from({ length: count }, (_, i) => {
      const { id, apiKey } = generateKey();
      const created = new Date(Date.now() - (count - i) * 1000).toISOString();
      return rt.store.toItem({
        id,
        user_id: userId,
        lineage_id: id,
        name: `k${i}`,
        workspace_ids: ws,
        scopes: ['svc.forms.read'],
        digest: createHmac('sha256', 'x').update(apiKey).digest('base64'),
        pepper_version: 1,
        key_hint: keyHint(apiKey),
        created_at: created,
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      });
    });
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
  };
  const listP50 = async (userId: string, deep: boolean) => {
    let cursor: string | undefined;
    if (deep) {
      // Walk halfway, then time the page there.
      const pages = Math.floor((await countKeys(rt, userId)) / 100);
      for (let i = 0; i < pages; i++)
        cursor = (await listKeys(rt.service, { userId, limit: 50, cursor })).next_cursor ?? undefined;
    }
    await seq(() => listKeys(rt.service, { userId, limit: 50, cursor }), 10);
    return seq(() => listKeys(rt.service, { userId, limit: 50, cursor }), 50);
  };
  await seed('list-10', 10);
  await seed('list-1000', 1000);
  await seed('list-10000', 10_000);
  const base10 = await listP50('list-10', false);
  for (const [user, label] of [
    ['list-1000', '1,000'],
    ['list-10000', '10,000'],
  ] as const) {
    record(
      `list page of 50, user with ${label} keys (p50)`,
      await listP50(user, false),
      'ms',
      { name: '10 keys p50 ms', value: base10 },
      {
        text: '≤ 3x (flat)',
        met: (m) => (m.ratio ?? Infinity) <= 3,
      },
    );
  }
  record(
    'list deep page (middle), 10,000 keys (p50)',
    await listP50('list-10000', true),
    'ms',
    { name: '10 keys p50 ms', value: base10 },
    {
      text: '≤ 3x (flat)',
      met: (m) => (m.ratio ?? Infinity) <= 3,
    },
  );
}

async function countKeys(rt: Runtime, userId: string): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await listKeys(rt.service, { userId, limit: 100, cursor });
    n += page.data.length;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return n;
}
