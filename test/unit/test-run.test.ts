import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('a test run', () => {
  it('keeps its temporary files in one directory of its own, which vitest.config.ts removes at exit', () => {
    expect(basename(tmpdir())).toMatch(/^svc-test-run-[A-Za-z0-9]{6}$/);
    // Made once per run: vitest loads its config more than once, and a directory made at each
    // load nested the run's sockets past the length a Unix socket's path may have.
    expect(basename(dirname(tmpdir()))).not.toMatch(/^svc-test-run-/);
    expect(process.env.SVC_TEST_RUN_TMP).toBe(tmpdir());
  });
});
