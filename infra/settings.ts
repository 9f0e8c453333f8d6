import { UnscopedValidationError, ValidationError } from 'aws-cdk-lib';
import type { IConstruct, Node } from 'constructs';
import { z } from 'zod';
import { lifecycleSetting as lifecycle, originList, pepperVersion, wholeNumber } from '#lib/config-rules';
import { GITHUB_PUBLIC_KEYS_URL } from '#lib/leaks/github-keys';
import { LEAK_LIMITS, LIFECYCLE_SETTINGS } from '#lib/limits';
import { toOrigin } from '#lib/origin';
import { MCP_ROUTE } from '#lib/routes/mcp';
import { csv, httpsUrl, identityProviders, mcpTools, resourceUrl } from './setting-rules.ts';

const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
/** An IAM role or user ARN; `*` is allowed in the name (IAM Identity Center roles end in a random suffix). */
const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/*-]+$/;
const accountOf = (arn: string) => arn.split(':')[4];

/** OAuth's settings are read only when it is on: naming one without `consentPageUrl` is a mistake. */
const OAUTH_ONLY = [
  'oauthIssuer',
  'mcpEndpointUrl',
  'oauthResources',
  'oauthClientMetadataDocuments',
  'identityProviders',
] as const;

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
    /** Days a credential's usage buckets are kept before DynamoDB TTL removes them. @default 90 (lib/limits.ts) */
    usageRetentionDays: lifecycle(LIFECYCLE_SETTINGS.usageRetentionDays),
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
     * OAuth 2.1 for MCP (contract §15) is on when this is set: the dashboard page hosting the
     * consent element (`<svc-mcp-consent>`), to which the authorization endpoint sends people with
     * `?request=<id>`. Unset, the deployment is exactly one without OAuth: no authorization server,
     * no consent routes, no protected resource metadata. @default none (OAuth off)
     */
    consentPageUrl: httpsUrl('consentPageUrl').optional(),
    /**
     * The authorization server's issuer, when a custom domain is mapped (empty base path) to the
     * OAuth API (the stateless stack's `OAuthApiUrl` output): its origin, nothing after it.
     * @default the OAuth API's own URL (`https://<id>.execute-api.<region>.amazonaws.com`)
     */
    oauthIssuer: httpsUrl('oauthIssuer')
      .refine((u) => new URL(u).pathname === '/' && !new URL(u).search, {
        error: 'oauthIssuer must be an origin (https://host), with no path or query',
      })
      .transform((u) => new URL(u).origin)
      .optional(),
    /**
     * The reference MCP endpoint's canonical URL when a custom domain is mapped (empty base path)
     * to its REST API, e.g. `https://mcp.example.com/mcp`: tokens are issued for it, and its
     * Protected Resource Metadata is at RFC 9728's `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`.
     * @default the REST API's own URL (`https://<id>.execute-api.<region>.amazonaws.com/v1/mcp`),
     * whose metadata its 401s name under the stage (`…/v1/.well-known/oauth-protected-resource/mcp`)
     */
    mcpEndpointUrl: resourceUrl('mcpEndpointUrl')
      .refine((u) => new URL(u).pathname === MCP_ROUTE.path, {
        error: `mcpEndpointUrl must end in ${MCP_ROUTE.path}: the REST API serves the endpoint there`,
      })
      .optional(),
    /**
     * Other MCP servers this authorization server issues tokens for (their canonical URLs), beside
     * the reference endpoint: servers that attach the key authorizer with `McpKeyAuthorizer`'s
     * `oauth` prop or verify in-process with the verifier's `resource` option. @default none
     */
    oauthResources: csv(resourceUrl('each OAuth resource'), 'a comma-separated list of https URLs').default(
      [],
    ),
    /**
     * Whether apps may identify themselves by a client metadata document (a `client_id` that is an
     * https URL, which the OAuth function fetches from the internet). Turn it off (`false`) when the
     * functions have no route to the internet: the metadata then says so and every app registers by
     * dynamic client registration (shown as unverified, so an `oauth_clients: "verified"` policy
     * admits none). @default true
     */
    oauthClientMetadataDocuments: z
      .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
        error: 'oauthClientMetadataDocuments must be true or false',
      })
      .optional(),
    /**
     * The identity providers the token endpoint takes ID-JAGs from and the identity signals
     * receiver takes security events from (contract §17): `[{ issuer, jwksUri?, userClaim? }]`,
     * https only, at most 10 (in context, its JSON text). `[]` trusts none: no enterprise-managed
     * authorization, no signals. @default the deployment's own `jwtIssuer`
     */
    identityProviders,
    /**
     * The tools of the MCP server the key authorizer guards and the scope each needs (contract
     * §19): `[{ name, scope, title?, destructive? }]`, at most 100 (in context, its JSON text).
     * Credentials' `tools` and policies' `allowed_tools` name them; a `tools/call` of any other is
     * refused. @default the reference server's eight tools
     */
    mcpTools,
    /** The OAuth registration endpoints' own throttling (dynamic client registration). @default 5 / 10 */
    oauthRegistrationRate: wholeNumber(1, 10_000, 5),
    oauthRegistrationBurst: wholeNumber(1, 10_000, 10),
    /**
     * The token endpoint's own throttling. Each connected client refreshes about once an hour, so
     * 20 per second serves some 70,000 connected clients. @default 20 / 40
     */
    oauthTokenRate: wholeNumber(1, 100_000, 20),
    oauthTokenBurst: wholeNumber(1, 100_000, 40),
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
  .superRefine((s, ctx) => {
    if (s.consentPageUrl !== undefined) return;
    for (const name of OAUTH_ONLY) {
      const value = s[name];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'is read only with OAuth on: set consentPageUrl',
      });
    }
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

