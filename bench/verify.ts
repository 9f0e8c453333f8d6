/**
 * 3: verification through DynamoDB Local: latency and throughput against a bare consistent
 * GetItem (the AWS SDK's document client as it comes), DynamoDB calls and read units per
 * verification, and what a create costs.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { makeHandlers } from '#lib/handlers/index';
import { createKey } from '#lib/keys/lifecycle';
import { createKeyVerifier } from '#lib/keys/verify';
import type { OAuthDeps } from '#lib/oauth/deps';
import { buildRuntime } from '#lib/runtime';
import { localEndpoint } from '#lib/store/client';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { ROLE_PROJECTION } from '#lib/store/memberships-store';
import { dynamoKeyVerifier } from '#lib/verifier';
import { httpApiAuthorizerEvent } from '#test/support/authorizer-events';
import { countCapacity } from '#test/support/capacity';
import { countCommands } from '#test/support/count';
import { BENCH_APP, consentGrantTokens } from './consent-grant.ts';
import type { BenchContext } from './context.ts';
import { closedLoop, interleavedClosedLoops, interleavedSequential, record, sequential } from './harness.ts';

/** Per side: 60 s of load in all before the measurements. */
const WARM_UP_MS = 12_000;

export async function verification(ctx: BenchContext, log: (line: string) => void) {
  log('3. verification through DynamoDB Local');
  const { rt, config } = ctx;
  const { userId, key } = await ctx.creatorWithKey(1);
  // Today's verifier, for comparison: no warm path (a read by id, then the memberships).
  const cold = createKeyVerifier({ ...rt.service, now: () => new Date() });
  // The floor: a consistent GetItem of the key through the AWS SDK's document client as it comes
  // (what any caller of DynamoDB pays), and the same through the service's own client.
  const stock = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: config.region, ...localEndpoint(config.dynamodbEndpoint as string) }),
  );
  const getKey = (doc: DynamoDBDocumentClient) => () =>
    doc.send(
      new GetCommand({
        TableName: config.keysTableName,
        Key: { pk: keyPk(key.metadata.id), sk: KEY_SK },
        ConsistentRead: true,
      }),
    );
  const bareGet = getKey(stock);
  const serviceGet = getKey(rt.doc);
  // The warm path's one request on its own: the key and the creator's membership (its role alone,
  // as the warm path reads it) in one BatchGetItem. What the warm path can at best reach, since
  // DynamoDB answers it slower than a GetItem of one item.
  const workspaceId = key.metadata.workspace_ids[0] as string;
  const bareBatch = () =>
    stock.send(
      new BatchGetCommand({
        RequestItems: {
          [config.keysTableName]: {
            Keys: [{ pk: keyPk(key.metadata.id), sk: KEY_SK }],
            ConsistentRead: true,
          },
          [config.membershipsTableName]: {
            Keys: [{ pk: userId, sk: workspaceId }],
            ConsistentRead: true,
            ...ROLE_PROJECTION,
          },
        },
      }),
    );
  const warm = () => rt.verify(key.apiKey, { method: 'tools/call', name: 'list_forms' });
  if ((await warm()).outcome !== 'valid') throw new Error('bench key does not verify');
  // The same verifier without usage counting (contract §18): what the counting adds to a call.
  const uncountedVerify = dynamoKeyVerifier({
    doc: rt.doc,
    keysTableName: config.keysTableName,
    membershipsTableName: config.membershipsTableName,
    peppers: rt.service.peppers,
    now: () => new Date(),
  });
  const uncounted = () => uncountedVerify(key.apiKey);

  // Warm-up of every side, in turn as measured: DynamoDB Local's JVM takes about a minute of load
  // to reach its steady state (its CPU per consistent GetItem fell from 1.9 ms to 0.5 ms over the
  // first 70 s here), and the sides it compiles last would otherwise be measured slower.
  await interleavedClosedLoops(
    { bareGet, serviceGet, bareBatch, warm, uncounted, cold: () => cold(key.apiKey) },
    16,
    WARM_UP_MS,
    4,
  );
  const {
    bare: bareSeq,
    batch: batchSeq,
    warm: warmSeq,
    cold: coldSeq,
    uncounted: uncountedSeq,
  } = await interleavedSequential(
    { bare: bareGet, batch: bareBatch, warm, uncounted, cold: () => cold(key.apiKey) },
    400,
  );
  const getP50 = { name: 'bare consistent GetItem p50 ms', value: bareSeq.p50 };
  record('bare BatchGetItem of the warm path’s two items p50 (sequential)', batchSeq.p50, 'ms', getP50);
  record('warm verify p50 (sequential)', warmSeq.p50, 'ms', getP50, {
    text: '≤ 1.4x',
    met: (m) => (m.ratio ?? Infinity) <= 1.4,
  });
  record('verify p50 without the warm path (sequential)', coldSeq.p50, 'ms', getP50);
  record(
    'warm verify p50 counting usage, against the same verifier counting none (sequential)',
    warmSeq.p50,
    'ms',
    { name: 'warm verify p50 without usage ms', value: uncountedSeq.p50 },
    { text: '≤ 1.05x', met: (m) => (m.ratio ?? Infinity) <= 1.05 },
  );

  // 24 s of each side in turns of 1 s: the machine's rate moves by 10-20% from one 3 s window to
  // the next (measured here), and the finer the turns, the more alike every side meets it.
  const {
    bare,
    service,
    batch,
    warm: warmLoad,
    cold: coldLoad,
  } = await interleavedClosedLoops(
    { bare: bareGet, service: serviceGet, batch: bareBatch, warm, cold: () => cold(key.apiKey) },
    16,
    24_000,
    24,
  );
  const getRate = { name: 'bare consistent GetItem/s', value: bare.rate };
  record('GetItem through the service’s client, c=16, 24 s', service.rate, 'requests/s', getRate);
  record('bare BatchGetItem of the warm path’s two items, c=16, 24 s', batch.rate, 'requests/s', getRate);
  // Information: DynamoDB Local spends about 1.7x a GetItem's CPU on the two-item read, so this
  // ratio moves with the emulator more than with the verifier.
  record('warm verify via DynamoDB Local, c=16, 24 s', warmLoad.rate, 'verifications/s', getRate);
  // The target: what the verifier itself controls, its throughput against its one read sent bare.
  record(
    'warm verify against its own read sent bare, c=16, 24 s',
    warmLoad.rate,
    'verifications/s',
    { name: 'bare BatchGetItem/s', value: batch.rate },
    { text: '≥ 0.9x', met: (m) => (m.ratio ?? 0) >= 0.9 },
  );
  record('verify without the warm path, c=16, 24 s', coldLoad.rate, 'verifications/s', getRate);
  record('warm verify c=16 p50', warmLoad.p50, 'ms', { name: 'GetItem c=16 p50 ms', value: bare.p50 });
  record('warm verify c=16 p99', warmLoad.p99, 'ms', { name: 'GetItem c=16 p99 ms', value: bare.p99 });
  // The membership the warm path reads with the key, alone (its role, as the warm path reads it).
  const memberGet = () =>
    stock.send(
      new GetCommand({
        TableName: config.membershipsTableName,
        Key: { pk: userId, sk: workspaceId },
        ConsistentRead: true,
        ...ROLE_PROJECTION,
      }),
    );
  await cpuSplit(ctx, { bare: bareGet, member: memberGet, batch: bareBatch, warm });

  // DynamoDB calls per verification (the last use was recorded during the runs above).
  const calls = countCommands(rt.doc);
  for (let i = 0; i < 200; i++) await warm();
  record('DynamoDB calls per warm verification (1 workspace)', calls.total() / 200, 'calls', undefined, {
    text: '= 1',
    met: (m) => m.value === 1,
  });
  calls.reset();
  for (let i = 0; i < 200; i++) await cold(key.apiKey);
  record('DynamoDB calls per verification without the warm path', calls.total() / 200, 'calls');
  calls.remove();

  await accessTokens(ctx, warm);
  await readUnits(ctx);
  await createCalls(ctx);
  await cpuPerInvocation(ctx, key.apiKey);

  const { key: key50 } = await ctx.creatorWithKey(50);
  await sequential(() => rt.verify(key50.apiKey), 50);
  record(
    'warm verify latency, 50 workspaces (p50, sequential)',
    (await sequential(() => rt.verify(key50.apiKey), 200)).p50,
    'ms',
    { name: '1 workspace p50 ms', value: (await sequential(warm, 200)).p50 },
  );
}

