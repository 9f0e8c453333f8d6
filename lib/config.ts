import * as z from 'zod/mini';
import { lifecycleSetting, originList, pepperVersion, problemsOf, text, url } from './config-rules.ts';
import { LIFECYCLE_SETTINGS, SETTING_ENV, type Settings } from './limits.ts';
import type { OAuthSettings } from './oauth/model.ts';

export type { Settings } from './limits.ts';

/**
 * The functions' environment, parsed once at cold start with the rules the CDK settings use
 * (`config-rules.ts`): every problem is listed and a bad deployment fails before serving. The
 * only module that reads `process.env`: the parsers default to it.
 */

type Env = Record<string, string | undefined>;

const region = z._default(z.string(), 'us-east-1');

const ENV = z.object({
  KEYS_TABLE_NAME: text(3),
  MEMBERSHIPS_TABLE_NAME: text(3),
  /** KMS HMAC_256 key holding the pepper; when absent, PEPPER_DIR must name a local directory. */
  PEPPER_KMS_KEY_ID: z.optional(text(1)),
  PEPPER_DIR: z.optional(text(1)),
  PEPPER_VERSION: pepperVersion(),
  /** The key page people are sent to when a client tried OAuth (`keysPageUrl` setting). */
  KEYS_PAGE_URL: z.optional(url()),
  /** Only for local mode and tests: DynamoDB Local's address. */
  DYNAMODB_ENDPOINT: z.optional(url()),
  /** Where GitHub's secret scanning keys are fetched from. @default GitHub's own URL */
  GITHUB_PUBLIC_KEYS_URL: z.optional(z.string()),
  AWS_REGION: region,
  /** Origins allowed to call the MCP endpoint (`mcpAllowedOrigins` setting). */
  MCP_ALLOWED_ORIGINS: originList('a comma-separated list of origins'),
  /** OAuth (contract §15) is on when an issuer is given: its URL, the consent page and the MCP resources. */
  OAUTH_ISSUER: z.optional(url()),
  OAUTH_CONSENT_PAGE_URL: z.optional(url()),
  /** Comma-separated canonical URLs of the MCP servers tokens are issued for. */
  OAUTH_RESOURCES: z.optional(z.string()),
  /** Local mode only: `1` lets client metadata documents be `http://127.0.0.1` URLs. */
  OAUTH_LOOPBACK_METADATA: z.optional(z.enum(['0', '1'])),
  /** `0` refuses client metadata documents (functions without internet access): clients register by DCR. */
  OAUTH_CLIENT_METADATA_DOCUMENTS: z.optional(z.enum(['0', '1'])),
  /** The MCP server the key authorizer guards (its canonical URL): access tokens for another are refused. */
  MCP_RESOURCE: z.optional(url()),
  /** Lifecycle limits that are deployment settings (contract §5). */
  [SETTING_ENV.defaultExpiryDays]: lifecycleSetting(LIFECYCLE_SETTINGS.defaultExpiryDays),
  [SETTING_ENV.maxExpiryDays]: lifecycleSetting(LIFECYCLE_SETTINGS.maxExpiryDays),
  [SETTING_ENV.maxActiveKeys]: lifecycleSetting(LIFECYCLE_SETTINGS.maxActiveKeys),
  [SETTING_ENV.retentionDays]: lifecycleSetting(LIFECYCLE_SETTINGS.retentionDays),
});

/** Parses `env` with `schema`, or throws naming every problem. */
function parseEnv<S extends z.ZodMiniType>(
  schema: S,
  env: Env,
  checks: (value: z.output<S> | undefined) => string[] = () => [],
) {
  const out = schema.safeParse(env);
  // The checks across variables run also when a variable failed: every problem is listed at once.
  const problems = [...(out.success ? [] : problemsOf(out.error)), ...checks(out.data)];
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return out.data as z.output<S>;
}

export interface Config {
  keysTableName: string;
  membershipsTableName: string;
  pepper: { kind: 'kms'; keyId: string; version: number } | { kind: 'local'; dir: string; version: number };
  dynamodbEndpoint: string | undefined;
  region: string;
  settings: Settings;
  /** Origins allowed to call the MCP endpoint (`MCP_ALLOWED_ORIGINS`). */
  mcpAllowedOrigins: string[];
  /** Where GitHub's secret scanning keys are fetched from (`GITHUB_PUBLIC_KEYS_URL`). @default none: GitHub's own URL */
  githubPublicKeysUrl?: string;
  /** Where people create or rotate keys (`KEYS_PAGE_URL`). @default none (local mode: its own `/`) */
  keysPageUrl?: string | undefined;
  /** The OAuth authorization server's settings (contract §15); absent when OAuth is off. */
  oauth?: OAuthSettings | undefined;
  /** The MCP server the key authorizer guards (`MCP_RESOURCE`). @default none: every one of the deployment's */
  mcpResource?: string | undefined;
}

