// zod/mini: the same validation as zod in a bundle small enough for the key authorizer's cold start.
import * as z from 'zod/mini';
import { LIFECYCLE_SETTINGS, SETTING_ENV, type SettingBounds, type Settings } from './limits.ts';

export type { Settings } from './limits.ts';

// zod/mini has no built-in messages: each check says what it wants.
const int = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .check(
      z.int({ error: 'must be an integer' }),
      z.minimum(min, { error: `must be at least ${min}` }),
      z.maximum(max, { error: `must be at most ${max}` }),
    );
const intSetting = (b: SettingBounds) => z._default(int(b.min, b.max), b.default);
const text = (min: number) =>
  z
    .string({ error: 'is required' })
    .check(z.minLength(min, { error: `must have at least ${min} characters` }));

/** Lifecycle limits that are deployment settings (contract §5). */
export const SettingsSchema = z
  .object({
    [SETTING_ENV.defaultExpiryDays]: intSetting(LIFECYCLE_SETTINGS.defaultExpiryDays),
    [SETTING_ENV.maxExpiryDays]: intSetting(LIFECYCLE_SETTINGS.maxExpiryDays),
    [SETTING_ENV.maxActiveKeys]: intSetting(LIFECYCLE_SETTINGS.maxActiveKeys),
    [SETTING_ENV.retentionDays]: intSetting(LIFECYCLE_SETTINGS.retentionDays),
  })
  .check(
    z.refine((s) => s.DEFAULT_EXPIRY_DAYS <= s.MAX_EXPIRY_DAYS, {
      message: 'DEFAULT_EXPIRY_DAYS must not exceed MAX_EXPIRY_DAYS',
    }),
  );

const EnvSchema = z
  .object({
    KEYS_TABLE_NAME: text(3),
    MEMBERSHIPS_TABLE_NAME: text(3),
    /** KMS HMAC_256 key holding the pepper; when absent, PEPPER_DIR must name a local directory. */
    PEPPER_KMS_KEY_ID: z.optional(text(1)),
    PEPPER_DIR: z.optional(text(1)),
    PEPPER_VERSION: z._default(int(1, 1000), 1),
    /** Only for local mode and tests: DynamoDB Local's address. */
    DYNAMODB_ENDPOINT: z.optional(z.url({ error: 'must be a URL' })),
    AWS_REGION: z._default(z.string(), 'us-east-1'),
  })
  .check(
    z.refine((e) => e.PEPPER_KMS_KEY_ID !== undefined || e.PEPPER_DIR !== undefined, {
      message: 'either PEPPER_KMS_KEY_ID or PEPPER_DIR must be set',
    }),
  );

export interface Config {
  keysTableName: string;
  membershipsTableName: string;
  pepper: { kind: 'kms'; keyId: string; version: number } | { kind: 'local'; dir: string; version: number };
  dynamodbEndpoint: string | undefined;
  region: string;
  settings: Settings;
  /** Origins allowed to call the MCP endpoint (`MCP_ALLOWED_ORIGINS`). */
  mcpAllowedOrigins: string[];
}

/** The reference MCP function's configuration: all it reads, since it reads no table. */
export interface McpServerConfig {
  /** Origins (`scheme://host[:port]`) whose pages may call the endpoint. @default none */
  allowedOrigins: string[];
}

const isOrigin = (value: string): boolean => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};

/** `MCP_ALLOWED_ORIGINS`, comma-separated; throws on anything that is not an origin. */
export function parseMcpServerConfig(env: NodeJS.ProcessEnv): McpServerConfig {
  const origins = (env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const bad = origins.filter((o) => !isOrigin(o));
  if (bad.length > 0) {
    throw new Error(
      `invalid configuration: MCP_ALLOWED_ORIGINS: not an origin (scheme://host[:port]): ${bad.join(', ')}`,
    );
  }
  return { allowedOrigins: origins };
}

/** Parses the environment; throws with every problem listed so a bad deployment fails at cold start. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = EnvSchema.safeParse(env);
  const settings = SettingsSchema.safeParse(env);
  if (!parsed.success || !settings.success) {
    const issues = [...(parsed.error?.issues ?? []), ...(settings.error?.issues ?? [])];
    throw new Error(
      `invalid configuration: ${issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`).join('; ')}`,
    );
  }
  const e = parsed.data;
  const s = settings.data;
  return {
    keysTableName: e.KEYS_TABLE_NAME,
    membershipsTableName: e.MEMBERSHIPS_TABLE_NAME,
    pepper: e.PEPPER_KMS_KEY_ID
      ? { kind: 'kms', keyId: e.PEPPER_KMS_KEY_ID, version: e.PEPPER_VERSION }
      : { kind: 'local', dir: e.PEPPER_DIR as string, version: e.PEPPER_VERSION },
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    region: e.AWS_REGION,
    settings: {
      defaultExpiryDays: s.DEFAULT_EXPIRY_DAYS,
      maxExpiryDays: s.MAX_EXPIRY_DAYS,
      maxActiveKeys: s.MAX_ACTIVE_KEYS,
      retentionDays: s.RETENTION_DAYS,
    },
    mcpAllowedOrigins: parseMcpServerConfig(env).allowedOrigins,
  };
}

export interface PublisherConfig {
  eventBusName: string;
  region: string;
}

const PublisherEnvSchema = z.object({
  /** The EventBridge bus the stream consumer publishes to. */
  EVENT_BUS_NAME: text(1),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
});

/** The stream consumer's environment: it needs the bus and nothing of the keys or the pepper. */
export function parsePublisherConfig(env: NodeJS.ProcessEnv): PublisherConfig {
  const parsed = PublisherEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      `invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`).join('; ')}`,
    );
  }
  return { eventBusName: parsed.data.EVENT_BUS_NAME, region: parsed.data.AWS_REGION };
}
