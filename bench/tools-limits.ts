/**
 * Tools and limits (contract §19), through DynamoDB Local: what a tool check and a limit add to a
 * warm verification (p50 against the same verifier without them), its DynamoDB calls and read
 * units, and the writes a limited credential costs at any rate.
 */
import { createKey } from '#lib/keys/lifecycle';
import { countCapacity } from '#test/support/capacity';
import { countCommands } from '#test/support/count';
import type { BenchContext } from './context.ts';
import { closedLoop, interleavedClosedLoops, interleavedSequential, record } from './harness.ts';

const LIST_FORMS = { method: 'tools/call', name: 'list_forms' };

export async function toolsAndLimits(ctx: BenchContext, log: (line: string) => void) {
  log('tools and limits (contract §19)');
  const { rt } = ctx;
  const { userId, key: plain } = await ctx.creatorWithKey(1);
  const workspaceIds = plain.metadata.workspace_ids;
  const issue = (fields: { tools?: string[]; limits?: { per_minute?: number; per_day?: number } }) =>
    createKey(rt.service, { userId, name: 'bench', workspaceIds, scopes: ['svc.forms.read'], ...fields });
  const limited = await issue({ limits: { per_minute: 1e8, per_day: 1e8 } });
  const withTools = await issue({ tools: ['list_workspaces', 'list_forms'] });
  // The same verifier, the same key: a call naming its tool (checked) and one naming none.
  const sides = {
    noTool: () => rt.verify(withTools.apiKey),
    toolChecked: () => rt.verify(withTools.apiKey, LIST_FORMS),
    unlimited: () => rt.verify(plain.apiKey, LIST_FORMS),
    limited: () => rt.verify(limited.apiKey, LIST_FORMS),
  };
  for (const [name, verify] of Object.entries(sides))
    if ((await verify()).outcome !== 'valid') throw new Error(`bench key (${name}) does not verify`);
  await interleavedClosedLoops(sides, 16, 8_000, 4);
  const seq = await interleavedSequential(sides, 400);
  record(
    'warm verify p50 checking the call’s tool, against the same key’s call naming none (sequential)',
    seq.toolChecked.p50,
    'ms',
    { name: 'warm verify p50 without a tool check ms', value: seq.noTool.p50 },
    { text: '≤ 1.05x', met: (m) => (m.ratio ?? Infinity) <= 1.05 },
  );
  record(
    'warm verify p50 of a limited key, against an unlimited one (sequential)',
    seq.limited.p50,
    'ms',
    { name: 'warm verify p50 of an unlimited key ms', value: seq.unlimited.p50 },
    { text: '≤ 1.1x', met: (m) => (m.ratio ?? Infinity) <= 1.1 },
  );
  await costs(ctx, sides);
  await writesAtAnyRate(ctx, sides.limited);
}

/** DynamoDB calls and read units of each warm verification: one round trip, the key's units. */
async function costs(
  ctx: BenchContext,
  sides: Record<'toolChecked' | 'unlimited' | 'limited', () => Promise<unknown>>,
) {
  const calls = countCommands(ctx.rt.doc);
  const capacity = countCapacity(ctx.rt.doc);
  const per = async (verify: () => Promise<unknown>, n: number) => {
    calls.reset();
    capacity.reset();
    for (let i = 0; i < n; i++) await verify();
    return {
      reads: calls.of('BatchGetItem') + calls.of('GetItem') + calls.of('Query'),
      rru: capacity.reads() / n,
      n,
    };
  };
  const tools = await per(sides.toolChecked, 50);
  record(
    'DynamoDB reads per warm verification of a one-workspace key with tools',
    tools.reads / tools.n,
    'calls',
    undefined,
    {
      text: '= 1',
      met: (m) => m.value === 1,
    },
  );
  record('RRU per warm verification of a one-workspace key with tools', tools.rru, 'RRU', undefined, {
    text: '= 2',
    met: (m) => m.value === 2,
  });
  const unlimited = await per(sides.unlimited, 50);
  record(
    'DynamoDB reads per warm verification of an unlimited key',
    unlimited.reads / unlimited.n,
    'calls',
    undefined,
    {
      text: '= 1 (as before limits)',
      met: (m) => m.value === 1,
    },
  );
  record('RRU per warm verification of an unlimited key', unlimited.rru, 'RRU', undefined, {
    text: '= 2 (as before limits)',
    met: (m) => m.value === 2,
  });
  const limited = await per(sides.limited, 50);
  record(
    'DynamoDB reads per warm verification of a limited key',
    limited.reads / limited.n,
    'calls',
    undefined,
    {
      text: '= 1 (the count comes with the read)',
      met: (m) => m.value === 1,
    },
  );
  record('RRU per warm verification of a limited key', limited.rru, 'RRU', {
    name: 'an unlimited key’s RRU',
    value: unlimited.rru,
  });
  calls.remove();
  capacity.remove();
}

/** Counts the updates of a limited credential's counters (`rate_<window>`) a client sends. */
function countCounterWrites(doc: BenchContext['rt']['doc']) {
  let n = 0;
  const name = `counters-${Math.random().toString(36).slice(2)}`;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ExpressionAttributeNames?: Record<string, string> };
      const names = Object.values(input.ExpressionAttributeNames ?? {});
      const update = /^Update(Item)?Command$/.test(String(context.commandName));
      if (update && names.some((a) => a.startsWith('rate_'))) n += 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { count: () => n, remove: () => doc.middlewareStack.remove(name) };
}

/** The counters' writes of one instance calling a limited key as fast as it can: at most one a second. */
async function writesAtAnyRate(ctx: BenchContext, verify: () => Promise<unknown>) {
  const counters = countCounterWrites(ctx.rt.doc);
  const capacity = countCapacity(ctx.rt.doc);
  const started = performance.now();
  const load = await closedLoop(verify, 16, 5000);
  const seconds = (performance.now() - started) / 1000;
  const writes = counters.count();
  record('limited key, c=16 for 5 s: verifications/s', load.rate, 'verifications/s');
  record(
    'counter writes per second of one instance, whatever the rate',
    writes / seconds,
    'writes/s',
    undefined,
    {
      text: '≤ 1',
      // The first write may come at the run's start: at most one more than a write a second.
      met: (m) => m.value <= 1 + 1 / seconds,
    },
  );
  record('WRU per second of the run (counters, last use, usage)', capacity.writes() / seconds, 'WRU/s');
  counters.remove();
  capacity.remove();
}
