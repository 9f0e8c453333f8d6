import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_TMP_VARIABLE, sweepStaleRunTmps } from '#test/support/run-tmp';

/** Above Linux's largest process id (2^22): no process has it. */
const NO_SUCH_PID = 4_194_305;

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A process that waits, as a run's JVM or local service does, with its run's directory in its environment. */
async function runProcess(runTmp: string | undefined) {
  const env = { ...process.env };
  if (runTmp !== undefined) env[RUN_TMP_VARIABLE] = runTmp;
  const child = spawn('sleep', ['60'], { env, stdio: 'ignore' });
  started.push(child);
  await once(child, 'spawn');
  return child;
}

describe.runIf(process.platform === 'linux')('the next test run', () => {
  it('kills what a run killed outright left running, and nothing of a run still going', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'sweep-'));
    try {
      const name = `svc-test-run-${NO_SUCH_PID}-aB3dE6`;
      mkdirSync(join(parent, name));
      const left = await runProcess(join(parent, name));
      const ours = await runProcess(undefined); // this run's: its directory is not stale
      const exited = once(left, 'exit');
      expect(sweepStaleRunTmps(parent)).toEqual({ removed: [name], killed: [left.pid] });
      expect(await exited).toEqual([null, 'SIGKILL']);
      expect(ours.exitCode).toBeNull();
      expect(ours.signalCode).toBeNull();
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
