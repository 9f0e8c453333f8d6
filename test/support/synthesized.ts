import { readFileSync } from 'node:fs';
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
 * setting set with OAuth on (one synth for both: neither changes what the other's tests read).
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

/** One app of the run's synth (test/support/synth-setup.ts): its templates and validation report. */
export function synthesized(variant: SynthVariant) {
  const dir = inject('synthDirs')[variant];
  const json = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));
  return {
    stateful: Template.fromJSON(json(`${STACK_NAMES.stateful}.template.json`)),
    stateless: Template.fromJSON(json(`${STACK_NAMES.stateless}.template.json`)),
    validationReport: json('validation-report.json') as ValidationReport,
  };
}
