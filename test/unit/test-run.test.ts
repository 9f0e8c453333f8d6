import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepStaleRunTmps } from '#test/support/run-tmp';

/** Above Linux's largest process id (2^22): no process has it. */
const NO_SUCH_PID = 4_194_305;

describe('a test run', () => {
  it('keeps its temporary files in one directory of its own, which vitest.config.ts removes at exit', () => {
    // Named after the run's process (the workers' parent), so the next run can tell it is gone.
    expect(basename(tmpdir())).toMatch(new RegExp(`^svc-test-run-${process.ppid}-[A-Za-z0-9]{6}$`));
    // Made once per run: vitest loads its config more than once, and a directory made at each
    // load nested the run's sockets past the length a Unix socket's path may have.
    expect(basename(dirname(tmpdir()))).not.toMatch(/^svc-test-run-/);
    expect(process.env.SVC_TEST_RUN_TMP).toBe(tmpdir());
  });

  it('removes the directories of runs killed outright, and only those', () => {
    const parent = mkdtempSync(join(tmpdir(), 'sweep-'));
    try {
      const names = [
        `svc-test-run-${NO_SUCH_PID}-aB3dE6`, // its run is gone
        `svc-test-run-${process.pid}-aB3dE6`, // its run is this one
        'svc-test-run-aB3dE6', // no process id: an older run's, left alone
        `svc-test-run-${NO_SUCH_PID}-aB3dE6-x`, // not a run's name
        'other',
      ];
      for (const name of names) mkdirSync(join(parent, name));
      expect(sweepStaleRunTmps(parent)).toEqual({
        removed: [`svc-test-run-${NO_SUCH_PID}-aB3dE6`],
        killed: [],
      });
      expect(readdirSync(parent).sort()).toEqual(names.slice(1).sort());
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
