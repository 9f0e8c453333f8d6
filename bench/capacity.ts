/**
 * `npm run capacity -- --rps 200 --workspaces 10 [--memberships 100] [--keys 500]
 * [--authorizer-mb 256] [--mcp-mb 256] [--dynamo-ms 4]`: the cost and limits model of
 * docs/capacity.md for one traffic mix, from the inputs measured by `npm run bench`.
 */
import { parseArgs } from 'node:util';
import { QUERY_FROM_WORKSPACES } from '#lib/store/membership-reads';

/** Measured by `npm run bench` (its run of 2026-11-22; docs/capacity.md). */
export const MEASURED = {
  /** CPU of one warm authorizer invocation: verification, SDK marshalling and signing, logs. */
  authorizerCpuMs: 1.24,
  /** CPU of one call to the reference MCP server (list_workspaces). */
  mcpCpuMs: 1.75,
  /** A membership item with a 36-character user id: 100 of them cost 3 RRU in one Query. */
  membershipItemBytes: 86,
  /** A key item is under 4 KB: one consistent read unit. */
  keyItemRru: 1,
  /** The last-use write (UpdateItem of the key item). */
  lastUseWru: 2,
  /**
   * The usage write: a PutItem of an instance's day, in no index (1 WRU while the day holds an hour
   * or two of calls, 4 for a day busy every hour with five tools), and the day's calls added to the
   * key's own item (2 WRU: the item and its user-index entry), test/integration/usage.test.ts.
   */
  usageWru: 3,
};

/** Public prices, us-east-1, on-demand, as of 2026 (override with flags to model another region). */
export const PRICES = {
  restApiPerMillion: 3.5,
  httpApiPerMillion: 1.0,
  lambdaPerMillionRequests: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  dynamoPerMillionRru: 0.125,
  dynamoPerMillionWru: 0.625,
  /** Unkey's API plans: requests per month and price (unkeyed/unkey tools/pricing/catalog.go). */
  unkey: [
    { requests: 1_000_000, dollars: 75 },
    { requests: 2_000_000, dollars: 100 },
    { requests: 10_000_000, dollars: 250 },
    { requests: 50_000_000, dollars: 500 },
    { requests: 100_000_000, dollars: 1000 },
    { requests: 400_000_000, dollars: 2250 },
  ],
};

/** DynamoDB's per-partition ceilings: a single item (a key) never splits across partitions. */
export const PARTITION = { rcuPerSecond: 3000, wcuPerSecond: 1000 };
/** Lambda gives a function one full vCPU at 1,769 MB, proportionally less below. */
const FULL_VCPU_MB = 1769;
const SECONDS_PER_MONTH = 30 * 24 * 3600;

export interface Mix {
  rps: number;
  workspaces: number;
  memberships: number;
  keys: number;
  authorizerMb: number;
  mcpMb: number;
  dynamoMs: number;
}

/** Read units and calls of one warm verification, as the verifier chooses them (lib/keys/rules.ts). */
export function verificationReads(workspaces: number, memberships: number) {
  const batch = MEASURED.keyItemRru + workspaces;
  // A Query reads the creator's memberships between the key's lowest and highest workspace id:
  // for N workspaces spread over M memberships, about M(N-1)/(N+1) of them.
  const spanned =
    workspaces < 2 ? 1 : Math.max(workspaces, (memberships * (workspaces - 1)) / (workspaces + 1));
  const queryUnits = Math.max(1, Math.ceil((spanned * MEASURED.membershipItemBytes) / 4096));
  const query = MEASURED.keyItemRru + queryUnits;
  const useQuery = workspaces >= QUERY_FROM_WORKSPACES && queryUnits < workspaces;
  return {
    strategy: useQuery ? 'GetItem + Query, sent together' : 'one BatchGetItem across both tables',
    calls: useQuery ? 2 : 1,
    rru: useQuery ? query : batch,
    /** Of those, read from the creator's memberships partition. */
    membershipRru: useQuery ? queryUnits : workspaces,
  };
}

const lambdaDollars = (calls: number, mb: number, cpuMs: number, waitMs: number) => {
  const billedMs = Math.ceil(cpuMs * Math.max(1, FULL_VCPU_MB / mb) + waitMs);
  return {
    billedMs,
    dollars:
      (calls / 1e6) * PRICES.lambdaPerMillionRequests +
      calls * (billedMs / 1000) * (mb / 1024) * PRICES.lambdaArmPerGbSecond,
  };
};

