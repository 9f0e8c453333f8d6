import type { Node } from 'constructs';
import { z } from 'zod';
import { LIFECYCLE_SETTINGS, type SettingBounds } from '#lib/limits';

const csv = z.union([
  z.array(z.string()),
  z.string().transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ),
]);
const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const lifecycle = (b: SettingBounds) => int(b.default, b.min, b.max);

/** Deployment settings (contract §9), from CDK context (`-c name=value`) or props. */
export const DeploymentSettingsSchema = z
  .object({
    /** Issuer of the user JWTs (the `iss` claim), an https URL. Required. */
    jwtIssuer: z.url({ protocol: /^https$/, error: 'jwtIssuer must be an https URL' }),
    /** Accepted `aud` values of the user JWTs. Required. */
    jwtAudience: csv.pipe(z.array(z.string().min(1)).min(1, 'jwtAudience must name at least one audience')),
    /** Dashboard origins allowed by CORS. @default none (no CORS) */
    corsOrigins: csv.pipe(z.array(z.url({ error: 'each CORS origin must be a URL' }))).default([]),
    /** Key lifetime when a request names none. @default 30 (lib/limits.ts) */
    defaultExpiryDays: lifecycle(LIFECYCLE_SETTINGS.defaultExpiryDays),
    /** @default 90 (lib/limits.ts) */
    maxExpiryDays: lifecycle(LIFECYCLE_SETTINGS.maxExpiryDays),
    /** Active keys per user. @default 50 (lib/limits.ts) */
    maxActiveKeys: lifecycle(LIFECYCLE_SETTINGS.maxActiveKeys),
    /** Days a revoked or expired key is kept before DynamoDB TTL removes it. @default 90 (lib/limits.ts) */
    retentionDays: lifecycle(LIFECYCLE_SETTINGS.retentionDays),
    /** Days Lambda and access logs are kept. @default 30 */
    logRetentionDays: int(30, 1, 3653),
    /** Import the form service's memberships table by name; unset creates one. @default none */
    membershipsTableName: z.string().min(3).max(255).optional(),
    /** Stage throttling: steady requests per second and burst. @default 50 / 100 */
    throttleRate: int(50, 1, 100_000),
    throttleBurst: int(100, 1, 100_000),
    /** Origins whose pages may call the MCP endpoint; other `Origin`s get 403. @default none */
    mcpAllowedOrigins: csv
      .pipe(
        z.array(
          z.url().refine((u) => new URL(u).origin === u, 'each MCP origin must be scheme://host[:port]'),
        ),
      )
      .default([]),
  })
  .refine((s) => s.defaultExpiryDays <= s.maxExpiryDays, {
    message: 'defaultExpiryDays must not exceed maxExpiryDays',
    path: ['defaultExpiryDays'],
  });

export type DeploymentSettings = z.output<typeof DeploymentSettingsSchema>;
export type DeploymentSettingsInput = z.input<typeof DeploymentSettingsSchema>;

const CONTEXT_KEYS = [
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
  'mcpAllowedOrigins',
] as const;

/** Validates settings, naming every problem; throws so a bad deployment fails at synth. */
export function parseSettings(input: Record<string, unknown>): DeploymentSettings {
  const out = DeploymentSettingsSchema.safeParse(input);
  if (!out.success) {
    throw new Error(
      `invalid deployment settings: ${out.error.issues.map((i) => `${i.path.join('.') || '(settings)'}: ${i.message}`).join('; ')}`,
    );
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