/**
 * Where the throughput above goes: the CPU that this process and DynamoDB Local's JVM spend per
 * request of each side, at c=16 in turns (1 s of each, 4 rounds). The two share the machine's two
 * cores, so a side's rate is bounded by their sum. The membership's GetItem shows what DynamoDB
 * Local's batch read costs: about a GetItem of each item it reads. Linux only (the JVM's CPU is
 * read from /proc).
 */
async function cpuSplit(
  ctx: BenchContext,
  sides: Record<'bare' | 'member' | 'batch' | 'warm', () => Promise<unknown>>,
) {
  const pid = ctx.local.process?.pid;
  if (pid === undefined || process.platform !== 'linux') return;
  // utime and stime, in clock ticks of 10 ms (fields 14 and 15 of /proc/<pid>/stat).
  const jvmMs = () => {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] as string).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const names = ['bare', 'member', 'batch', 'warm'] as const;
  type Side = (typeof names)[number];
  const used = Object.fromEntries(names.map((n) => [n, { node: 0, jvm: 0, requests: 0 }])) as Record<
    Side,
    { node: number; jvm: number; requests: number }
  >;
  for (let round = 0; round < 4; round++) {
    for (const name of names) {
      const side = used[name];
      const jvm = jvmMs();
      const node = process.cpuUsage();
      const started = performance.now();
      const { rate } = await closedLoop(sides[name], 16, 1000);
      const elapsed = performance.now() - started;
      const spent = process.cpuUsage(node);
      side.node += (spent.user + spent.system) / 1000;
      side.jvm += jvmMs() - jvm;
      side.requests += (rate * elapsed) / 1000;
    }
  }
  const per = (name: Side, of: 'node' | 'jvm') => used[name][of] / used[name].requests;
  for (const [of, who] of [
    ['jvm', 'DynamoDB Local’s CPU'],
    ['node', 'this process’s CPU'],
  ] as const) {
    const baseline = { name: 'per bare GetItem ms', value: per('bare', of) };
    record(`${who} per bare GetItem of the membership (its role), c=16`, per('member', of), 'ms', baseline);
    record(
      `${who} per bare BatchGetItem of the warm path’s two items, c=16`,
      per('batch', of),
      'ms',
      baseline,
    );
    record(`${who} per warm verify, c=16`, per('warm', of), 'ms', baseline);
  }
}

