/**
 * `npm run bench` (`-- --json` for JSON): every figure next to a baseline measured in the same
 * run, on this machine, with AWS's DynamoDB Local where DynamoDB is involved.
 */
import { coldStarts } from './cold-start.ts';
import { startContext } from './context.ts';
import { cpu } from './cpu.ts';
import { governance } from './governance.ts';
import { printTable, results } from './harness.ts';
import { githubReports } from './leaks.ts';
import { listScaling } from './list.ts';
import { management } from './management.ts';
import { verification } from './verify.ts';

const JSON_OUTPUT = process.argv.includes('--json');
const log = (line: string) => {
  if (!JSON_OUTPUT) console.error(line);
};

const started = performance.now();
await cpu(log);
const ctx = await startContext();
try {
  // First, on small tables: a function's first request is measured as a deployment with little
  // data serves it. After the sections below, the expiry sweep's first run would find thousands
  // of keys due and measure their notices, not a cold start.
  await coldStarts(ctx, log);
  await verification(ctx, log);
  await listScaling(ctx, log);
  await githubReports(ctx, log);
  await governance(ctx, log);
} finally {
  await ctx.local.stop();
}
await management(log);
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
