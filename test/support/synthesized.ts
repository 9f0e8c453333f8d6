import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { STACK_NAMES } from '#infra/build-app';
import type { DeploymentSettingsInput } from '#infra/settings';

/** The settings the infra tier synthesizes with (`npm run synth`'s). */
export const DEFAULT_SYNTH_SETTINGS = {
  jwtIssuer: 'https://login.example.com/',
  jwtAudience: 'svc-dashboard',
  corsOrigins: 'https://dash.example.com',
};

export const ALARM_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:platform-oncall';
export const KEY_ADMINS = [
  'arn:aws:iam::123456789012:role/PlatformKeyAdmin',
  'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Admin_*',
];

/** OAuth on (contract §15): a consent page, and one more MCP server beside the reference endpoint. */
export const OAUTH_SETTINGS = {
  consentPageUrl: 'https://dash.example.com/mcp/consent',
  oauthResources: 'https://forms.example.com/mcp',
};

/**
 * The apps the infra tier synthesizes once per run: the defaults (OAuth off), and every operations
 * setting set with OAuth on, metadata documents off (one synth for all: none changes what the
 * others' tests read).
 */
export const SYNTH_VARIANTS = {
  defaults: DEFAULT_SYNTH_SETTINGS,
  operations: {
    ...DEFAULT_SYNTH_SETTINGS,
    alarmTopicArn: ALARM_TOPIC,
    keyAdministratorArns: KEY_ADMINS.join(','),
    pepperVersion: 3,
    logRetentionDays: 365,
    ...OAUTH_SETTINGS,
    oauthClientMetadataDocuments: false,
  },
} satisfies Record<string, Partial<DeploymentSettingsInput>>;

export type SynthVariant = keyof typeof SYNTH_VARIANTS;

/** Skips esbuild bundling: the artifact suite bundles for real, as `npm run synth` does. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

export interface ValidationReport {
  pluginReports: {
    pluginName: string;
    conclusion: string;
    violations: unknown[];
    suppressedViolations?: { acknowledgedId: string; reason: string; violatingConstructs: unknown[] }[];
  }[];
}

/** The file the background synth writes beside an app's templates when that app is done. */
export const SYNTH_RESULT = 'synth-result.json';
const SYNTH_WAIT_MS = 10 * 60_000;

/** The file, beside the OAuth-on app's templates, of the guard plugin's findings (and every rule's under soak). */
export const GUARD_COMPARISON = 'guard-comparison.json';
export type GuardComparison =
  | {
      ok: true;
      templatePaths: string[];
      /** Every bundled rule's findings: under `npm run test:soak` only. */
      all?: string[];
      ours: string[];
      severities: string[];
    }
  | { ok: false; message: string };

/** Waits for `file` in `dir`, written by the background synth, and reads it. */
async function written<T>(dir: string, file: string): Promise<T> {
  // Awaited at a test file's top level, where no vitest timeout applies: a deadline of its own,
  // sized for a busy 2-core machine (the synth takes some 30 s alone, a few minutes beside the run).
  const deadline = Date.now() + SYNTH_WAIT_MS;
  while (!existsSync(join(dir, file))) {
    if (Date.now() > deadline)
      throw new Error(`the infra tier's synth did not finish in ${SYNTH_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
}

/** The guard plugin's findings on the OAuth-on app beside every bundled rule's (test/support/synth-run.ts). */
export async function guardComparison() {
  const outcome = await written<GuardComparison>(inject('synthDirs').operations, GUARD_COMPARISON);
  if (!outcome.ok) throw new Error(`the guard comparison failed:\n${outcome.message}`);
  return outcome;
}

/**
 * One app of the run's synth (test/support/synth-setup.ts): its templates and validation report,
 * once the background synth has written them; a failed synth fails with its message.
 */
export async function synthesized(variant: SynthVariant) {
  const dir = inject('synthDirs')[variant];
  const outcome = await written<{ ok: boolean; message?: string }>(dir, SYNTH_RESULT);
  if (!outcome.ok) throw new Error(`the infra tier's synth failed:\n${outcome.message}`);
  const json = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));
  return {
    stateful: Template.fromJSON(json(`${STACK_NAMES.stateful}.template.json`)),
    stateless: Template.fromJSON(json(`${STACK_NAMES.stateless}.template.json`)),
    validationReport: json('validation-report.json') as ValidationReport,
  };
}