/**
 * An OAuth access token (contract §15) beside a key of the same creator and workspace: a grant is
 * a key item, so its warm verification is the key's one BatchGetItem at the key's read units.
 */
async function accessTokens(ctx: BenchContext, warmKey: () => Promise<unknown>) {
  const { rt, config } = ctx;
  const resource = 'https://mcp.bench.example/mcp';
  const withOAuth = buildRuntime(
    {
      ...config,
      oauth: {
        issuer: 'https://keys.bench.example',
        consentPageUrl: 'https://dash.bench.example/consent',
        resources: [resource],
      },
      mcpResource: resource,
    },
    { doc: rt.doc },
  );
  const app = BENCH_APP;
  const oauth = {
    ...(withOAuth.oauth as OAuthDeps),
    clients: async () => ({ ok: true as const, client: app }),
  };
  const { userId, key } = await ctx.creatorWithKey(1);
  const tokens = await consentGrantTokens(
    oauth,
    app,
    { userId, workspaceIds: key.metadata.workspace_ids },
    resource,
  );
  const warmToken = () => withOAuth.verify(tokens.access_token);
  if ((await warmToken()).outcome !== 'valid') throw new Error('bench access token does not verify');
  const warmItsKey = () => withOAuth.verify(key.apiKey);
  await closedLoop(warmToken, 16, 1500);
  await closedLoop(warmItsKey, 16, 1500);
  const loads = await interleavedClosedLoops({ key: warmItsKey, token: warmToken }, 16, 8000, 4);
  record(
    'warm access-token verify via DynamoDB Local, c=16, 8 s',
    loads.token.rate,
    'verifications/s',
    {
      name: 'warm key verify/s (same creator, same run)',
      value: loads.key.rate,
    },
    { text: '≥ 0.9x', met: (m) => (m.ratio ?? 0) >= 0.9 },
  );

  await costsAsAKey(rt.doc, 'access-token', { token: warmToken, key: warmItsKey });
  await warmKey();
}

