import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '#infra/build-app';
import { SKIP_BUNDLING, SYNTH_RESULT, SYNTH_VARIANTS, type SynthVariant } from './synthesized.ts';

/**
 * Synthesizes each shared app of the infra tier into the directory it is given (the argument: a
 * JSON object of variant → directory), then writes `SYNTH_RESULT` beside its templates: what
 * `synthesized` waits for. Started by test/support/synth-setup.ts.
 */
const dirs = JSON.parse(process.argv[2] as string) as Record<SynthVariant, string>;

function done(dir: string, result: { ok: true } | { ok: false; message: string }) {
  mkdirSync(dir, { recursive: true });
  // Written whole, then renamed: a reader never sees half of it.
  writeFileSync(join(dir, `${SYNTH_RESULT}.tmp`), JSON.stringify(result));
  renameSync(join(dir, `${SYNTH_RESULT}.tmp`), join(dir, SYNTH_RESULT));
}

for (const [variant, settings] of Object.entries(SYNTH_VARIANTS)) {
  const dir = dirs[variant as SynthVariant];
  process.env.CDK_OUTDIR = dir;
  try {
    buildApp({ context: SKIP_BUNDLING, settings }).app.synth();
    done(dir, { ok: true });
  } catch (err) {
    done(dir, { ok: false, message: (err as Error).stack ?? String(err) });
  }
}
