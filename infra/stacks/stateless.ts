import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
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
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { LINEAGE_PREFIX } from '#lib/store/items';
import { BY_USER } from '#lib/store/tables';
import { ServiceAlarms } from '../constructs/alarms.ts';
import { FUNCTION_BUNDLING } from '../constructs/bundling.ts';
import { EventPublishing } from '../constructs/event-publishing.ts';
import { LeakResponse } from '../constructs/leak-response.ts';
import { McpEndpoint } from '../constructs/mcp-endpoint.ts';
import { KEY_AUTHORIZER_PARAMETER, McpKeyAuthorizer } from '../constructs/mcp-key-authorizer.ts';
import { ServiceOperations } from '../constructs/operations.ts';
import { ACCESS_LOG_FORMAT, ServiceFunction, serviceLogGroup } from '../constructs/service-function.ts';
import { WorkspaceGovernance } from '../constructs/workspace-governance.ts';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import { type RouteDefinition, routesOf } from '../routes.ts';
import type { DeploymentSettings } from '../settings.ts';

export interface StatelessStackProps extends StackProps {
  settings: DeploymentSettings;
  keysTable: ITableV2;
  membershipsTable: ITableV2;
  pepperKey: IKey;
}

export { KEY_AUTHORIZER_PARAMETER };