/** The OAuth settings, all or none: an issuer needs the consent page and at least one resource. */
function oauthProblems(env: Env): string[] {
  if (env.OAUTH_ISSUER === undefined) return [];
  const problems: string[] = [];
  if (!env.OAUTH_CONSENT_PAGE_URL) problems.push('(env): OAUTH_ISSUER needs OAUTH_CONSENT_PAGE_URL');
  const resources = (env.OAUTH_RESOURCES ?? '').split(',').filter(Boolean);
  if (resources.length === 0)
    problems.push('(env): OAUTH_ISSUER needs OAUTH_RESOURCES (the MCP server URLs)');
  for (const r of resources) if (!URL.canParse(r)) problems.push(`OAUTH_RESOURCES: ${r} must be a URL`);
  return problems;
}

/** The reference MCP function's configuration: all it reads, since it reads no table. */
export interface McpServerConfig {
  /** Origins (`scheme://host[:port]`) whose pages may call the endpoint. @default none */
  allowedOrigins: string[];
}

/** `MCP_ALLOWED_ORIGINS`, comma-separated; throws on anything that is not an origin. */
export function parseMcpServerConfig(env: Env = process.env): McpServerConfig {
  const e = parseEnv(z.object({ MCP_ALLOWED_ORIGINS: ENV.shape.MCP_ALLOWED_ORIGINS }), env);
  return { allowedOrigins: e.MCP_ALLOWED_ORIGINS };
}

/** The pepper comes from a KMS key (AWS) or local mode's directory: one of them must be named. */
const pepperProblems = (env: Env): string[] =>
  env.PEPPER_KMS_KEY_ID === undefined && env.PEPPER_DIR === undefined
    ? ['(env): either PEPPER_KMS_KEY_ID or PEPPER_DIR must be set']
    : [];

/** The pepper's source: the KMS key when one is named, else local mode's directory. */
function pepperOf(e: {
  PEPPER_KMS_KEY_ID?: string;
  PEPPER_DIR?: string;
  PEPPER_VERSION: number;
}): Config['pepper'] {
  return e.PEPPER_KMS_KEY_ID
    ? { kind: 'kms', keyId: e.PEPPER_KMS_KEY_ID, version: e.PEPPER_VERSION }
    : { kind: 'local', dir: e.PEPPER_DIR as string, version: e.PEPPER_VERSION };
}

/** Parses the environment; throws with every problem listed so a bad deployment fails at cold start. */
export function parseConfig(env: Env = process.env): Config {
  const e = parseEnv(ENV, env, (v) => [
    ...pepperProblems(env),
    ...oauthProblems(env),
    ...(v && v.DEFAULT_EXPIRY_DAYS > v.MAX_EXPIRY_DAYS
      ? ['(env): DEFAULT_EXPIRY_DAYS must not exceed MAX_EXPIRY_DAYS']
      : []),
  ]);
  return {
    keysTableName: e.KEYS_TABLE_NAME,
    membershipsTableName: e.MEMBERSHIPS_TABLE_NAME,
    pepper: pepperOf(e),
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    region: e.AWS_REGION,
    settings: {
      defaultExpiryDays: e.DEFAULT_EXPIRY_DAYS,
      maxExpiryDays: e.MAX_EXPIRY_DAYS,
      maxActiveKeys: e.MAX_ACTIVE_KEYS,
      retentionDays: e.RETENTION_DAYS,
    },
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    githubPublicKeysUrl: e.GITHUB_PUBLIC_KEYS_URL || undefined,
    keysPageUrl: e.KEYS_PAGE_URL,
    oauth: e.OAUTH_ISSUER
      ? {
          issuer: e.OAUTH_ISSUER,
          consentPageUrl: e.OAUTH_CONSENT_PAGE_URL as string,
          resources: (e.OAUTH_RESOURCES ?? '').split(',').filter(Boolean),
          clientMetadataDocuments: e.OAUTH_CLIENT_METADATA_DOCUMENTS !== '0',
          loopbackMetadataDocuments: e.OAUTH_LOOPBACK_METADATA === '1',
        }
      : undefined,
    mcpResource: e.MCP_RESOURCE,
  };
}

