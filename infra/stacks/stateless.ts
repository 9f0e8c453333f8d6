import { CfnOutput, Duration, Lazy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { MCP_AUTHORIZER_GRANTS } from '#lib/handlers/mcp-authorizer';
import { SERVICE_NAME } from '#lib/observability';
import { type ApiRoute, MANAGEMENT_ROUTES, MCP_ROUTE, type RouteName } from '#lib/routes/index';
import { OAUTH_GRANTS } from '#lib/routes/oauth/index';
import type { Grants, GrantTarget } from '#lib/routes/route-module';
import { BY_USER } from '#lib/store/tables';
import { CORS, MCP_EDGE, routesOf } from '../api-edge.ts';
import { ServiceAlarms } from '../constructs/alarms.ts';
import type { FunctionName } from '../constructs/bundling.ts';
import { EventPublishing } from '../constructs/event-publishing.ts';
import { grantDynamo } from '../constructs/grants.ts';
import { LeakResponse } from '../constructs/leak-response.ts';
import { McpEndpoint } from '../constructs/mcp-endpoint.ts';
import { KEY_AUTHORIZER_PARAMETER, McpKeyAuthorizer } from '../constructs/mcp-key-authorizer.ts';
import { OAuthServer } from '../constructs/oauth-server.ts';
import { ServiceOperations } from '../constructs/operations.ts';
import { ACCESS_LOG_FORMAT, ServiceFunction, serviceLogGroup } from '../constructs/service-function.ts';
import { WorkspaceGovernance } from '../constructs/workspace-governance.ts';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import type { DeploymentSettings } from '../settings.ts';

/** The stateless stack's settings and the stateful stack's resources it uses. */
export interface StatelessStackProps extends StackProps {
  /** The deployment settings (`parseSettings`). */
  settings: DeploymentSettings;
  /** The keys table (`StatefulStack.keysTable`). */
  keysTable: ITableV2;
  /** The memberships table (`StatefulStack.membershipsTable`). */
  membershipsTable: ITableV2;
  /** The pepper key (`StatefulStack.pepperKey`). */
  pepperKey: IKey;
}

export { KEY_AUTHORIZER_PARAMETER };

/**
 * Every function of the stateless stack's request path, by its file in functions/: written out so
 * that the published API names them, and checked against the routes below.
 */
export type StatelessFunctionName =
  | 'create-key'
  | 'list-keys'
  | 'rotate-key'
  | 'revoke-key'
  | 'list-events'
  | 'list-workspace-keys'
  | 'cut-off-key'
  | 'get-workspace-policy'
  | 'put-workspace-policy'
  | 'list-workspace-events'
  | 'report-leaked-keys'
  | 'github-secret-scanning'
  | 'get-oauth-request'
  | 'approve-oauth-request'
  | 'deny-oauth-request'
  | 'mcp-server'
  | 'mcp-authorizer'
  | 'oauth';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// A route added, renamed or removed without its name here fails to compile.
const NAMES_MATCH_ROUTES: Same<StatelessFunctionName, ApiRoute['handler'] | 'mcp-authorizer' | 'oauth'> =
  true;
void NAMES_MATCH_ROUTES;

/** The consent routes (contract §15): deployed only with OAuth on, where they have a request to find. */
const isOAuthRoute = (module: { tag: string }) => module.tag === 'oauth-consent';

/**
 * Everything replaceable: the HTTP API with the JWT authorizer on the management routes, the
 * reference MCP endpoint on a REST API behind the key authorizer, the functions with
 * least-privilege grants, alarms and a dashboard.
 */
export class StatelessStack extends Stack {
  /** The management API (HTTP API, the user JWT authorizer on every route but the leak reports). */
  readonly api: HttpApi;
  /** The key authorizer, for reuse by other MCP servers' APIs. */
  readonly keyAuthorizerFunction: IFunction;
  /** The key authorizer as attached to the reference MCP endpoint (bound to it when OAuth is on). */
  readonly keyAuthorizer: McpKeyAuthorizer;
  /** The reference MCP endpoint (REST API) behind the key authorizer. */
  readonly mcpEndpoint: McpEndpoint;
  /**
   * The authorization server's protocol endpoints (their own HTTP API), when OAuth is on
   * (the `consentPageUrl` setting). @default none
   */
  readonly oauth: OAuthServer | undefined;
  /** The request path's functions by name; the OAuth ones (`oauth`, the consent routes) only with OAuth on. */
  readonly functions: Readonly<Partial<Record<StatelessFunctionName, IFunction>>>;
  /** The alarms and their topic; `alarms.add(id, …)` adds one that notifies it (docs/operations.md). */
  readonly alarms: ServiceAlarms;
  /** The stream consumer, the expiry sweep and their alarms. */
  readonly events: EventPublishing;
  /** The workspace policy fan-out and the governance functions' alarms. */
  readonly governance: WorkspaceGovernance;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
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
    };
    const make = (
      entry: FunctionName,
      grants: Grants,
      options: { environment?: Record<string, string> } = {},
    ): IFunction => {
      const fn = new ServiceFunction(this, pascal(entry), {
        entry,
        environment: options.environment ?? environment,
        logRetentionDays: settings.logRetentionDays,
        ...(grants.pepper && { pepperKey }),
      }).fn;
      // Least privilege: each function gets exactly the calls it makes, on exactly its resources.
      grantDynamo(fn, grants, tables);
      return fn;
    };
    const tables: Record<GrantTarget, string> = {
      keys: keysTable.tableArn,
      'keys-by-user': `${keysTable.tableArn}/index/${BY_USER.indexName}`,
      memberships: membershipsTable.tableArn,
    };

    // OAuth (contract §15), on when a consent page is set. The issuer and the reference endpoint's
    // URL are the APIs' own unless settings name custom domains; the APIs are created after the
    // functions they integrate, so their URLs are resolved at synth (no reference to a stage: a cycle).
    const consentPageUrl = settings.consentPageUrl;
    const issuer = settings.oauthIssuer ?? Lazy.string({ produce: () => this.oauth?.url });
    const mcpResource =
      settings.mcpEndpointUrl ?? Lazy.string({ produce: () => this.mcpEndpoint.resourceUrl });
    const oauthEnvironment = consentPageUrl
      ? {
          OAUTH_ISSUER: issuer,
          OAUTH_CONSENT_PAGE_URL: consentPageUrl,
          OAUTH_RESOURCES: [mcpResource, ...settings.oauthResources.filter((r) => r !== mcpResource)].join(
            ',',
          ),
          ...(settings.oauthClientMetadataDocuments === false && { OAUTH_CLIENT_METADATA_DOCUMENTS: '0' }),
        }
      : undefined;

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
    this.functions = fns;
    this.keyAuthorizerFunction = keyAuthorizerFunction;
    this.keyAuthorizer = new McpKeyAuthorizer(this, 'McpKeyAuthorizer', {
      handler: keyAuthorizerFunction,
      ...(oauthEnvironment && { oauth: { resource: mcpResource, issuer, path: MCP_EDGE.path } }),
    });
    this.mcpEndpoint = new McpEndpoint(this, 'McpEndpoint', {
      handler: fns['mcp-server'] as IFunction,
      keyAuthorizer: this.keyAuthorizer,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      logRetentionDays: settings.logRetentionDays,
      // With OAuth on, POST /register registers the client (McpKeyAuthorizer's oauth).
      keysPageUrl: oauthEnvironment ? undefined : settings.keysPageUrl,
    });

    const accessLogs = serviceLogGroup(this, 'ApiAccessLogs', settings.logRetentionDays);
    this.api = new HttpApi(this, 'Api', {
      apiName: SERVICE_NAME,
      description: 'MCP API key management',
      createDefaultStage: false,
      ...(settings.corsOrigins.length > 0 && {
        corsPreflight: {
          allowOrigins: settings.corsOrigins,
          allowMethods: CORS.allowMethods.map((m) => CorsHttpMethod[m]),
          allowHeaders: [...CORS.allowHeaders],
          exposeHeaders: [...CORS.exposeHeaders],
          maxAge: Duration.seconds(CORS.maxAgeSeconds),
        },
      }),
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });

    const userJwt = new HttpJwtAuthorizer('UserJwt', settings.jwtIssuer, {
      jwtAudience: settings.jwtAudience,
      identitySource: ['$request.header.Authorization'],
    });
    for (const route of routesOf('http')) {
      const handler = fns[route.handler];
      // The consent routes exist only with OAuth on.
      if (!handler) continue;
      const [added] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${pascal(route.handler)}${route.method}`, handler),
        ...(route.auth === 'jwt' && { authorizer: userJwt }),
      });
      if (route.auth === 'none' && added) {
        acknowledgeGuardRule(added, GUARD_EXCEPTIONS.unauthenticatedRoutes);
        Validations.of(added).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason:
            'Leak reports need no credentials (contract §11): holding a key is the authority to revoke it; the GitHub route checks GitHub’s signature, and each route is throttled on its own.',
        });
      }
    }

    acknowledgeGuardRule(this.api, GUARD_EXCEPTIONS.apiGatewayInvokePermission);

    new StringParameter(this, 'KeyAuthorizerArn', {
      parameterName: KEY_AUTHORIZER_PARAMETER,
      stringValue: this.keyAuthorizerFunction.functionArn,
      description: 'ARN of the MCP key Lambda authorizer, for other APIs to attach',
    });
    new CfnOutput(this, 'KeyAuthorizerFunctionArn', {
      value: this.keyAuthorizerFunction.functionArn,
      exportName: 'SvcMcpKeyAuthorizerFunctionArn',
    });
    new CfnOutput(this, 'ApiEndpoint', { value: this.api.apiEndpoint });

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      ...(settings.alarmTopicArn && { topicArn: settings.alarmTopicArn }),
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic every alarm notifies (ALARM and OK); subscribe the on-call to it',
    });
    this.oauth =
      oauthEnvironment && fns.oauth
        ? new OAuthServer(this, 'OAuth', {
            handler: fns.oauth,
            consentFunctions: MANAGEMENT_ROUTES.filter(isOAuthRoute).flatMap((m) => fns[m.name] ?? []),
            throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
            registrationThrottle: {
              rateLimit: settings.oauthRegistrationRate,
              burstLimit: settings.oauthRegistrationBurst,
            },
            tokenThrottle: { rateLimit: settings.oauthTokenRate, burstLimit: settings.oauthTokenBurst },
            logRetentionDays: settings.logRetentionDays,
            alarms: this.alarms,
          })
        : undefined;
    if (this.oauth) {
      new CfnOutput(this, 'OAuthIssuer', {
        value: issuer,
        description:
          'The OAuth authorization server’s issuer (McpKeyAuthorizer’s oauth.issuer for other MCP servers)',
      });
      new CfnOutput(this, 'OAuthApiUrl', {
        value: this.oauth.url,
        description: 'The OAuth API’s own URL: map a custom domain to it (empty base path) for oauthIssuer',
      });
    }
    new LeakResponse(this, 'LeakResponse', {
      stage,
      throttle: { rateLimit: settings.leakReportRate, burstLimit: settings.leakReportBurst },
      alarms: this.alarms,
    });
    this.events = new EventPublishing(this, 'Events', {
      keysTable,
      environment,
      logRetentionDays: settings.logRetentionDays,
      alarms: this.alarms,
    });
    // An alarm's math takes at most 10 metrics: the workspace governance functions' throttles have
    // their own alarm, with the fan-out's.
    const governs = (name: string) =>
      MANAGEMENT_ROUTES.some((module) => module.name === name && module.tag === 'workspaces');
    // The OAuth functions' throttles have their own alarm too (OAuthServer).
    const ofOAuth = (name: string) =>
      name === 'oauth' || MANAGEMENT_ROUTES.some((module) => module.name === name && isOAuthRoute(module));
    this.governance = new WorkspaceGovernance(this, 'WorkspaceGovernance', {
      keysTable,
      tables,
      routeFunctions: Object.entries(fns).flatMap(([name, fn]) => (governs(name) ? [fn] : [])),
      environment,
      logRetentionDays: settings.logRetentionDays,
      alarms: this.alarms,
    });
    // The other request-path functions; the stream consumers' and the sweep's own alarms cover
    // theirs (iterator age, errors).
    new ServiceOperations(this, 'Operations', {
      api: this.api,
      mcpApi: this.mcpEndpoint.api,
      keyAuthorizer: this.keyAuthorizer,
      functions: Object.entries(fns).flatMap(([name, fn]) => (governs(name) || ofOAuth(name) ? [] : [fn])),
      keysTable,
      alarms: this.alarms,
    });
  }
}

const pascal = (s: string) => s.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
