import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { IPolicyValidationContext, PolicyValidationPluginReport } from 'aws-cdk-lib';
import { buildApp, STACK_NAMES } from '#infra/build-app';
import { ControlTowerGuardRules } from '#infra/guard';
import { writeResult } from './result-file.ts';
import {
  GUARD_COMPARISON,
  type GuardComparison,
  SKIP_BUNDLING,
  SYNTH_RESULT,
  SYNTH_VARIANTS,
  type SynthVariant,
} from './synthesized.ts';

/**
 * Synthesizes each shared app of the infra tier into the directory it is given (the argument: a
 * JSON object of variant → directory), then writes `SYNTH_RESULT` beside its templates: what
 * `synthesized` waits for. Started by test/support/synth-setup.ts. Last, the guard plugin's findings
 * on the OAuth-on app (`GUARD_COMPARISON`, which test/infra/guard.test.ts reads) and, under
 * `npm run test:soak`, those of every bundled rule beside them: the full rule set takes some 20 s
 * of CPU, run here in the background rather than in a test.
 */
const dirs = JSON.parse(process.argv[2] as string) as Record<SynthVariant, string>;
/** `npm run test:soak` (test/support/soak.ts, which this process, outside Vitest, does not import). */
const SOAK = process.env.SOAK === '1';

const done = (dir: string, result: { ok: true } | { ok: false; message: string }) =>
  writeResult(dir, SYNTH_RESULT, result);

/** A report's findings, comparable: rule and resource, sorted. */
const findings = (report: PolicyValidationPluginReport) =>
  report.violations
    .flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} ${r.templatePath} ${r.resourceLogicalId}`))
    .sort();

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

const dir = dirs.operations;
try {
  const templatePaths = Object.values(STACK_NAMES).map((name) => join(dir, `${name}.template.json`));
  const context = { templatePaths } as IPolicyValidationContext;
  const ours = new ControlTowerGuardRules().validate(context);
  writeResult(dir, GUARD_COMPARISON, {
    ok: true,
    templatePaths,
    all: SOAK ? findings(new CfnGuardValidator().validate(context)) : undefined,
    ours: findings(ours),
    severities: [...new Set(ours.violations.map((v) => String(v.severity)))],
  } satisfies GuardComparison);
} catch (err) {
  writeResult(dir, GUARD_COMPARISON, { ok: false, message: (err as Error).stack ?? String(err) });
}