/** The deployment settings after validation, every default applied (what the stacks read). */
export type DeploymentSettings = z.output<typeof DeploymentSettingsSchema>;
/** The deployment settings as given (context strings or props); `parseSettings` validates them. */
export type DeploymentSettingsInput = z.input<typeof DeploymentSettingsSchema>;

/** Every setting that may come from CDK context: the schema's, so that a new setting needs no second list. */
export const CONTEXT_KEYS = Object.keys(
  DeploymentSettingsSchema.shape,
) as readonly (keyof DeploymentSettings)[];

/** The name of the CDK `ValidationError` that bad settings throw. */
export const INVALID_SETTINGS = 'InvalidDeploymentSettings' as ConstructorParameters<
  typeof ValidationError
>[0];

/** Every problem with the settings, one line each (`- name: what is wrong`); none when they are valid. */
export function settingsProblems(input: Record<string, unknown>): string[] {
  const out = DeploymentSettingsSchema.safeParse(input);
  return out.success
    ? []
    : out.error.issues.map((i) => `- ${i.path.join('.') || '(settings)'}: ${i.message}`);
}

/** The problems of key administrator ARNs (IAM roles or users of one account), named `name`. */
export function keyAdministratorProblems(arns: readonly string[], name: string): string[] {
  if (arns.length === 0) return [];
  const out = DeploymentSettingsSchema.shape.keyAdministratorArns.safeParse(arns);
  return out.success ? [] : [...new Set(out.error.issues.map((i) => `- ${name}: ${i.message}`))];
}

/**
 * Validates settings and names every problem, one line each; throws a CDK `ValidationError` (on
 * `scope`, or unscoped without one) so that a bad deployment fails at synth.
 */
export function parseSettings(input: Record<string, unknown>, scope?: IConstruct): DeploymentSettings {
  const out = DeploymentSettingsSchema.safeParse(input);
  if (!out.success) {
    const message = `invalid deployment settings:\n${settingsProblems(input).join('\n')}`;
    throw scope
      ? new ValidationError(INVALID_SETTINGS, message, scope)
      : new UnscopedValidationError(INVALID_SETTINGS, message);
  }
  return out.data;
}

/** The settings as given: CDK context, overridden by explicit props (not yet validated). */
export function contextSettings(
  node: Node,
  props: Partial<DeploymentSettingsInput> = {},
): Record<string, unknown> {
  const fromContext: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const value = node.tryGetContext(key);
    if (value !== undefined) fromContext[key] = value;
  }
  return { ...fromContext, ...props };
}

/** Settings from CDK context, overridden by explicit props, validated (`parseSettings`). */
export function settingsFromContext(
  node: Node,
  props: Partial<DeploymentSettingsInput> = {},
  scope?: IConstruct,
): DeploymentSettings {
  return parseSettings(contextSettings(node, props), scope);
}
