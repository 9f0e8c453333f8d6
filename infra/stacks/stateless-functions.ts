import { Lazy, type Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { MCP_AUTHORIZER_GRANTS } from '#lib/handlers/mcp-authorizer';
import { MANAGEMENT_ROUTES, MCP_ROUTE, type RouteName } from '#lib/routes/index';
import { OAUTH_GRANTS } from '#lib/routes/oauth/index';
import type { Grants, GrantTarget } from '#lib/routes/route-module';
import { BY_USER } from '#lib/store/tables';
import type { FunctionName } from '../constructs/bundling.ts';
import { grantDynamo } from '../constructs/grants.ts';
import { ServiceFunction } from '../constructs/service-function.ts';
import type { DeploymentSettings } from '../settings.ts';
import type { StatelessFunctionName, StatelessStackProps } from './stateless-types.ts';

/**
 * The stateless stack's functions (infra/stacks/stateless.ts): each route's, the key authorizer,
 * the reference MCP server and, with OAuth on, the OAuth function, each with exactly its grants
 * and environment. Made in the stack's own scope, so their logical ids are the stack's.
 */

/** The consent routes (contract §15): deployed only with OAuth on, where they have a request to find. */
export const isOAuthRoute = (module: { tag: string }) => module.tag === 'oauth-consent';

/** Where the functions' OAuth settings come from: the APIs' own URLs unless settings name custom domains. */
export interface OAuthUrls {
  /** The OAuth API's URL, known once it is made. */
  oauthApi: () => string | undefined;
  /** The reference MCP endpoint's resource URL, known once it is made. */
  mcpEndpoint: () => string;
}

/** The issuer, the guarded resource and the OAuth functions' environment (undefined with OAuth off). */
export function oauthSettings(settings: DeploymentSettings, urls: OAuthUrls) {
  // The APIs are created after the functions they integrate, so their URLs are resolved at synth
  // (no reference to a stage: a cycle).
  const consentPageUrl = settings.consentPageUrl;
  const issuer = settings.oauthIssuer ?? Lazy.string({ produce: urls.oauthApi });
  const mcpResource = settings.mcpEndpointUrl ?? Lazy.string({ produce: urls.mcpEndpoint });
  const environment = consentPageUrl
    ? {
        OAUTH_ISSUER: issuer,
        OAUTH_CONSENT_PAGE_URL: consentPageUrl,
        OAUTH_RESOURCES: [mcpResource, ...settings.oauthResources.filter((r) => r !== mcpResource)].join(','),
        ...(settings.oauthClientMetadataDocuments === false && { OAUTH_CLIENT_METADATA_DOCUMENTS: '0' }),
        // Contract §17: the deployment's own JWT issuer unless the setting names the IdPs.
        IDENTITY_PROVIDERS: JSON.stringify(settings.identityProviders ?? [{ issuer: settings.jwtIssuer }]),
      }
    : undefined;
  return { issuer, mcpResource, environment };
}

/** The functions, the environment they share and the grant targets of the tables. */
export interface StatelessFunctions {
  fns: Partial<Record<StatelessFunctionName, IFunction>>;
  keyAuthorizerFunction: IFunction;
  environment: Record<string, string>;
  tables: Record<GrantTarget, string>;
}

/** Every function of the request path, in `stack`. */
export function statelessFunctions(
  stack: Stack,
  props: StatelessStackProps,
  oauthEnvironment: Record<string, string> | undefined,
): StatelessFunctions {
  const { settings, keysTable, membershipsTable, pepperKey } = props;
  const environment = {
    KEYS_TABLE_NAME: keysTable.tableName,
    MEMBERSHIPS_TABLE_NAME: membershipsTable.tableName,
    PEPPER_KMS_KEY_ID: pepperKey.keyArn,
    PEPPER_VERSION: String(settings.pepperVersion),
    DEFAULT_EXPIRY_DAYS: String(settings.defaultExpiryDays),
    MAX_EXPIRY_DAYS: String(settings.maxExpiryDays),
    MAX_ACTIVE_KEYS: String(settings.maxActiveKeys),
    RETENTION_DAYS: String(settings.retentionDays),
    USAGE_RETENTION_DAYS: String(settings.usageRetentionDays),
    ...(settings.mcpTools && { MCP_TOOLS: JSON.stringify(settings.mcpTools) }),
  };
  const tables: Record<GrantTarget, string> = {
    keys: keysTable.tableArn,
    'keys-by-user': `${keysTable.tableArn}/index/${BY_USER.indexName}`,
    memberships: membershipsTable.tableArn,
  };
  const make = (
    entry: FunctionName,
    grants: Grants,
    options: { environment?: Record<string, string> } = {},
  ): IFunction => {
    const fn = new ServiceFunction(stack, pascal(entry), {
      entry,
      environment: options.environment ?? environment,
      logRetentionDays: settings.logRetentionDays,
      ...(grants.pepper && { pepperKey }),
    }).fn;
    // Least privilege: each function gets exactly the calls it makes, on exactly its resources.
    grantDynamo(fn, grants, tables);
    return fn;
  };

  // Each route's function, with the grants and the environment its module declares.
  const routeFunctions = Object.fromEntries(
    MANAGEMENT_ROUTES.filter((module) => oauthEnvironment || !isOAuthRoute(module)).map((module) => [
      module.name,
      make(module.name, module.grants, {
        environment: {
          ...environment,
          ...module.environment?.(settings),
          ...(isOAuthRoute(module) && oauthEnvironment),
        },
      }),
    ]),
  ) as Partial<Record<RouteName, IFunction>>;
  const keyAuthorizerFunction = make('mcp-authorizer', MCP_AUTHORIZER_GRANTS);
  const fns: Partial<Record<StatelessFunctionName, IFunction>> = {
    ...routeFunctions,
    'mcp-authorizer': keyAuthorizerFunction,
    'mcp-server': make(MCP_ROUTE.name, MCP_ROUTE.grants, {
      environment: {
        ...(settings.mcpAllowedOrigins.length > 0 && {
          MCP_ALLOWED_ORIGINS: settings.mcpAllowedOrigins.join(','),
        }),
      },
    }),
    ...(oauthEnvironment && {
      oauth: make('oauth', OAUTH_GRANTS, { environment: { ...environment, ...oauthEnvironment } }),
    }),
  };
  return { fns, keyAuthorizerFunction, environment, tables };
}

/** `create-key` → `CreateKey`: a function's construct id. */
export const pascal = (s: string) => s.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
