import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '#infra/local/lock';

/**
 * A test run's temporary directory (vitest.config.ts): `svc-test-run-<pid>-<random>`, named
 * after the run's process so that the next run can tell a directory left by a run that was killed
 * outright (SIGKILL: no exit handler ran) from one whose run is still going.
 */
const RUN_TMP_PREFIX = 'svc-test-run-';
const RUN_TMP_NAME = new RegExp(`^${RUN_TMP_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`);

/** Makes this process's run directory under `parent`, first removing those of runs now gone. */
export function makeRunTmp(parent: string): string {
  sweepStaleRunTmps(parent);
  return mkdtempSync(join(parent, `${RUN_TMP_PREFIX}${process.pid}-`));
}

/**
 * Removes the run directories under `parent` whose process no longer exists; returns their
 * names. A directory without a process id in its name is left alone, as is one whose process id
 * now belongs to another process (kept on the safe side).
 */
export function sweepStaleRunTmps(parent: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    const pid = RUN_TMP_NAME.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
