/** 6: list latency as a user's keys grow (first page and a page from the middle). */
import { createHmac } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { generateKey, keyHint } from '#lib/keys/format';
import { listKeys } from '#lib/keys/lifecycle';
import { DynamoUsageWriter } from '#lib/store/usage-items';
import type { RuntimeWithAdapters as Runtime } from '#test/support/runtime-adapters';
import type { BenchContext } from './context.ts';
import { percentile, record, scaled } from './harness.ts';

export async function listScaling(ctx: BenchContext, log: (line: string) => void) {
  log('6. list latency for users with 100, 1,000 and 10,000 keys');
  const { rt, config } = ctx;
  const ws = (await ctx.creatorWithKey(1)).key.metadata.workspace_ids;
  // Users with 100, 1,000 and 10,000 keys, written directly in their stored form.
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
  // The cursor of the page in the middle of a user's keys.
  const middle = async (userId: string) => {
    let cursor: string | undefined;
    const pages = Math.floor((await countKeys(rt, userId)) / 100);
    for (let i = 0; i < pages; i++)
      cursor = (await listKeys(rt.service, { userId, limit: 50, cursor })).next_cursor ?? undefined;
    return cursor;
  };
  // The baseline is a full page too (a user with 100 keys), so every row reads and returns 50 keys.
  await seed('list-100', scaled(100));
  await seed('list-1000', scaled(1000));
  await seed('list-10000', scaled(10_000));
  // The first page of the 1,000-key user, each key used every day of the week on two instances:
  // the list's `calls_7d` comes from the keys' own items (the usage writes add their days' calls).
  const writer = new DynamoUsageWriter(rt.doc, config.keysTableName, 90);
  const firstPage = (await listKeys(rt.service, { userId: 'list-1000', limit: 50 })).data;
  const now = Date.now();
  await Promise.all(
    firstPage.flatMap((key) =>
      Array.from({ length: 14 }, (_, i) => {
        const day = new Date(now - Math.floor(i / 2) * 86_400_000).toISOString().slice(0, 10);
        const hours = { '09': { calls: 7, refused: {}, tools: { list_forms: 7 } } };
        const instance = `bench-${i % 2}`;
        return Promise.all([
          writer.putDay({
            credential_id: key.id,
            kind: 'api_key',
            user_id: 'list-1000',
            day,
            instance,
            hours,
            calls: 7,
          }),
          writer.addCalls(key.id, day, 7),
        ]);
      }),
    ),
  );
  const withCalls: number[] = [];
  const pages = [
    { userId: 'list-100', cursor: undefined as string | undefined, latencies: [] as number[] },
    { userId: 'list-1000', cursor: undefined as string | undefined, latencies: [] as number[] },
    { userId: 'list-10000', cursor: undefined as string | undefined, latencies: [] as number[] },
    { userId: 'list-10000', cursor: await middle('list-10000'), latencies: [] as number[] },
  ] as const;
  // Interleaved, so that a slow spell of the machine or of DynamoDB Local's JIT falls on every
  // row alike instead of on whichever was being measured. The first 10 rounds warm up.
  for (let round = 0; round < scaled(60, 11); round++) {
    for (const { userId, cursor, latencies } of pages) {
      const t = performance.now();
      await listKeys(rt.service, { userId, limit: 50, cursor });
      if (round >= 10) latencies.push(performance.now() - t);
    }
    const t = performance.now();
    const counted = await listKeys(rt.service, { userId: 'list-1000', limit: 50 });
    if (round >= 10) withCalls.push(performance.now() - t);
    if (counted.data[0]?.calls_7d !== 98)
      throw new Error(`calls_7d read ${counted.data[0]?.calls_7d}, not 98`);
  }
  const p50 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const [base, k1000, k10000, deep] = pages.map((page) => p50(page.latencies)) as [
    number,
    number,
    number,
    number,
  ];
  const baseline = { name: '100 keys p50 ms', value: base };
  const flat = { text: '≤ 3x (flat)', met: (m: { ratio: number | null }) => (m.ratio ?? Infinity) <= 3 };
  record('list page of 50, user with 1,000 keys (p50)', k1000, 'ms', baseline, flat);
  record('list page of 50, user with 10,000 keys (p50)', k10000, 'ms', baseline, flat);
  record('list deep page (middle), 10,000 keys (p50)', deep, 'ms', baseline, flat);
  // The list with each item's calls_7d keeps at least 0.8x the speed of a page with no usage at all.
  record(
    'list page of 50 with calls_7d, keys used all week (p50)',
    p50(withCalls),
    'ms',
    { name: 'a page of 50 keys never used (100 keys) p50 ms', value: base },
    { text: '≤ 1.25x (≥ 0.8x its speed)', met: (m) => (m.ratio ?? Infinity) <= 1.25 },
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
