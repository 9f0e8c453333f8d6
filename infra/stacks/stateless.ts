import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { type ApiRoute, MANAGEMENT_ROUTES } from '#lib/routes/index';
import type { GrantTarget } from '#lib/routes/route-module';
import { MCP_EDGE } from '../api-edge.ts';
import { ServiceAlarms } from '../constructs/alarms.ts';
import { EventPublishing } from '../constructs/event-publishing.ts';
import { LeakResponse } from '../constructs/leak-response.ts';
import { McpEndpoint } from '../constructs/mcp-endpoint.ts';
import { KEY_AUTHORIZER_PARAMETER, McpKeyAuthorizer } from '../constructs/mcp-key-authorizer.ts';
import { OAuthServer } from '../constructs/oauth-server.ts';
import { ServiceOperations } from '../constructs/operations.ts';
import { WorkspaceGovernance } from '../constructs/workspace-governance.ts';
import type { DeploymentSettings } from '../settings.ts';
import { managementApi } from './management-api.ts';
import { isOAuthRoute, oauthSettings, statelessFunctions } from './stateless-functions.ts';
import type { StatelessFunctionName, StatelessStackProps } from './stateless-types.ts';

export type { StatelessFunctionName, StatelessStackProps } from './stateless-types.ts';

export { KEY_AUTHORIZER_PARAMETER };

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// A route added, renamed or removed without its name here fails to compile.
const NAMES_MATCH_ROUTES: Same<StatelessFunctionName, ApiRoute['handler'] | 'mcp-authorizer' | 'oauth'> =
  true;
void NAMES_MATCH_ROUTES;

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
    const { settings } = props;
    // OAuth (contract §15), on when a consent page is set. The issuer and the reference endpoint's
    // URL are the APIs' own unless settings name custom domains.
    const oauth = oauthSettings(settings, {
      oauthApi: () => this.oauth?.url,
      mcpEndpoint: () => this.mcpEndpoint.resourceUrl,
    });
    const { fns, keyAuthorizerFunction, environment, tables } = statelessFunctions(
      this,
      props,
      oauth.environment,
    );
    this.functions = fns;
    this.keyAuthorizerFunction = keyAuthorizerFunction;
    this.keyAuthorizer = new McpKeyAuthorizer(this, 'McpKeyAuthorizer', {
      handler: keyAuthorizerFunction,
      ...(oauth.environment && {
        oauth: { resource: oauth.mcpResource, issuer: oauth.issuer, path: MCP_EDGE.path },
      }),
    });
    this.mcpEndpoint = new McpEndpoint(this, 'McpEndpoint', {
      handler: fns['mcp-server'] as IFunction,
      keyAuthorizer: this.keyAuthorizer,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      logRetentionDays: settings.logRetentionDays,
      // With OAuth on, POST /register registers the client (McpKeyAuthorizer's oauth).
      keysPageUrl: oauth.environment ? undefined : settings.keysPageUrl,
    });
    const { api, stage } = managementApi(this, settings, fns);
    this.api = api;
    this.outputs();
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      ...(settings.alarmTopicArn && { topicArn: settings.alarmTopicArn }),
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic every alarm notifies (ALARM and OK); subscribe the on-call to it',
    });
    this.oauth =
      oauth.environment && fns.oauth ? this.oauthServer(settings, fns.oauth, oauth.issuer) : undefined;
    new LeakResponse(this, 'LeakResponse', {
      stage,
      throttle: { rateLimit: settings.leakReportRate, burstLimit: settings.leakReportBurst },
      alarms: this.alarms,
    });
    this.events = new EventPublishing(this, 'Events', {
      keysTable: props.keysTable,
      environment,
      logRetentionDays: settings.logRetentionDays,
      alarms: this.alarms,
    });
    this.governance = this.operate(props, { environment, tables });
  }

  /** The key authorizer's ARN for other APIs (an SSM parameter and an export), and the API's URL. */
  private outputs(): void {
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
  }

  /** The authorization server's own API on the OAuth function, with the consent routes' functions. */
  private oauthServer(settings: DeploymentSettings, handler: IFunction, issuer: string): OAuthServer {
    const server = new OAuthServer(this, 'OAuth', {
      handler,
      consentFunctions: MANAGEMENT_ROUTES.filter(isOAuthRoute).flatMap((m) => this.functions[m.name] ?? []),
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      registrationThrottle: {
        rateLimit: settings.oauthRegistrationRate,
        burstLimit: settings.oauthRegistrationBurst,
      },
      tokenThrottle: { rateLimit: settings.oauthTokenRate, burstLimit: settings.oauthTokenBurst },
      logRetentionDays: settings.logRetentionDays,
      alarms: this.alarms,
    });
    new CfnOutput(this, 'OAuthIssuer', {
      value: issuer,
      description:
        'The OAuth authorization server’s issuer (McpKeyAuthorizer’s oauth.issuer for other MCP servers)',
    });
    new CfnOutput(this, 'OAuthApiUrl', {
      value: server.url,
      description: 'The OAuth API’s own URL: map a custom domain to it (empty base path) for oauthIssuer',
    });
    return server;
  }

  /**
   * The workspace governance functions' alarms (with the fan-out) and the other request-path
   * functions' (ServiceOperations); the stream consumers' and the sweep's own alarms cover theirs
   * (iterator age, errors), OAuthServer the OAuth functions'.
   */
  private operate(
    props: StatelessStackProps,
    shared: { environment: Record<string, string>; tables: Record<GrantTarget, string> },
  ): WorkspaceGovernance {
    // An alarm's math takes at most 10 metrics: the workspace governance functions' throttles have
    // their own alarm, with the fan-out's.
    const governs = (name: string) =>
      MANAGEMENT_ROUTES.some((module) => module.name === name && module.tag === 'workspaces');
    // The OAuth functions' throttles have their own alarm too (OAuthServer).
    const ofOAuth = (name: string) =>
      name === 'oauth' || MANAGEMENT_ROUTES.some((module) => module.name === name && isOAuthRoute(module));
    // The leak reports are throttled by their own stage throttle, and alarmed on apart.
    const reportsLeaks = (name: string) =>
      MANAGEMENT_ROUTES.some((module) => module.name === name && module.throttle === 'leak-report');
    const governance = new WorkspaceGovernance(this, 'WorkspaceGovernance', {
      keysTable: props.keysTable,
      tables: shared.tables,
      routeFunctions: Object.entries(this.functions).flatMap(([name, fn]) => (governs(name) ? [fn] : [])),
      environment: shared.environment,
      logRetentionDays: props.settings.logRetentionDays,
      alarms: this.alarms,
    });
    new ServiceOperations(this, 'Operations', {
      api: this.api,
      mcpApi: this.mcpEndpoint.api,
      keyAuthorizer: this.keyAuthorizer,
      functions: Object.entries(this.functions).flatMap(([name, fn]) =>
        governs(name) || ofOAuth(name) || reportsLeaks(name) ? [] : [fn],
      ),
      leakFunctions: Object.entries(this.functions).flatMap(([name, fn]) => (reportsLeaks(name) ? [fn] : [])),
      keysTable: props.keysTable,
      alarms: this.alarms,
    });
    return governance;
  }
}