/** Dollars per million MCP calls, line by line, and the limits of the mix. */
export function model(mix: Mix) {
  const million = 1e6;
  const reads = verificationReads(mix.workspaces, mix.memberships);
  const authorizer = lambdaDollars(million, mix.authorizerMb, MEASURED.authorizerCpuMs, mix.dynamoMs);
  const mcp = lambdaDollars(million, mix.mcpMb, MEASURED.mcpCpuMs, 0);
  // The verification inside the MCP function instead: the authorizer's CPU and wait move there.
  const inProcessMcp = lambdaDollars(
    million,
    mix.mcpMb,
    MEASURED.mcpCpuMs + MEASURED.authorizerCpuMs,
    mix.dynamoMs,
  );
  // Before warm verification: a read by id, then the memberships by key (N+1 RRU, two waits).
  const before = lambdaDollars(million, mix.authorizerMb, MEASURED.authorizerCpuMs, 2 * mix.dynamoMs);
  const beforeReads = (MEASURED.keyItemRru + mix.workspaces) * PRICES.dynamoPerMillionRru;
  const concurrency = Math.max(1, Math.ceil((mix.rps * authorizer.billedMs) / 1000));
  // Each warm container records a key's use at most once a minute (a conditional write, billed
  // even when another container won the race): at most one write per key, container and minute.
  const useWritesPerSecond = Math.min(mix.rps, (mix.keys * concurrency) / 60);
  const writesPerMillion = (useWritesPerSecond / mix.rps) * million;
  const readDollars = (reads.rru * million * PRICES.dynamoPerMillionRru) / million;
  const writeDollars = (writesPerMillion * MEASURED.lastUseWru * PRICES.dynamoPerMillionWru) / million;
  // Usage (contract §18) is written at the same rate: one put per credential, container and minute.
  const usageDollars = (writesPerMillion * MEASURED.usageWru * PRICES.dynamoPerMillionWru) / million;
  const dynamo = readDollars + writeDollars + usageDollars;
  const monthly = mix.rps * SECONDS_PER_MONTH;
  const unkeyPlan = PRICES.unkey.find((p) => p.requests >= monthly);
  return {
    reads,
    lines: {
      'API Gateway REST API': PRICES.restApiPerMillion,
      'API Gateway HTTP API': PRICES.httpApiPerMillion,
      [`key authorizer (${mix.authorizerMb} MB, ${authorizer.billedMs} ms billed)`]: authorizer.dollars,
      [`MCP function (${mix.mcpMb} MB, ${mcp.billedMs} ms billed)`]: mcp.dollars,
      [`DynamoDB reads (${reads.rru} RRU per call)`]: readDollars,
      [`DynamoDB last-use writes (${Math.round(writesPerMillion)} per million calls)`]: writeDollars,
      [`DynamoDB usage writes (${Math.round(writesPerMillion)} per million calls, ${MEASURED.usageWru} WRU each)`]:
        usageDollars,
    },
    totals: {
      'behind a REST API (the reference endpoint)':
        PRICES.restApiPerMillion + authorizer.dollars + mcp.dollars + dynamo,
      'behind an HTTP API': PRICES.httpApiPerMillion + authorizer.dollars + mcp.dollars + dynamo,
      [`verified in-process, behind an HTTP API (MCP function ${inProcessMcp.billedMs} ms billed)`]:
        PRICES.httpApiPerMillion + inProcessMcp.dollars + dynamo,
      'verification alone: authorizer + DynamoDB': authorizer.dollars + dynamo,
      [`verification alone before warm verification (${MEASURED.keyItemRru + mix.workspaces} RRU, two reads in turn)`]:
        before.dollars + beforeReads + writeDollars + usageDollars,
      // What the plan that covers this volume costs, per million calls actually made.
      [`Unkey (its plan for this volume: ${unkeyPlan ? `$${unkeyPlan.dollars} for ${unkeyPlan.requests / 1e6}M a month` : 'quoted'})`]:
        unkeyPlan ? (unkeyPlan.dollars / monthly) * million : Number.NaN,
    },
    monthlyCalls: monthly,
    limits: {
      concurrency,
      hotKeyVerificationsPerSecond: PARTITION.rcuPerSecond / MEASURED.keyItemRru,
      hotUserVerificationsPerSecond: Math.floor(PARTITION.rcuPerSecond / reads.membershipRru),
      useWritesPerSecond,
    },
  };
}

function main() {
  const { values } = parseArgs({
    options: {
      rps: { type: 'string', default: '100' },
      workspaces: { type: 'string', default: '1' },
      memberships: { type: 'string' },
      keys: { type: 'string', default: '1000' },
      'authorizer-mb': { type: 'string', default: '256' },
      'mcp-mb': { type: 'string', default: '256' },
      'dynamo-ms': { type: 'string', default: '4' },
    },
  });
  const workspaces = Number(values.workspaces);
  const mix: Mix = {
    rps: Number(values.rps),
    workspaces,
    memberships: Number(values.memberships ?? Math.max(workspaces, 20)),
    keys: Number(values.keys),
    authorizerMb: Number(values['authorizer-mb']),
    mcpMb: Number(values['mcp-mb']),
    dynamoMs: Number(values['dynamo-ms']),
  };
  if (Object.values(mix).some((v) => !Number.isFinite(v) || v <= 0))
    throw new Error('every option must be a positive number');
  const m = model(mix);
  const usd = (n: number) => (Number.isNaN(n) ? '-' : `$${n.toFixed(2)}`);
  const rows = (o: Record<string, number>) =>
    Object.entries(o).map(([k, v]) => `| ${k} | ${usd(v)} | ${usd((v * m.monthlyCalls) / 1e6)} |`);
  console.log(
    [
      `Mix: ${mix.rps} MCP calls/s (${(m.monthlyCalls / 1e6).toFixed(0)}M a month), keys with ${mix.workspaces} workspace(s), creators with ${mix.memberships} memberships, ${mix.keys} active keys; DynamoDB wait ${mix.dynamoMs} ms (assumed).`,
      `Warm verification: ${m.reads.strategy}, ${m.reads.calls} call(s), ${m.reads.rru} RRU.`,
      '',
      '| line | per million calls | per month |',
      '|---|---|---|',
      ...rows(m.lines),
      '',
      '| total | per million calls | per month |',
      '|---|---|---|',
      ...rows(m.totals),
      '',
      `Authorizer concurrency: about ${m.limits.concurrency}. Last-use writes: ${m.limits.useWritesPerSecond.toFixed(1)}/s.`,
      `One hot key: at most ${m.limits.hotKeyVerificationsPerSecond.toLocaleString('en-US')} verifications/s (its item's partition, ${PARTITION.rcuPerSecond.toLocaleString('en-US')} RCU/s).`,
      `One hot user: at most ${m.limits.hotUserVerificationsPerSecond.toLocaleString('en-US')} verifications/s across their keys (${m.reads.membershipRru} RRU per verification from their memberships partition).`,
    ].join('\n'),
  );
}

if (process.argv[1] && import.meta.filename === process.argv[1]) main();
