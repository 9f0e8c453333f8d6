import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('a test run', () => {
  it('keeps its temporary files in a directory of its own, which vitest.config.ts removes at exit', () => {
    expect(basename(tmpdir())).toMatch(/^svc-test-run-[A-Za-z0-9]{6}$/);
  });
});