/** What `verifyMcpKey` reads: the tables, the pepper and where DynamoDB is; nothing else. */
export interface VerifierConfig {
  keysTableName: string;
  membershipsTableName: string;
  pepper: Config['pepper'];
  dynamodbEndpoint: string | undefined;
  /** `AWS_REGION`, else `AWS_DEFAULT_REGION`; undefined when neither is set (no default). */
  region: string | undefined;
}

/** The environment of an MCP server that verifies with `verifyMcpKey`; throws naming every problem. */
export function parseVerifierConfig(env: Env = process.env): VerifierConfig {
  const e = parseEnv(
    z.object({
      KEYS_TABLE_NAME: ENV.shape.KEYS_TABLE_NAME,
      MEMBERSHIPS_TABLE_NAME: ENV.shape.MEMBERSHIPS_TABLE_NAME,
      PEPPER_KMS_KEY_ID: ENV.shape.PEPPER_KMS_KEY_ID,
      PEPPER_DIR: ENV.shape.PEPPER_DIR,
      PEPPER_VERSION: ENV.shape.PEPPER_VERSION,
      DYNAMODB_ENDPOINT: ENV.shape.DYNAMODB_ENDPOINT,
    }),
    env,
    () => pepperProblems(env),
  );
  return {
    keysTableName: e.KEYS_TABLE_NAME,
    membershipsTableName: e.MEMBERSHIPS_TABLE_NAME,
    pepper: pepperOf(e),
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined,
  };
}

export interface PublisherConfig {
  eventBusName: string;
  region: string;
}

/** The stream consumer's environment: it needs the bus and nothing of the keys or the pepper. */
export function parsePublisherConfig(env: Env = process.env): PublisherConfig {
  /** The EventBridge bus the stream consumer publishes to. */
  const e = parseEnv(z.object({ EVENT_BUS_NAME: text(1), AWS_REGION: region }), env);
  return { eventBusName: e.EVENT_BUS_NAME, region: e.AWS_REGION };
}

/** Logging and metrics settings, under the names AWS Lambda Powertools reads. */
export interface ObservabilityConfig {
  /** `AWS_LAMBDA_LOG_LEVEL`, else `POWERTOOLS_LOG_LEVEL`, else `LOG_LEVEL`; upper case. @default INFO */
  logLevel: string;
  /** `POWERTOOLS_SERVICE_NAME`, when set. */
  serviceName: string | undefined;
  /** `POWERTOOLS_METRICS_DISABLED`, else `POWERTOOLS_DEV`. */
  metricsDisabled: boolean;
  /** `POWERTOOLS_LOGGER_SAMPLE_RATE` (written on each line, as Powertools does). @default 0 */
  samplingRate: number;
  /** `POWERTOOLS_LOGGER_LOG_EVENT`: log each invocation's event (redacted). */
  logEvent: boolean;
}

const flag = (value: string | undefined) => value?.trim().toLowerCase() === 'true' || value?.trim() === '1';

/** Read once at cold start, as Powertools reads them. */
export function parseObservabilityConfig(env: Env = process.env): ObservabilityConfig {
  return {
    logLevel: (env.AWS_LAMBDA_LOG_LEVEL ?? env.POWERTOOLS_LOG_LEVEL ?? env.LOG_LEVEL ?? 'INFO').toUpperCase(),
    serviceName: env.POWERTOOLS_SERVICE_NAME || undefined,
    metricsDisabled:
      env.POWERTOOLS_METRICS_DISABLED !== undefined
        ? flag(env.POWERTOOLS_METRICS_DISABLED)
        : flag(env.POWERTOOLS_DEV),
    samplingRate: Number(env.POWERTOOLS_LOGGER_SAMPLE_RATE) || 0,
    logEvent: flag(env.POWERTOOLS_LOGGER_LOG_EVENT),
  };
}

/** The X-Ray trace of the current invocation (Lambda sets it per invocation). */
export const currentTraceId = (env: Env = process.env): string | undefined =>
  env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1];

/** Whether the process runs in AWS Lambda (its runtime names the function). */
export const inLambda = (env: Env = process.env): boolean => env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
