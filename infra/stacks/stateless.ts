import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpJwtAuthorizer,
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { KEYS_TABLE } from '#lib/store/tables';
import { FUNCTION_BUNDLING } from '../constructs/bundling.ts';
import { ServiceFunction } from '../constructs/service-function.ts';
import { ROUTES, type RouteDefinition } from '../routes.ts';
import type { DeploymentSettings } from '../settings.ts';

export interface StatelessStackProps extends StackProps {
  settings: DeploymentSettings;
  keysTable: ITableV2;
  membershipsTable: ITableV2;
  pepperKey: IKey;
}

/** SSM parameter holding the key authorizer's ARN, for other stacks to attach it. */
export const KEY_AUTHORIZER_PARAMETER = '/svc-mcp-api-keys/key-authorizer-function-arn';

/**
 * Everything replaceable: the HTTP API with the JWT authorizer on the management routes, the
 * key authorizer on /mcp, the functions with least-privilege grants, alarms and a dashboard.
 */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  /** The key authorizer, for reuse by other MCP servers' APIs. */
  readonly keyAuthorizerFunction: IFunction;
  readonly functions: Record<RouteDefinition['handler'] | 'mcp-authorizer', IFunction>;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { settings, keysTable, membershipsTable, pepperKey } = props;

    const environment = {
      KEYS_TABLE_NAME: keysTable.tableName,
      MEMBERSHIPS_TABLE_NAME: membershipsTable.tableName,
      PEPPER_KMS_KEY_ID: pepperKey.keyArn,
      PEPPER_VERSION: '1',
      DEFAULT_EXPIRY_DAYS: String(settings.defaultExpiryDays),
      MAX_EXPIRY_DAYS: String(settings.maxExpiryDays),
      MAX_ACTIVE_KEYS: String(settings.maxActiveKeys),
      RETENTION_DAYS: String(settings.retentionDays),
    };
    const make = (entry: keyof typeof FUNCTION_BUNDLING, env: Record<string, string> = environment) =>
      new ServiceFunction(this, pascal(entry), {
        entry,
        environment: env,
        logRetentionDays: settings.logRetentionDays,
        ...FUNCTION_BUNDLING[entry],
      }).fn;

    const fns = {
      'create-key': make('create-key'),
      'list-keys': make('list-keys'),
      'rotate-key': make('rotate-key'),
      'revoke-key': make('revoke-key'),
      'mcp-authorizer': make('mcp-authorizer'),
      'mcp-server': make('mcp-server', {}),
    };
    this.functions = fns;
    this.keyAuthorizerFunction = fns['mcp-authorizer'];

    // Least privilege: each function gets exactly the calls it makes, on exactly its resources.
    const keys = keysTable.tableArn;
    const byUser = `${keysTable.tableArn}/index/${KEYS_TABLE.globalIndexes[0]?.indexName}`;
    const allow = (
      fn: IFunction,
      actions: string[],
      resources: string[],
      conditions?: Record<string, unknown>,
    ) =>
      fn.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions, resources, ...(conditions && { conditions }) }),
      );
    const mac = (fn: IFunction) => allow(fn, ['kms:GenerateMac'], [pepperKey.keyArn]);
    const memberships = (fn: IFunction) => allow(fn, ['dynamodb:BatchGetItem'], [membershipsTable.tableArn]);

    allow(fns['create-key'], ['dynamodb:GetItem', 'dynamodb:PutItem'], [keys]);
    memberships(fns['create-key']);
    mac(fns['create-key']);
    allow(fns['list-keys'], ['dynamodb:Query'], [byUser]);
    mac(fns['list-keys']); // the list cursor's MAC key is derived from the pepper
    allow(fns['rotate-key'], ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], [keys]);
    mac(fns['rotate-key']);
    allow(fns['revoke-key'], ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [keys]);
    // GetItem for a key seen first; one BatchGetItem across both tables for a warm verification
    // (the key's state and the memberships); a Query of memberships where it costs fewer units.
    allow(fns['mcp-authorizer'], ['dynamodb:GetItem'], [keys]);
    allow(fns['mcp-authorizer'], ['dynamodb:BatchGetItem'], [keys, membershipsTable.tableArn]);
    allow(fns['mcp-authorizer'], ['dynamodb:Query'], [membershipsTable.tableArn]);
    allow(fns['mcp-authorizer'], ['dynamodb:UpdateItem'], [keys], {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
    });
    mac(fns['mcp-authorizer']);

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new HttpApi(this, 'Api', {
      apiName: 'svc-mcp-api-keys',
      description: 'MCP API key management and the reference MCP endpoint',
      createDefaultStage: false,
      ...(settings.corsOrigins.length > 0 && {
        corsPreflight: {
          allowOrigins: settings.corsOrigins,
          allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.DELETE],
          allowHeaders: ['authorization', 'content-type'],
          exposeHeaders: ['location', 'x-request-id', 'retry-after', 'www-authenticate'],
          maxAge: Duration.hours(1),
        },
      }),
    });
    new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
      },
    });

    const userJwt = new HttpJwtAuthorizer('UserJwt', settings.jwtIssuer, {
      jwtAudience: settings.jwtAudience,
      identitySource: ['$request.header.Authorization'],
    });
    const mcpKey = new HttpLambdaAuthorizer('McpKey', this.keyAuthorizerFunction, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: ['$request.header.Authorization'],
      // A cache would delay revocation and membership removal (contract §6).
      resultsCacheTtl: Duration.seconds(0),
    });
    for (const route of ROUTES) {
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${pascal(route.handler)}${route.method}`, fns[route.handler]),
        authorizer: route.auth === 'jwt' ? userJwt : mcpKey,
      });
    }

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

    this.operations(Object.values(fns), keysTable);
  }

  private operations(fns: IFunction[], keysTable: ITableV2): void {
    const minute = Duration.minutes(1);
    const requests = this.api.metricCount({ period: minute });
    const serverErrors = this.api.metricServerError({ period: minute });
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period: minute,
      label: '5xx rate (%)',
    });
    new Alarm(this, 'Api5xxRate', {
      alarmDescription: 'More than 1% of API requests answered 5xx',
      metric: errorRate,
      threshold: 1,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const authorizerErrors = this.keyAuthorizerFunction.metricErrors({ period: minute });
    new Alarm(this, 'KeyAuthorizerErrors', {
      alarmDescription: 'The key authorizer failed (it denies on failure, so MCP callers are refused)',
      metric: authorizerErrors,
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const throttleMetrics: Record<string, IMetric> = {};
    fns.forEach((fn, i) => {
      throttleMetrics[`f${i}`] = fn.metricThrottles({ period: minute });
    });
    const throttles = new MathExpression({
      expression: Object.keys(throttleMetrics).join(' + '),
      usingMetrics: throttleMetrics,
      period: minute,
      label: 'Lambda throttles',
    });
    new Alarm(this, 'LambdaThrottles', {
      alarmDescription: 'A function of the service was throttled',
      metric: throttles,
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const systemErrors = keysTable.metric('SystemErrors', { statistic: 'Sum', period: minute });
    new Alarm(this, 'KeysTableSystemErrors', {
      alarmDescription: 'DynamoDB reported system errors on the keys table',
      metric: systemErrors,
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    new Dashboard(this, 'Dashboard', {
      dashboardName: 'svc-mcp-api-keys',
      widgets: [
        [
          new GraphWidget({
            title: 'API requests and 5xx',
            left: [requests, serverErrors],
            right: [errorRate],
          }),
          new GraphWidget({
            title: 'API latency (p99)',
            left: [this.api.metricLatency({ period: minute, statistic: 'p99' })],
          }),
        ],
        [
          new GraphWidget({
            title: 'Key authorizer',
            left: [this.keyAuthorizerFunction.metricInvocations({ period: minute }), authorizerErrors],
            right: [this.keyAuthorizerFunction.metricDuration({ period: minute, statistic: 'p99' })],
          }),
          new GraphWidget({ title: 'Throttles and DynamoDB system errors', left: [throttles, systemErrors] }),
        ],
      ],
    });
  }
}

const pascal = (s: string) => s.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