/**
 * Everything replaceable: the HTTP API with the JWT authorizer on the management routes, the
 * reference MCP endpoint on a REST API behind the key authorizer, the functions with
 * least-privilege grants, alarms and a dashboard.
 */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  /** The key authorizer, for reuse by other MCP servers' APIs. */
  readonly keyAuthorizerFunction: IFunction;
  readonly keyAuthorizer: McpKeyAuthorizer;
  readonly mcpEndpoint: McpEndpoint;
  readonly functions: Record<RouteDefinition['handler'] | 'mcp-authorizer', IFunction>;
  /** The alarms and their topic; `alarms.add(id, …)` adds one that notifies it (docs/operations.md). */
  readonly alarms: ServiceAlarms;
  /** The stream consumer, the expiry sweep and their alarms. */
  readonly events: EventPublishing;

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
      entry: string,
      options: { environment?: Record<string, string>; derivesPepper?: boolean } = {},
    ) =>
      new ServiceFunction(this, pascal(entry), {
        entry,
        environment: options.environment ?? environment,
        logRetentionDays: settings.logRetentionDays,
        ...(options.derivesPepper && { pepperKey }),
        ...FUNCTION_BUNDLING[entry],
      }).fn;

    // Only these derive the pepper (kms:GenerateMac); the key policy admits their roles by IAM path.
    const fns = {
      'create-key': make('create-key', { derivesPepper: true }),
      'list-keys': make('list-keys', { derivesPepper: true }), // the list cursor's MAC key derives from it
      'rotate-key': make('rotate-key', { derivesPepper: true }),
      'revoke-key': make('revoke-key'),
      'list-events': make('list-events', { derivesPepper: true }), // the events cursor's MAC key derives from it
      'report-leaked-keys': make('report-leaked-keys', { derivesPepper: true }),
      'github-secret-scanning': make('github-secret-scanning', {
        derivesPepper: true,
        environment: { ...environment, GITHUB_PUBLIC_KEYS_URL: settings.githubPublicKeysUrl },
      }),
      'mcp-authorizer': make('mcp-authorizer', { derivesPepper: true }),
      'mcp-server': make('mcp-server', {
        environment: {
          ...(settings.mcpAllowedOrigins.length > 0 && {
            MCP_ALLOWED_ORIGINS: settings.mcpAllowedOrigins.join(','),
          }),
        },
      }),
    };
    this.keyAuthorizerFunction = fns['mcp-authorizer'];
    this.keyAuthorizer = new McpKeyAuthorizer(this, 'McpKeyAuthorizer', { handler: fns['mcp-authorizer'] });
    this.mcpEndpoint = new McpEndpoint(this, 'McpEndpoint', {
      handler: fns['mcp-server'],
      keyAuthorizer: this.keyAuthorizer,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      logRetentionDays: settings.logRetentionDays,
    });

    // Least privilege: each function gets exactly the calls it makes, on exactly its resources.
    const keys = keysTable.tableArn;
    const byUser = `${keysTable.tableArn}/index/${BY_USER.indexName}`;
    const allow = (
      fn: IFunction,
      actions: string[],
      resources: string[],
      conditions?: Record<string, unknown>,
    ) =>
      fn.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions, resources, ...(conditions && { conditions }) }),
      );

    // Create's transaction puts the key and its event and updates the user's slot item.
    allow(fns['create-key'], ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [keys]);
    // Rotate reads the policies of the key's workspaces (contract §12).
    allow(fns['rotate-key'], ['dynamodb:BatchGetItem'], [keys]);
    // The memberships, and the policies of the key's workspaces (contract §12).
    allow(fns['create-key'], ['dynamodb:BatchGetItem'], [membershipsTable.tableArn, keys]);
    allow(fns['list-keys'], ['dynamodb:Query'], [byUser]);
    allow(fns['rotate-key'], ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], [keys]);
    allow(fns['revoke-key'], ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], [keys]);
    allow(fns['list-events'], ['dynamodb:GetItem'], [keys]);
    allow(fns['list-events'], ['dynamodb:Query'], [keys], {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${LINEAGE_PREFIX}*`] },
    });
    // GetItem for a key seen first; one BatchGetItem across both tables for a warm verification
    // (the key's state and the memberships); a Query of memberships where it costs fewer units.
    allow(fns['mcp-authorizer'], ['dynamodb:GetItem'], [keys]);
    allow(fns['mcp-authorizer'], ['dynamodb:BatchGetItem'], [keys, membershipsTable.tableArn]);
    allow(fns['mcp-authorizer'], ['dynamodb:Query'], [membershipsTable.tableArn]);
    allow(fns['mcp-authorizer'], ['dynamodb:UpdateItem'], [keys], {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
    });

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      ...(settings.alarmTopicArn && { topicArn: settings.alarmTopicArn }),
    });
    const governance = new WorkspaceGovernance(this, 'WorkspaceGovernance', {
      keysTable,
      membershipsTable,
      pepperKey,
      environment,
      logRetentionDays: settings.logRetentionDays,
      alarms: this.alarms,
    });
    const routeFns = { ...fns, ...governance.functions };
    this.functions = routeFns;

    const accessLogs = serviceLogGroup(this, 'ApiAccessLogs', settings.logRetentionDays);
    this.api = new HttpApi(this, 'Api', {
      apiName: 'svc-mcp-api-keys',
      description: 'MCP API key management',
      createDefaultStage: false,
      ...(settings.corsOrigins.length > 0 && {
        corsPreflight: {
          allowOrigins: settings.corsOrigins,
          allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PUT, CorsHttpMethod.DELETE],
          allowHeaders: ['authorization', 'content-type'],
          exposeHeaders: ['location', 'x-request-id', 'retry-after', 'www-authenticate', 'apigw-requestid'],
          maxAge: Duration.hours(1),
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
      const [added] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(
          `${pascal(route.handler)}${route.method}`,
          routeFns[route.handler],
        ),
        ...(route.auth === 'jwt' && { authorizer: userJwt }),
      });
      if (route.auth === 'none' && added) {
        acknowledgeGuardRule(added, GUARD_EXCEPTIONS.unauthenticatedLeakRoutes);
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

    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic every alarm notifies (ALARM and OK); subscribe the on-call to it',
    });
    new LeakResponse(this, 'LeakResponse', {
      reportFunction: fns['report-leaked-keys'],
      githubFunction: fns['github-secret-scanning'],
      keysTable,
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
    // The request-path functions (an alarm's math takes at most 10 metrics); the stream consumer's
    // and the sweep's own alarms cover theirs (iterator age, errors).
    new ServiceOperations(this, 'Operations', {
      api: this.api,
      keyAuthorizer: this.keyAuthorizer,
      functions: Object.values(fns),
      keysTable,
      alarms: this.alarms,
    });
  }
}

const pascal = (s: string) => s.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
