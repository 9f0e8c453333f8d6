/**
 * `npm run bench` (`-- --json` for JSON): every figure next to a baseline measured in the same
 * run, on this machine, with AWS's DynamoDB Local where DynamoDB is involved. `-- --only <section>`
 * (repeatable, or comma-separated) runs some sections only: cpu, cold-start, verify, list, leaks,
 * governance, enterprise, management. `-- --smoke` runs them at a fiftieth of their length, targets not judged
 * (`npm run bench:smoke`, which CI runs after the tests).
 */

import { useRunTmp } from '#test/support/run-tmp';
import { coldStarts } from './cold-start.ts';
import { startContext } from './context.ts';
import { cpu } from './cpu.ts';
import { enterprise } from './enterprise.ts';
import { governance } from './governance.ts';
import { printTable, results, SMOKE } from './harness.ts';
import { githubReports } from './leaks.ts';
import { listScaling } from './list.ts';
import { management } from './management.ts';
import { toolsAndLimits } from './tools-limits.ts';
import { verification } from './verify.ts';

// Its temporary files (pepper files, the local service's data) in one directory, removed at exit;
// a run killed outright leaves it and its JVMs for the next run, of the bench or the tests, to clear.
useRunTmp();

const JSON_OUTPUT = process.argv.includes('--json');
const log = (line: string) => {
  if (!JSON_OUTPUT) console.error(line);
};

const SECTIONS = [
  'cpu',
  'cold-start',
  'verify',
  'tools-limits',
  'list',
  'leaks',
  'governance',
  'enterprise',
  'management',
] as const;
const only = process.argv.flatMap((arg, i) =>
  process.argv[i - 1] === '--only'
    ? arg.split(',')
    : arg.startsWith('--only=')
      ? arg.slice(7).split(',')
      : [],
);
const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length > 0)
  throw new Error(`unknown section ${unknown.join(', ')}; sections: ${SECTIONS.join(', ')}`);
const runs = (section: (typeof SECTIONS)[number]) => only.length === 0 || only.includes(section);

const started = performance.now();
if (runs('cpu')) await cpu(log);
if (
  ['cold-start', 'verify', 'tools-limits', 'list', 'leaks', 'governance', 'enterprise'].some((s) =>
    runs(s as (typeof SECTIONS)[number]),
  )
) {
  const ctx = await startContext();
  try {
    // First, on small tables: a function's first request is measured as a deployment with little
    // data serves it. After the sections below, the expiry sweep's first run would find thousands
    // of keys due and measure their notices, not a cold start.
    if (runs('cold-start')) await coldStarts(ctx, log);
    if (runs('verify')) await verification(ctx, log);
    if (runs('tools-limits')) await toolsAndLimits(ctx, log);
    if (runs('list')) await listScaling(ctx, log);
    if (runs('leaks')) await githubReports(ctx, log);
    if (runs('governance')) await governance(ctx, log);
    if (runs('enterprise')) await enterprise(ctx, log);
  } finally {
    await ctx.local.stop();
  }
}
if (runs('management')) await management(log);
const seconds = (performance.now() - started) / 1000;
if (JSON_OUTPUT) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const flags = [...(only.length > 0 ? [`--only ${only.join(',')}`] : []), ...(SMOKE ? ['--smoke'] : [])];
  const args = flags.length > 0 ? ` -- ${flags.join(' ')}` : '';
  console.log(
    `\nnpm run bench${args} (${new Date().toISOString()}, ${process.version}, ${seconds.toFixed(0)} s)\n`,
  );
  printTable(results);
  if (SMOKE) {
    console.log(`\nsmoke run: every section ran (${results.length} figures); none is a measurement`);
    process.exit(0);
  }
  const missed = results.filter((m) => m.met === false);
  console.log(
    missed.length === 0 ? '\nall targets met' : `\ntargets missed: ${missed.map((m) => m.name).join('; ')}`,
  );
}
