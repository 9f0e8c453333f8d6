import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { inBackground } from './background.ts';
import { PACK_EXIT } from './packed.ts';

/**
 * The package tier's build, `npm pack`, consumer installs and their type-checks, once per run, in
 * a process of its own (test/support/pack-run.ts) started before any test file: Vitest runs every
 * project's global set-up before the first test file, and the package tier's files come last in
 * the run (its group in vitest.config.ts), so in the background, at a lower priority, this
 * overlaps the other tiers and the package files find their projects installed. They wait for it
 * (`packed`, which fails with the set-up's own message).
 */
export default function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'svc-package-'));
  // A process group of its own: the teardown stops npm's children with it.
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'pack-run.ts'), root], {
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  inBackground(child.pid);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  // The script writes its results as it goes; the files waiting for one it never wrote (a crash)
  // learn it from this, with its stderr.
  let stopping = false;
  child.once('close', (code, signal) => {
    if (!stopping) writeFileSync(join(root, PACK_EXIT), JSON.stringify({ exit: signal ?? code, stderr }));
  });
  project.provide('packDir', root);
  return () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
}
