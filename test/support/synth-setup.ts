import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { inBackground } from './background.ts';
import { GUARD_COMPARISON, SYNTH_RESULT, SYNTH_VARIANTS, type SynthVariant } from './synthesized.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cloud assembly directory of each app the infra tier shares (no bundling). */
    synthDirs: Record<SynthVariant, string>;
  }
}

/**
 * The infra tier's synth, once per run, in a process of its own started before any test file:
 * each shared app checked by cdk-nag and the guard rules as `npm run synth` checks it. Vitest runs
 * every project's global set-up before the first test file, so a synth done here would hold the
 * whole run back; in the background it overlaps the other tiers, and the infra files wait for it
 * (`synthesized`, which fails with the synth's own message: a finding fails every infra file).
 */
export default function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'svc-synth-'));
  const dirs = Object.fromEntries(Object.keys(SYNTH_VARIANTS).map((v) => [v, join(root, v)])) as Record<
    SynthVariant,
    string
  >;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'synth-run.ts'), JSON.stringify(dirs)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  inBackground(child.pid);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  // The script writes its result when it finishes; a crash before that is reported here.
  child.once('exit', (code, signal) => {
    const failed = JSON.stringify({ ok: false, message: `the synth exited (${signal ?? code}):\n${stderr}` });
    for (const dir of Object.values(dirs))
      if (!existsSync(join(dir, SYNTH_RESULT))) writeFileSync(join(dir, SYNTH_RESULT), failed);
    if (!existsSync(join(dirs.operations, GUARD_COMPARISON)))
      writeFileSync(join(dirs.operations, GUARD_COMPARISON), failed);
  });
  project.provide('synthDirs', dirs);
  return () => {
    // A run that ends before the synth does (one infra file alone) has no one left to tell.
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  };
}
