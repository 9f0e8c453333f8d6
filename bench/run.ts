/**
 * `npm run bench` (`-- --json` for JSON): every figure next to a baseline measured in the same
 * run, on this machine, with AWS's DynamoDB Local where DynamoDB is involved.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import * as esbuild from 'esbuild';
import { httpApiAuthorizerEvent, httpApiEvent } from '#infra/local/apigw';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local';
import type { Role } from '#lib/access/scopes';
import type { Config } from '#lib/config';
import { generateKey, KEY_PATTERN, keyHint, parseKey } from '#lib/keys/format';
import { createKey, listKeys } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import { digestKey, type PepperSource } from '#lib/keys/pepper';
import { createKeyVerifier } from '#lib/keys/verify';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE } from '#lib/store/tables';
import { startService } from '#test/support/local-service';
import { closedLoop, opsPerSecond, printTable, record, results, syncOpsPerSecond } from './harness.ts';

const JSON_OUTPUT = process.argv.includes('--json');
const log = (line: string) => {
  if (!JSON_OUTPUT) console.error(line);
};
const ROOT = resolve(import.meta.dirname, '..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

// ---------------------------------------------------------------- 1 + 2: CPU, store faked in memory
async function cpu() {
  log('1-2. verification CPU cost and garbage rejection (store in memory)');
  const pepperBytes = Buffer.alloc(32, 7);
  const peppers: PepperSource = { currentVersion: 1, pepper: async () => pepperBytes };
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const makeRecord = async (workspaces: number) => {
    const { id, apiKey } = generateKey();
    const { digest } = await digestKey(peppers, apiKey);
    const workspaceIds = Array.from({ length: workspaces }, () => randomUUID());
    const record: KeyRecord = {
      id,
      user_id: 'bench',
      lineage_id: id,
      name: 'bench',
      workspace_ids: workspaceIds,
      scopes: ['svc.forms.read', 'svc.forms.write'],
      digest,
      pepper_version: 1,
      key_hint: keyHint(apiKey),
      created_at: new Date().toISOString(),
      expires_at: future,
      last_used_at: future, // never due: no last-use write in the loop
    };
    const roles = new Map<string, Role>(workspaceIds.map((w) => [w, 'editor']));
    return { apiKey, record, roles };
  };
  let storeCalls = 0;
  const verifierFor = (k: Awaited<ReturnType<typeof makeRecord>>) =>
    createKeyVerifier({
      keys: {
        get: async (id) => {
          storeCalls++;
          return id === k.record.id ? k.record : undefined;
        },
        recordUse: async () => {
          storeCalls++;
          return false;
        },
      },
      memberships: {
        rolesFor: async () => {
          storeCalls++;
          return k.roles;
        },
      },
      peppers,
      now: () => new Date(),
    });

  const one = await makeRecord(1);
  const verify = verifierFor(one);
  if ((await verify(one.apiKey)).outcome !== 'valid') throw new Error('bench key does not verify');
  const bareHmac = await opsPerSecond(
    () => createHmac('sha256', pepperBytes).update(one.apiKey).digest(),
    1500,
  );
  const verifyRate = await opsPerSecond(() => verify(one.apiKey), 1500);
  record(
    'verify CPU (in-memory store)',
    1e6 / verifyRate,
    'µs/op',
    { name: 'bare HMAC-SHA256 µs/op', value: 1e6 / bareHmac },
    {
      text: '≤ 5x',
      met: (m) => (m.ratio ?? Infinity) <= 5,
    },
  );

  const fifty = await makeRecord(50);
  const verify50 = verifierFor(fifty);
  const rate50 = await opsPerSecond(() => verify50(fifty.apiKey), 1500);
  record('verify CPU, key with 50 workspaces', 1e6 / rate50, 'µs/op', {
    name: '1 workspace µs/op',
    value: 1e6 / verifyRate,
  });

  // Garbage: random bodies (bad checksum), truncated, extended, wrong prefix, a flipped character.
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const garbage: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const good = generateKey().apiKey;
    const pos = 11 + (i % 71);
    const mutations = [
      `svc_mcp_v1_${Array.from({ length: 71 }, () => alphabet[Math.floor(Math.random() * 62)]).join('')}`,
      good.slice(0, -1),
      `${good}A`,
      `svc_mcp_v2_${good.slice(11)}`,
      good.slice(0, pos) + (good[pos] === 'A' ? 'B' : 'A') + good.slice(pos + 1),
    ];
    garbage.push(mutations[i % mutations.length] as string);
  }
  let g = 0;
  const regexRate = syncOpsPerSecond(() => KEY_PATTERN.test(garbage[g++ % garbage.length] as string), 1500);
  g = 0;
  const parseRate = syncOpsPerSecond(() => parseKey(garbage[g++ % garbage.length]), 1500);
  record(
    'garbage keys rejected (parse + checksum)',
    parseRate,
    'keys/s',
    { name: 'bare regex test keys/s', value: regexRate },
    {
      text: '≥ 1,000,000/s or ≥ 0.5x regex',
      met: (m) => m.value >= 1_000_000 || (m.ratio ?? 0) >= 0.5,
    },
  );
  storeCalls = 0;
  let valid = 0;
  for (const k of garbage) if ((await verify(k)).outcome !== 'malformed') valid++;
  record('store calls for 10,000 garbage keys', storeCalls, 'calls', undefined, {
    text: '= 0',
    met: (m) => m.value === 0 && valid === 0,
  });
}

// ---------------------------------------------------------------- 3 + 6: through DynamoDB Local
async function dynamo() {
  log('3, 6. verification and list through DynamoDB Local');
  const local = await startDynamoDbLocal();
  try {
    const suffix = randomUUID().slice(0, 8);
    const config: Config = {
      keysTableName: `bench-keys-${suffix}`,
      membershipsTableName: `bench-members-${suffix}`,
      pepper: { kind: 'local', dir: mkdtempSync(join(tmpdir(), 'bench-pepper-')), version: 1 },
      dynamodbEndpoint: local.endpoint,
      region: 'us-east-1',
      settings: { defaultExpiryDays: 30, maxExpiryDays: 90, maxActiveKeys: 10_000, retentionDays: 90 },
      mcpAllowedOrigins: [],
    };
    const rt = buildRuntime(config);
    await rt.doc.send(new CreateTableCommand(createTableInput(KEYS_TABLE, config.keysTableName)));
    await rt.doc.send(
      new CreateTableCommand(createTableInput(MEMBERSHIPS_TABLE, config.membershipsTableName)),
    );
    const member = async (userId: string, workspaces: number) => {
      const ids = Array.from({ length: workspaces }, () => randomUUID());
      for (const sk of ids) {
        await rt.doc.send(
          new PutCommand({
            TableName: config.membershipsTableName,
            Item: { pk: userId, sk, role: 'editor' },
          }),
        );
      }
      return ids;
    };
    const memberWithKey = async (userId: string, workspaces: number) => {
      const ws = await member(userId, workspaces);
      const key = await createKey(rt.service, {
        userId,
        name: 'b',
        workspaceIds: ws,
        scopes: ['svc.forms.read'],
      });
      return { ws, key };
    };
    const { ws, key } = await memberWithKey('bench-user', 1);

    const bareGet = () =>
      rt.doc.send(
        new GetCommand({
          TableName: config.keysTableName,
          Key: { pk: keyPk(key.metadata.id), sk: KEY_SK },
          ConsistentRead: true,
        }),
      );
    await closedLoop(bareGet, 16, 2000); // JIT warm-up of both sides
    await closedLoop(() => rt.verify(key.apiKey), 16, 2000);
    const bare = await closedLoop(bareGet, 16, 10_000);
    const verified = await closedLoop(() => rt.verify(key.apiKey), 16, 10_000);
    record(
      'verify via DynamoDB Local, c=16, 10 s',
      verified.rate,
      'verifications/s',
      { name: 'bare consistent GetItem/s', value: bare.rate },
      {
        text: '≥ 0.4x',
        met: (m) => (m.ratio ?? 0) >= 0.4,
      },
    );
    record('verify via DynamoDB Local p50', verified.p50, 'ms', { name: 'GetItem p50 ms', value: bare.p50 });
    record('verify via DynamoDB Local p99', verified.p99, 'ms', { name: 'GetItem p99 ms', value: bare.p99 });

    const { key: key50 } = await memberWithKey('bench-user-50', 50);
    const seq = async (fn: () => Promise<unknown>, n: number) => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await fn();
        times.push(performance.now() - t);
      }
      return median(times);
    };
    await seq(() => rt.verify(key50.apiKey), 50);
    const v1 = await seq(() => rt.verify(key.apiKey), 200);
    const v50 = await seq(() => rt.verify(key50.apiKey), 200);
    record('verify latency, 50 workspaces (p50, sequential)', v50, 'ms', {
      name: '1 workspace p50 ms',
      value: v1,
    });

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
    return { local, config, rt, key };
  } catch (err) {
    await local.stop();
    throw err;
  }
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

// ---------------------------------------------------------------- 5: bundles and cold start
async function coldStart(ctx: Awaited<ReturnType<typeof dynamo>>) {
  log('5. bundle sizes and cold start (import + first request)');
  const outDir = join(ROOT, '.tmp', 'bench-bundles');
  mkdirSync(outDir, { recursive: true });
  const env = {
    KEYS_TABLE_NAME: ctx.config.keysTableName,
    MEMBERSHIPS_TABLE_NAME: ctx.config.membershipsTableName,
    PEPPER_DIR: (ctx.config.pepper as { dir: string }).dir,
    DYNAMODB_ENDPOINT: ctx.config.dynamodbEndpoint as string,
    AWS_REGION: 'us-east-1',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    MAX_ACTIVE_KEYS: '10000',
  };
  const empty = join(outDir, 'empty.mjs');
  writeFileSync(empty, 'export const handler = async () => ({ statusCode: 200 });\n');
  const measure = (file: string, event: unknown) => {
    const script = `
      const t0 = performance.now();
      const m = await import(${JSON.stringify(pathToFileURL(file).href)});
      const ctx = { functionName: 'bench', awsRequestId: 'r', getRemainingTimeInMillis: () => 10000, invokedFunctionArn: 'arn:aws:lambda:local:0:function:bench', functionVersion: '1', memoryLimitInMB: '256', logGroupName: 'l', logStreamName: 's' };
      const out = await m.handler(JSON.parse(process.env.BENCH_EVENT), ctx);
      process.stdout.write(JSON.stringify({ ms: performance.now() - t0, out }));`;
    const runs = [0, 1, 2].map(() => {
      const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, ...env, BENCH_EVENT: JSON.stringify(event) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return JSON.parse(stdout) as { ms: number; out: { statusCode?: number; isAuthorized?: boolean } };
    });
    return { ms: median(runs.map((r) => r.ms)), out: runs[0]?.out };
  };
  const baseline = measure(empty, {}).ms;
  const request = (method: string, routeKey: string, rawPath: string, extra: Record<string, unknown> = {}) =>
    httpApiEvent({
      method,
      routeKey,
      rawPath,
      claims: { sub: 'bench-user', email_verified: true, auth_time: Math.floor(Date.now() / 1000) },
      ...extra,
    });
  const ws = ctx.key.metadata.workspace_ids;
  const events: Record<string, unknown> = {
    'mcp-authorizer': httpApiAuthorizerEvent(
      httpApiEvent({
        method: 'POST',
        routeKey: 'POST /mcp',
        rawPath: '/mcp',
        headers: { authorization: `Bearer ${ctx.key.apiKey}` },
      }),
    ),
    'list-keys': request('GET', 'GET /v1/mcp/api-keys', '/v1/mcp/api-keys'),
    'create-key': request('POST', 'POST /v1/mcp/api-keys', '/v1/mcp/api-keys', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cold', workspace_ids: ws, scopes: ['svc.forms.read'] }),
    }),
    'revoke-key': request('DELETE', 'DELETE /v1/mcp/api-keys/{key_id}', `/v1/mcp/api-keys/${randomUUID()}`, {
      pathParameters: { key_id: randomUUID() },
    }),
    'rotate-key': request(
      'POST',
      'POST /v1/mcp/api-keys/{key_id}/rotate',
      `/v1/mcp/api-keys/${randomUUID()}/rotate`,
      {
        pathParameters: { key_id: randomUUID() },
      },
    ),
  };
  for (const name of [
    'mcp-authorizer',
    'create-key',
    'list-keys',
    'rotate-key',
    'revoke-key',
    'mcp-server',
  ]) {
    const outfile = join(outDir, `${name}.mjs`);
    // The options the CDK ServiceFunction uses.
    await esbuild.build({
      entryPoints: [join(ROOT, 'functions', `${name}.ts`)],
      outfile,
      bundle: true,
      minify: true,
      sourcemap: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      external: ['@aws-sdk/*'],
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
      logLevel: 'silent',
    });
    const size = statSync(outfile).size / 1024;
    record(
      `bundle size: ${name}`,
      size,
      'KB',
      undefined,
      name === 'mcp-authorizer' ? { text: '≤ 250 KB', met: (m) => m.value <= 250 } : undefined,
    );
    const event = events[name];
    if (!event) continue;
    const { ms, out } = measure(outfile, event);
    if (name === 'mcp-authorizer' && out?.isAuthorized !== true)
      throw new Error('cold-start verification was not allowed');
    record(
      `cold start: ${name} (import + first request)`,
      ms,
      'ms',
      { name: 'import empty module ms', value: baseline },
      name === 'mcp-authorizer' ? { text: '≤ 150 ms', met: (m) => m.value <= 150 } : undefined,
    );
  }
}

// ---------------------------------------------------------------- 4: management path over HTTP
async function management() {
  log('4. management path through the local service (autocannon, loopback, bounded)');
  const service = await startService(
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-svc-')),
      MAX_ACTIVE_KEYS: '10000',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    ['--in-memory'],
  );
  try {
    const post = async (path: string, body: unknown, token?: string) => {
      const r = await fetch(`${service.url}${path}`, {
        method: path.startsWith('/_dev/memberships') ? 'PUT' : 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
      return r.status === 204 ? {} : ((await r.json()) as Record<string, unknown>);
    };
    const tokenFor = async (sub: string) =>
      (await post('/_dev/token', { sub, email_verified: true })).token as string;
    const users = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const sub = `bench-${i}`;
        const ws = randomUUID();
        await post(`/_dev/memberships/${sub}/${ws}`, { role: 'editor' });
        return { token: await tokenFor(sub), ws };
      }),
    );
    const lister = users[0] as { token: string; ws: string };
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (ids.length < 1000) {
          const created = await post(
            '/v1/mcp/api-keys',
            { name: 'seed', workspace_ids: [lister.ws], scopes: ['svc.forms.read'] },
            lister.token,
          );
          const id = (created.metadata as { id?: string } | undefined)?.id;
          if (id) ids.push(id);
        }
      }),
    );
    const run = (opts: autocannon.Options) =>
      new Promise<autocannon.Result>((done, fail) => {
        // Bounded: by a request count when given, else by 5 seconds.
        const bound = opts.amount ? {} : { duration: 5 };
        autocannon({ connections: 16, ...bound, ...opts }, (err, res) => (err ? fail(err) : done(res)));
      });
    const summary = (name: string, res: autocannon.Result, health: autocannon.Result) => {
      const errors = res.non2xx + res.errors;
      record(
        `${name} req/s (c=16)`,
        res.requests.average,
        'req/s',
        { name: 'GET /health req/s', value: health.requests.average },
        {
          text: 'no errors',
          met: () => errors === 0,
        },
      );
      record(`${name} p99`, res.latency.p99, 'ms', { name: 'GET /health p99 ms', value: health.latency.p99 });
    };
    const health = await run({ url: `${service.url}/health` });
    let u = 0;
    const create = await run({
      url: `${service.url}/v1/mcp/api-keys`,
      method: 'POST',
      requests: [
        {
          setupRequest: (req) => {
            const user = users[u++ % users.length] as { token: string; ws: string };
            return {
              ...req,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
              body: JSON.stringify({ name: 'bench', workspace_ids: [user.ws], scopes: ['svc.forms.read'] }),
            };
          },
        },
      ],
    });
    summary('POST create', create, health);
    const list = await run({
      url: `${service.url}/v1/mcp/api-keys?limit=50`,
      headers: { authorization: `Bearer ${lister.token}` },
    });
    summary('GET list (1,000 keys, page of 50)', list, health);
    let r = 0;
    const revoke = await run({
      url: `${service.url}/v1/mcp/api-keys/x`,
      method: 'DELETE',
      amount: ids.length,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            path: `/v1/mcp/api-keys/${ids[r++ % ids.length]}`,
            headers: { authorization: `Bearer ${lister.token}` },
          }),
        },
      ],
    } as autocannon.Options);
    summary('DELETE revoke (1,000 distinct keys)', revoke, health);
  } finally {
    await service.stop('SIGTERM');
  }
}

const started = performance.now();
await cpu();
const ctx = await dynamo();
try {
  await coldStart(ctx);
} finally {
  await ctx.local.stop();
}
await management();
const seconds = (performance.now() - started) / 1000;
if (JSON_OUTPUT) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log(`\nnpm run bench (${new Date().toISOString()}, ${process.version}, ${seconds.toFixed(0)} s)\n`);
  printTable(results);
  const missed = results.filter((m) => m.met === false);
  console.log(
    missed.length === 0 ? '\nall targets met' : `\ntargets missed: ${missed.map((m) => m.name).join('; ')}`,
  );
}
