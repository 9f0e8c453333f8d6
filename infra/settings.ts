import type { Node } from 'constructs';
import { z } from 'zod';
import { lifecycleSetting as lifecycle, originList, pepperVersion, wholeNumber } from '#lib/config-rules';
import { GITHUB_PUBLIC_KEYS_URL } from '#lib/leaks/github-keys';
import { LEAK_LIMITS, LIFECYCLE_SETTINGS } from '#lib/limits';
import { toOrigin } from '#lib/origin';

/** A comma-separated context value (`-c name=a,b`) or an array (props), trimmed, empties dropped. */
const csv = <T extends z.ZodType>(item: T, what: string) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : v,
    z.array(item, {
      error: (iss) => (iss.input === undefined ? `is required (${what})` : `must be ${what}`),
    }),
  );

const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
/** An IAM role or user ARN; `*` is allowed in the name (IAM Identity Center roles end in a random suffix). */
const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/*-]+$/;
const accountOf = (arn: string) => arn.split(':')[4];

/** Deployment settings (contract §9), from CDK context (`-c name=value`) or props. */
export const DeploymentSettingsSchema = z
  .object({
    /** Issuer of the user JWTs (the `iss` claim), an https URL. Required. */
    jwtIssuer: z.url({
      protocol: /^https$/,
      error: (iss) => (iss.input === undefined ? 'is required (an https URL)' : 'must be an https URL'),
    }),
    /** Accepted `aud` values of the user JWTs. Required. */
    jwtAudience: csv(z.string().min(1), 'a comma-separated list of audiences').pipe(
      z.array(z.string()).min(1, 'must name at least one audience'),
    ),
    /** Dashboard origins allowed by CORS (scheme://host[:port]). @default none (no CORS) */
    corsOrigins: csv(
      z
        .string()
        .refine((u) => toOrigin(u) !== undefined, 'each CORS origin must be scheme://host[:port]')
        .transform((u) => toOrigin(u) as string),
      'a comma-separated list of origins (scheme://host[:port])',
    ).default([]),
    /** Key lifetime when a request names none. @default 30 (lib/limits.ts) */
    defaultExpiryDays: lifecycle(LIFECYCLE_SETTINGS.defaultExpiryDays),
    /** @default 90 (lib/limits.ts) */
    maxExpiryDays: lifecycle(LIFECYCLE_SETTINGS.maxExpiryDays),
    /** Active keys per user. @default 50 (lib/limits.ts) */
    maxActiveKeys: lifecycle(LIFECYCLE_SETTINGS.maxActiveKeys),
    /** Days a revoked or expired key is kept before DynamoDB TTL removes it. @default 90 (lib/limits.ts) */
    retentionDays: lifecycle(LIFECYCLE_SETTINGS.retentionDays),
    /** Days Lambda and API access logs are kept (rounded up to a value CloudWatch Logs offers). @default 30 */
    logRetentionDays: wholeNumber(1, 3653, 30),
    /** Import the form service's memberships table by name; unset creates one. @default none */
    membershipsTableName: z.string().min(3).max(255).optional(),
    /** Stage throttling: steady requests per second and burst. @default 50 / 100 */
    throttleRate: wholeNumber(1, 100_000, 50),
    throttleBurst: wholeNumber(1, 100_000, 100),
    /** Each leak route's own throttling (contract §11): steady requests per second and burst. @default 5 / 10 */
    leakReportRate: wholeNumber(1, 10_000, LEAK_LIMITS.throttle.rate),
    leakReportBurst: wholeNumber(1, 10_000, LEAK_LIMITS.throttle.burst),
    /** Where GitHub's secret scanning public keys are fetched from. @default GitHub's URL */
    githubPublicKeysUrl: z
      .url({ protocol: /^https$/, error: 'githubPublicKeysUrl must be an https URL' })
      .default(GITHUB_PUBLIC_KEYS_URL),
    /**
     * The key page (create, rotate). When set, the MCP endpoint's REST API answers the OAuth
     * registration fallback `POST /register` with a refusal naming it; clients register at the
     * origin's root, so this reaches them only through a custom domain mapped at the API's root,
     * never through the default `execute-api` URL. @default none
     */
    keysPageUrl: z
      .url({ protocol: /^https$/, error: 'keysPageUrl must be an https URL' })
      .refine((u) => !/[$#]/.test(u), 'keysPageUrl cannot hold $ or #')
      .optional(),
    /** Origins whose pages may call the MCP endpoint; other `Origin`s get 403. @default none */
    mcpAllowedOrigins: originList('a comma-separated list of origins (scheme://host[:port])'),
    /**
     * SNS topic every alarm notifies (on ALARM and on OK). Unset creates one, whose ARN is the
     * stateless stack's `AlarmTopicArn` output. @default none (a topic is created)
     */
    alarmTopicArn: z
      .string()
      .regex(SNS_TOPIC_ARN, {
        error: 'must be the ARN of a standard SNS topic (arn:aws:sns:<region>:<account>:<name>; not FIFO)',
      })
      .optional(),
    /**
     * IAM roles or users (same account) who administer the pepper key; none of them may use it.
     * The CDK deployment role is always added so that deployments can update the key policy.
     * @default none (any IAM principal of the account allowed to by IAM may administer it)
     */
    keyAdministratorArns: csv(
      z
        .string()
        .regex(IAM_PRINCIPAL_ARN, { error: 'each key administrator must be an IAM role or user ARN' }),
      'a comma-separated list of IAM role or user ARNs',
    )
      .default([])
      .refine((arns) => new Set(arns.map(accountOf)).size <= 1, {
        error: 'key administrators must all be in one account (the account of the deployment)',
      }),
    /**
     * Pepper version for new keys (`PEPPER_VERSION`); existing keys keep verifying with the version
     * stored with them. Raise it to rotate the pepper (docs/operations.md). @default 1
     */
    pepperVersion: pepperVersion(),
  })
  .refine((s) => s.defaultExpiryDays <= s.maxExpiryDays, {
    message: 'must not exceed maxExpiryDays',
    path: ['defaultExpiryDays'],
    // Also when another setting failed, so that every problem is reported at once.
    when: (p) => {
      const v = p.value as Record<string, unknown>;
      return Number.isInteger(v.defaultExpiryDays) && Number.isInteger(v.maxExpiryDays);
    },
  });

export type DeploymentSettings = z.output<typeof DeploymentSettingsSchema>;
export type DeploymentSettingsInput = z.input<typeof DeploymentSettingsSchema>;

/** Every setting that may come from CDK context; a new setting is added here and to the schema. */
export const CONTEXT_KEYS = [
  'jwtIssuer',
  'jwtAudience',
  'corsOrigins',
  'defaultExpiryDays',
  'maxExpiryDays',
  'maxActiveKeys',
  'retentionDays',
  'logRetentionDays',
  'membershipsTableName',
  'throttleRate',
  'throttleBurst',
  'leakReportRate',
  'leakReportBurst',
  'githubPublicKeysUrl',
  'mcpAllowedOrigins',
  'keysPageUrl',
  'alarmTopicArn',
  'keyAdministratorArns',
  'pepperVersion',
] as const satisfies readonly (keyof DeploymentSettings)[];

/** Validates settings and names every problem, one line each; throws so a bad deployment fails at synth. */
export function parseSettings(input: Record<string, unknown>): DeploymentSettings {
  const out = DeploymentSettingsSchema.safeParse(input);
  if (!out.success) {
    const lines = out.error.issues.map((i) => `- ${i.path.join('.') || '(settings)'}: ${i.message}`);
    throw new Error(`invalid deployment settings:\n${lines.join('\n')}`);
  }
  return out.data;
}

/** Settings from CDK context, overridden by explicit props. */
export function settingsFromContext(
  node: Node,
  props: Partial<DeploymentSettingsInput> = {},
): DeploymentSettings {
  const fromContext: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const value = node.tryGetContext(key);
    if (value !== undefined) fromContext[key] = value;
  }
  return parseSettings({ ...fromContext, ...props });
}
