import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildApp } from '#infra/build-app';
import { SKIP_BUNDLING, SYNTH_VARIANTS, type SynthVariant } from './synthesized.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cloud assembly directory of each app the infra tier shares (no bundling). */
    synthDirs: Record<SynthVariant, string>;
  }
}

/**
 * The infra tier's synth, once per run, in vitest's main process before any test file starts:
 * each shared app checked by cdk-nag and the guard rules as `npm run synth` checks it (a finding
 * fails the run here, with its message). Test files read the templates instead of synthesizing
 * the same app in a hook; only a test of one more setting synthesizes its own variant.
 */
export default function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'svc-synth-'));
  const previous = process.env.CDK_OUTDIR;
  const dirs = {} as Record<SynthVariant, string>;
  try {
    for (const [variant, settings] of Object.entries(SYNTH_VARIANTS)) {
      const dir = join(root, variant);
      process.env.CDK_OUTDIR = dir;
      buildApp({ context: SKIP_BUNDLING, settings }).app.synth();
      dirs[variant as SynthVariant] = dir;
    }
  } finally {
    if (previous === undefined) delete process.env.CDK_OUTDIR;
    else process.env.CDK_OUTDIR = previous;
  }
  project.provide('synthDirs', dirs);
  return () => rmSync(root, { recursive: true, force: true });
}