/**
 * What a warm verification of a grant's access token costs, next to a key of the same person: its
 * DynamoDB calls (target one) and its read units (target the key's). `what` names the token.
 */
export async function costsAsAKey(
  doc: Parameters<typeof countCommands>[0],
  what: string,
  verify: { token: () => Promise<unknown>; key: () => Promise<unknown> },
) {
  const calls = countCommands(doc);
  for (let i = 0; i < 200; i++) await verify.token();
  record(`DynamoDB calls per warm ${what} verification`, calls.total() / 200, 'calls', undefined, {
    text: '= 1',
    met: (m) => m.value === 1,
  });
  calls.remove();
  const capacity = countCapacity(doc);
  for (let i = 0; i < 10; i++) await verify.key();
  const keyUnits = capacity.reads() / 10;
  capacity.reset();
  for (let i = 0; i < 10; i++) await verify.token();
  record(
    `RRU per warm ${what} verification`,
    capacity.reads() / 10,
    'RRU',
    { name: 'RRU per warm key verification (same person)', value: keyUnits },
    { text: '= the key’s', met: (m) => m.value === keyUnits },
  );
  capacity.remove();
}

/** Read request units per verification, as DynamoDB Local reports them (what AWS bills). */
async function readUnits(ctx: BenchContext) {
  const { rt } = ctx;
  const today = createKeyVerifier({ ...rt.service, now: () => new Date() });
  const capacity = countCapacity(rt.doc);
  const unitsOf = async (verify: (k: string) => Promise<unknown>, apiKey: string, n: number) => {
    capacity.reset();
    for (let i = 0; i < n; i++) await verify(apiKey);
    return capacity.reads() / n;
  };
  const cases = [
    { workspaces: 1, memberships: 1, target: 2 },
    { workspaces: 10, memberships: 100, target: 3 },
    { workspaces: 50, memberships: 100, target: 4 },
    { workspaces: 1, memberships: 500 },
    { workspaces: 10, memberships: 500 },
    { workspaces: 50, memberships: 500 },
  ];
  for (const { workspaces, memberships, target } of cases) {
    const { key } = await ctx.creatorWithKey(workspaces, memberships);
    const first = await unitsOf(rt.verify, key.apiKey, 1);
    const warm = await unitsOf(rt.verify, key.apiKey, 10);
    const baseline = await unitsOf(today, key.apiKey, 3);
    const label = `${workspaces} workspace${workspaces > 1 ? 's' : ''}, creator with ${memberships} membership${memberships > 1 ? 's' : ''}`;
    const limit = target ?? baseline;
    record(
      `RRU per warm verification, ${label}`,
      warm,
      'RRU',
      { name: 'today (GetItem + BatchGetItem) RRU', value: baseline },
      { text: target ? `≤ ${target}` : '≤ today (N+1)', met: (m) => m.value <= limit },
    );
    if (memberships >= 100 && workspaces >= 10)
      record(`RRU of the first verification, ${label}`, first, 'RRU', {
        name: 'today RRU',
        value: baseline,
      });
  }
  // The last-use write: at most once a minute per key.
  const { key } = await ctx.creatorWithKey(1);
  capacity.reset();
  await rt.service.keys.recordUse(key.metadata.id, new Date(Date.now() + 3_600_000));
  record('WRU per last-use write (at most once a minute per key)', capacity.writes(), 'WRU');
  capacity.remove();
}

