import * as z from 'zod/mini';
import { parseToolCatalogue } from './access/tool-setting.ts';
import type { ToolCatalogue } from './access/tools.ts';
import { lifecycleSetting, originList, pepperVersion, problemsOf, text, url } from './config-rules.ts';
import { type Env, type PepperConfig, pepperOf, pepperProblems } from './env.ts';
import { parseIdentityProviders } from './identity/providers.ts';
import { LIFECYCLE_SETTINGS, SETTING_ENV, type Settings } from './limits.ts';
import type { OAuthSettings } from './oauth/model.ts';

export type { Settings } from './limits.ts';

/**
 * The functions' environment, parsed once at cold start with the rules the CDK settings use
 * (`config-rules.ts`): every problem is listed and a bad deployment fails before serving. With
 * `env.ts` (what is read without zod), the only module that reads `process.env`: the parsers
 * default to it.
 */

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
  /** The trusted identity providers (contract §17), JSON: `[{ issuer, jwksUri?, userClaim? }]`. */
  IDENTITY_PROVIDERS: z.optional(z.string()),
  /** The MCP server's tool catalogue (contract §19), JSON: `[{ name, scope, title?, destructive? }]`. */
  MCP_TOOLS: z.optional(z.string()),
  /** Lifecycle limits that are deployment settings (contract §5). */
  [SETTING_ENV.defaultExpiryDays]: lifecycleSetting(LIFECYCLE_SETTINGS.defaultExpiryDays),
  [SETTING_ENV.maxExpiryDays]: lifecycleSetting(LIFECYCLE_SETTINGS.maxExpiryDays),
  [SETTING_ENV.maxActiveKeys]: lifecycleSetting(LIFECYCLE_SETTINGS.maxActiveKeys),
  [SETTING_ENV.retentionDays]: lifecycleSetting(LIFECYCLE_SETTINGS.retentionDays),
  [SETTING_ENV.usageRetentionDays]: lifecycleSetting(LIFECYCLE_SETTINGS.usageRetentionDays),
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
  pepper: PepperConfig;
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
  /** The tools of the MCP server the key authorizer guards (`MCP_TOOLS`). @default the reference server's */
  mcpTools: ToolCatalogue;
}

/** `MCP_TOOLS`'s problems, with the other variables' (every problem listed at once). */
function toolProblems(env: Env): string[] {
  try {
    parseToolCatalogue(env.MCP_TOOLS);
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
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
  if (env.IDENTITY_PROVIDERS !== undefined)
    try {
      parseIdentityProviders(env.IDENTITY_PROVIDERS, {
        allowLoopbackHttp: env.OAUTH_LOOPBACK_METADATA === '1',
      });
    } catch (err) {
      problems.push((err as Error).message);
    }
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

/** Parses the environment; throws with every problem listed so a bad deployment fails at cold start. */
export function parseConfig(env: Env = process.env): Config {
  const e = parseEnv(ENV, env, (v) => [
    ...pepperProblems(env),
    ...oauthProblems(env),
    ...toolProblems(env),
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
      usageRetentionDays: e.USAGE_RETENTION_DAYS,
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
          identityProviders: e.IDENTITY_PROVIDERS
            ? parseIdentityProviders(e.IDENTITY_PROVIDERS, {
                allowLoopbackHttp: e.OAUTH_LOOPBACK_METADATA === '1',
              })
            : [],
        }
      : undefined,
    mcpResource: e.MCP_RESOURCE,
    mcpTools: parseToolCatalogue(e.MCP_TOOLS),
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
