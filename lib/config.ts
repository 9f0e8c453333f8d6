import { GITHUB_PUBLIC_KEYS_URL } from './leaks/github-keys.ts';
import { LIFECYCLE_SETTINGS, SETTING_ENV, type SettingBounds, type Settings } from './limits.ts';
import { toOrigin } from './origin.ts';

export type { Settings } from './limits.ts';

/**
 * The functions' environment, parsed once at cold start: every problem is listed and a bad
 * deployment fails before serving. A handful of string and integer rules, so they are written
 * here rather than with a schema library: every function loads this module, the key authorizer's
 * cold start included (a schema library weighed 22 KB of its bundle).
 */

type Rule<T> = (raw: string | undefined) => { value: T } | { error: string };

const text =
  (min: number): Rule<string> =>
  (raw) =>
    raw === undefined
      ? { error: 'is required' }
      : raw.length < min
        ? { error: `must have at least ${min} characters` }
        : { value: raw };

const optional =
  <T>(rule: Rule<T>): Rule<T | undefined> =>
  (raw) =>
    raw === undefined ? { value: undefined } : rule(raw);

const int =
  (min: number, max: number, fallback: number): Rule<number> =>
  (raw) => {
    if (raw === undefined) return { value: fallback };
    const n = Number(raw.trim());
    if (raw.trim() === '' || Number.isNaN(n)) return { error: 'must be a number' };
    if (!Number.isInteger(n)) return { error: 'must be an integer' };
    if (n < min) return { error: `must be at least ${min}` };
    if (n > max) return { error: `must be at most ${max}` };
    return { value: n };
  };

const url: Rule<string> = (raw) => {
  if (raw === undefined) return { error: 'is required' };
  return URL.canParse(raw) ? { value: raw } : { error: 'must be a URL' };
};

const setting = (b: SettingBounds) => int(b.min, b.max, b.default);

/** Reads each variable with its rule, collecting every problem. */
function read<R extends Record<string, Rule<unknown>>>(
  env: NodeJS.ProcessEnv,
  rules: R,
  problems: string[],
): { [K in keyof R]: R[K] extends Rule<infer T> ? T : never } {
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    const result = rule(env[name]);
    if ('error' in result) problems.push(`${name}: ${result.error}`);
    else out[name] = result.value;
  }
  return out as { [K in keyof R]: R[K] extends Rule<infer T> ? T : never };
}

const ENV = {
  KEYS_TABLE_NAME: text(3),
  MEMBERSHIPS_TABLE_NAME: text(3),
  /** KMS HMAC_256 key holding the pepper; when absent, PEPPER_DIR must name a local directory. */
  PEPPER_KMS_KEY_ID: optional(text(1)),
  PEPPER_DIR: optional(text(1)),
  PEPPER_VERSION: int(1, 1000, 1),
  /** The key page people are sent to when a client tried OAuth (`keysPageUrl` setting). */
  KEYS_PAGE_URL: optional(url),
  /** Only for local mode and tests: DynamoDB Local's address. */
  DYNAMODB_ENDPOINT: optional(url),
  AWS_REGION: (raw: string | undefined) => ({ value: raw ?? 'us-east-1' }),
};

/** Lifecycle limits that are deployment settings (contract §5). */
const SETTINGS = {
  [SETTING_ENV.defaultExpiryDays]: setting(LIFECYCLE_SETTINGS.defaultExpiryDays),
  [SETTING_ENV.maxExpiryDays]: setting(LIFECYCLE_SETTINGS.maxExpiryDays),
  [SETTING_ENV.maxActiveKeys]: setting(LIFECYCLE_SETTINGS.maxActiveKeys),
  [SETTING_ENV.retentionDays]: setting(LIFECYCLE_SETTINGS.retentionDays),
};

export interface Config {
  keysTableName: string;
  membershipsTableName: string;
  pepper: { kind: 'kms'; keyId: string; version: number } | { kind: 'local'; dir: string; version: number };
  dynamodbEndpoint: string | undefined;
  region: string;
  settings: Settings;
  /** Origins allowed to call the MCP endpoint (`MCP_ALLOWED_ORIGINS`). */
  mcpAllowedOrigins: string[];
  /** Where GitHub's secret scanning keys are fetched from (`GITHUB_PUBLIC_KEYS_URL`). @default GitHub's own URL */
  githubPublicKeysUrl?: string;
  /** Where people create or rotate keys (`KEYS_PAGE_URL`). @default none (local mode: its own `/`) */
  keysPageUrl?: string | undefined;
}

/** The reference MCP function's configuration: all it reads, since it reads no table. */
export interface McpServerConfig {
  /** Origins (`scheme://host[:port]`) whose pages may call the endpoint. @default none */
  allowedOrigins: string[];
}

/** `MCP_ALLOWED_ORIGINS`, comma-separated; throws on anything that is not an origin. */
export function parseMcpServerConfig(env: NodeJS.ProcessEnv): McpServerConfig {
  const origins = (env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  // Each exactly as a browser sends it: the deployment passes them normalised.
  const bad = origins.filter((o) => toOrigin(o) !== o);
  if (bad.length > 0) {
    throw new Error(
      `invalid configuration: MCP_ALLOWED_ORIGINS: not an origin (scheme://host[:port]): ${bad.join(', ')}`,
    );
  }
  return { allowedOrigins: origins };
}

/** Parses the environment; throws with every problem listed so a bad deployment fails at cold start. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const problems: string[] = [];
  const e = read(env, ENV, problems);
  const s = read(env, SETTINGS, problems);
  if (env.PEPPER_KMS_KEY_ID === undefined && env.PEPPER_DIR === undefined)
    problems.push('(env): either PEPPER_KMS_KEY_ID or PEPPER_DIR must be set');
  if (s.DEFAULT_EXPIRY_DAYS > s.MAX_EXPIRY_DAYS)
    problems.push('(env): DEFAULT_EXPIRY_DAYS must not exceed MAX_EXPIRY_DAYS');
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
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
    githubPublicKeysUrl: env.GITHUB_PUBLIC_KEYS_URL || GITHUB_PUBLIC_KEYS_URL,
    keysPageUrl: e.KEYS_PAGE_URL,
  };
}

export interface PublisherConfig {
  eventBusName: string;
  region: string;
}

const PUBLISHER_ENV = {
  /** The EventBridge bus the stream consumer publishes to. */
  EVENT_BUS_NAME: text(1),
  AWS_REGION: (raw: string | undefined) => ({ value: raw ?? 'us-east-1' }),
};

/** The stream consumer's environment: it needs the bus and nothing of the keys or the pepper. */
export function parsePublisherConfig(env: NodeJS.ProcessEnv): PublisherConfig {
  const problems: string[] = [];
  const e = read(env, PUBLISHER_ENV, problems);
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return { eventBusName: e.EVENT_BUS_NAME, region: e.AWS_REGION };
}