/**
 * A create: a consistent BatchGetItem of the creator's memberships, then one TransactWriteItems
 * of the key and the user's slot map; a user's first key also creates the slot map.
 */
async function createCalls(ctx: BenchContext) {
  const { rt } = ctx;
  const { userId, key } = await ctx.creatorWithKey(1);
  const calls = countCommands(rt.doc);
  const create = () =>
    createKey(rt.service, {
      userId,
      name: 'another',
      workspaceIds: key.metadata.workspace_ids,
      scopes: ['svc.forms.read'],
    });
  await create();
  record('DynamoDB calls per create (a user with keys)', calls.total(), 'calls', undefined);
  const [newcomer, workspace] = [randomUUID(), randomUUID()];
  await rt.doc.send(
    new PutCommand({
      TableName: ctx.config.membershipsTableName,
      Item: { pk: newcomer, sk: workspace, role: 'editor' },
    }),
  );
  calls.reset();
  await createKey(rt.service, {
    userId: newcomer,
    name: 'first',
    workspaceIds: [workspace],
    scopes: ['svc.forms.read'],
  });
  record("DynamoDB calls per create (a user's first key)", calls.total(), 'calls', undefined);
  calls.remove();
}

/**
 * CPU time of one warm authorizer invocation (the handler: verification, SDK marshalling and
 * signing, the decision, its log line and EMF line) and of one MCP call (the reference server's
 * list_workspaces), for the capacity model. DynamoDB Local runs in its own process, so only this
 * process's CPU is counted; log lines are built but not written.
 */
async function cpuPerInvocation(ctx: BenchContext, apiKey: string) {
  // The handlers' log and EMF lines are built but not written (the table goes to stdout).
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await measureCpu(ctx, apiKey);
  } finally {
    process.stdout.write = write;
  }
}

async function measureCpu(ctx: BenchContext, apiKey: string) {
  const handlers = makeHandlers(ctx.rt);
  const authorizerEvent = httpApiAuthorizerEvent(
    httpApiEvent({
      method: 'POST',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      headers: { authorization: `Bearer ${apiKey}` },
    }),
  );
  const allowed = (await handlers['mcp-authorizer'](authorizerEvent, lambdaContext('bench'))) as {
    context: Record<string, string>;
  };
  const mcpEvent = () => {
    const event = httpApiEvent({
      method: 'POST',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        host: 'bench',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_workspaces', arguments: {} },
      }),
    });
    (event.requestContext as { authorizer?: unknown }).authorizer = { lambda: allowed.context };
    return event as never;
  };
  const cpuMs = async (fn: () => Promise<unknown>, n: number) => {
    for (let i = 0; i < 50; i++) await fn();
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / n;
  };
  const authorizerCpu = await cpuMs(
    () => handlers['mcp-authorizer'](authorizerEvent, lambdaContext('bench')),
    400,
  );
  const mcpCpu = await cpuMs(() => handlers['mcp-server'](mcpEvent()), 400);
  record('CPU per warm authorizer invocation (this process)', authorizerCpu, 'ms');
  record('CPU per MCP call (reference server, list_workspaces)', mcpCpu, 'ms');
}
