import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '#infra/local/lock';

/**
 * A run's temporary directory (a test run's, vitest.config.ts, or a benchmark's, bench/):
 * `svc-test-run-<pid>-<random>`, named after the run's process so that the next run can tell a
 * directory left by a run that was killed outright (SIGKILL: no exit handler ran) from one whose
 * run is still going.
 */
const RUN_TMP_PREFIX = 'svc-test-run-';
/** The variable naming the run's directory; every process of the run inherits it. */
export const RUN_TMP_VARIABLE = 'SVC_TEST_RUN_TMP';
const RUN_TMP_NAME = new RegExp(`^${RUN_TMP_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`);

/**
 * Gives this process and everything it starts one temporary directory (`TMPDIR`), removed when it
 * exits; nothing when it has one already (vitest loads its config more than once).
 */
export function useRunTmp(): void {
  if (process.env[RUN_TMP_VARIABLE]) return;
  const runTmp = makeRunTmp(tmpdir());
  process.env[RUN_TMP_VARIABLE] = runTmp;
  process.env.TMPDIR = runTmp;
  process.on('exit', () => rmSync(runTmp, { recursive: true, force: true }));
}

/** Makes this process's run directory under `parent`, first removing those of runs now gone. */
function makeRunTmp(parent: string): string {
  sweepStaleRunTmps(parent);
  return mkdtempSync(join(parent, `${RUN_TMP_PREFIX}${process.pid}-`));
}

/**
 * Removes the run directories under `parent` whose process no longer exists, first killing the
 * processes such a run left (DynamoDB Local's JVM, local services, browsers: their environment
 * names the directory, RUN_TMP_VARIABLE); returns the directories' names and the processes killed.
 * A directory without a process id in its name is left alone, as is one whose process id now
 * belongs to another process (kept on the safe side).
 */
export function sweepStaleRunTmps(parent: string): { removed: string[]; killed: number[] } {
  const removed: string[] = [];
  const killed: number[] = [];
  for (const name of readdirSync(parent)) {
    const pid = RUN_TMP_NAME.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    const dir = join(parent, name);
    for (const left of processesOfRun(dir)) {
      try {
        process.kill(left, 'SIGKILL');
        killed.push(left);
      } catch {
        // gone meanwhile
      }
    }
    rmSync(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return { removed, killed };
}

/** The processes whose environment names `dir` as their run's directory (Linux: /proc). */
function processesOfRun(dir: string): number[] {
  if (process.platform !== 'linux') return [];
  const mark = `${RUN_TMP_VARIABLE}=${dir}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(mark);
      } catch {
        return false; // ended, or another user's
      }
    })
    .map(Number);
}
