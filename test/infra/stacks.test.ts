import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUrlIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/build-app';
import { McpKeyAuthorizer } from '#infra/constructs/mcp-key-authorizer';
import { RUNAWAY_REFUSALS_PER_MINUTE } from '#infra/constructs/operations';
import {
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
} from '#infra/local/emulation/cors';
import { parseSettings } from '#infra/settings';
import { KEY_AUTHORIZER_PARAMETER } from '#infra/stacks/stateless';
import { REST_GATEWAY_RESPONSES } from '#lib/mcp/gateway-responses';
import { REST_STAGE, routeKey, routesOf } from '#lib/routes/index';
import { USAGE_ATTRIBUTES } from '#lib/store/usage-items';
import { DEFAULT_SYNTH_SETTINGS, SKIP_BUNDLING, synthesized } from '#test/support/synthesized';

const SETTINGS = DEFAULT_SYNTH_SETTINGS;
// The run's shared synth of the app with these settings (test/support/synth-setup.ts).
const { stateful, stateless } = await synthesized('defaults');

/** The IAM actions each function's role may perform, keyed by function logical-id prefix. */
function actionsOf(prefix: string): string[] {
  const policies = stateless.findResources('AWS::IAM::Policy');
  const actions: string[] = [];
  for (const [id, policy] of Object.entries(policies)) {
    if (!id.startsWith(prefix)) continue;
    for (const st of policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[]) {
      actions.push(...(Array.isArray(st.Action) ? st.Action : [st.Action]));
    }
  }
  return actions.sort();
}

/** Every statement of the stack's IAM policies, with the policy's logical id. */
function statementsOf(template: Template) {
  return Object.entries(template.findResources('AWS::IAM::Policy')).flatMap(([id, p]) =>
    (
      p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown; Condition?: unknown }[]
    ).map((s) => ({ id, ...s })),
  );
}

describe('stateful stack', () => {
  it('keeps the keys table safe: PITR, deletion protection, retain, TTL, its indexes, stream, encryption', () => {
    stateful.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        GlobalSecondaryIndexes: [
          Match.objectLike({ IndexName: 'byUser', Projection: { ProjectionType: 'ALL' } }),
          // The sweep's index carries only what an event needs.
          Match.objectLike({
            IndexName: 'byExpiry',
            Projection: {
              ProjectionType: 'INCLUDE',
              NonKeyAttributes: ['id', 'user_id', 'lineage_id', 'expires_at'],
            },
          }),
        ],
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
        SSESpecification: { SSEEnabled: true },
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });

  it('holds the pepper in a retained KMS HMAC_256 key for GenerateMac', () => {
    stateful.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' }),
    });
  });

  it('creates a memberships table unless one is imported by name', () => {
    stateful.resourceCountIs('AWS::DynamoDB::GlobalTable', 2);
    const imported = buildApp({
      checks: false,
      context: SKIP_BUNDLING,
      settings: { ...SETTINGS, membershipsTableName: 'forms-memberships' },
    });
    Template.fromStack(imported.stateful).resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    const policies = JSON.stringify(Template.fromStack(imported.stateless).findResources('AWS::IAM::Policy'));
    expect(policies).toContain(':table/forms-memberships');
  });
});

describe('stateless stack', () => {
  /** The stateless stack's alarm added to `ServiceAlarms` as `name`. */
  const alarmNamed = (name: string) =>
    Object.entries(stateless.findResources('AWS::CloudWatch::Alarm')).find(([id]) =>
      id.startsWith(`Alarms${name}`),
    )?.[1];
  it('puts the JWT authorizer on every management route of the HTTP API, and /mcp elsewhere', () => {
    const authorizers = Object.entries(stateless.findResources('AWS::ApiGatewayV2::Authorizer'));
    expect(authorizers).toHaveLength(1);
    const [jwtId, jwt] = authorizers[0] ?? [];
    expect(jwt?.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: SETTINGS.jwtIssuer, Audience: ['svc-dashboard'] },
    });
    const routes = Object.values(stateless.findResources('AWS::ApiGatewayV2::Route')).map(
      (r) => r.Properties,
    );
    // The consent routes (contract §15) are deployed only with OAuth on (test/infra/oauth.test.ts).
    const deployed = routesOf('http').filter((r) => r.module?.tag !== 'oauth-consent');
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(deployed.map(routeKey).sort());
    const open = routesOf('http')
      .filter((r) => r.auth === 'none')
      .map(routeKey);
    expect(open.sort()).toEqual(['POST /v1/mcp/leaked-keys', 'POST /v1/mcp/secret-scanning/github']);
    for (const route of routes.filter((r) => !open.includes(r.RouteKey))) {
      expect(route.AuthorizationType, route.RouteKey).toBe('JWT');
      expect(route.AuthorizerId, route.RouteKey).toEqual({ Ref: jwtId });
    }
    expect(routes.some((r) => String(r.RouteKey).includes('/mcp '))).toBe(false);
    expect(routes.some((r) => String(r.RouteKey).includes('/_dev'))).toBe(false);
  });

  it('limits CORS to the dashboard origins and throttles and logs the stage', () => {
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['https://dash.example.com'] }),
    });
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('configures the CORS that local mode emulates: methods, headers, exposed headers, max-age', () => {
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: ['https://dash.example.com'],
        AllowMethods: [...CORS_ALLOW_METHODS],
        AllowHeaders: [...CORS_ALLOW_HEADERS],
        ExposeHeaders: [...CORS_EXPOSE_HEADERS],
        MaxAge: CORS_MAX_AGE_SECONDS,
      },
    });
  });

  it('runs every function on the newest Node.js runtime, ARM64, with source maps', () => {
    const fns = Object.values(stateless.findResources('AWS::Lambda::Function')).map((f) => f.Properties);
    expect(fns).toHaveLength(21);
    for (const fn of fns) {
      expect(fn.Runtime).toBe('nodejs24.x');
      expect(fn.Architectures).toEqual(['arm64']);
      expect(fn.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.LoggingConfig.LogGroup).toBeDefined();
    }
  });

  it('lets the key authorizer read both tables in one BatchGetItem and Query only memberships', () => {
    const policies = stateless.findResources('AWS::IAM::Policy');
    const statements = Object.entries(policies)
      .filter(([id]) => id.startsWith('McpAuthorizer'))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string; Resource: unknown }[]);
    const resourcesOf = (action: string) =>
      JSON.stringify(statements.find((s) => s.Action === action)?.Resource);
    expect(resourcesOf('dynamodb:BatchGetItem')).toMatch(/KeysTable.*Memberships|Memberships.*KeysTable/);
    expect(resourcesOf('dynamodb:Query')).toMatch(/Memberships/);
    expect(resourcesOf('dynamodb:Query')).not.toMatch(/KeysTable/);
  });

  it('grants each function exactly the calls it makes', () => {
    const logs = ['logs:CreateLogStream', 'logs:PutLogEvents'];
    expect(actionsOf('CreateKey')).toEqual(
      [
        ...logs,
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchGetItem',
        'kms:GenerateMac',
      ].sort(),
    );
    // Its page from the by-user index, each key's last seven days of calls on the key's own item.
    expect(actionsOf('ListKeys')).toEqual([...logs, 'dynamodb:Query', 'kms:GenerateMac'].sort());
    expect(actionsOf('GetKeyUsage')).toEqual([...logs, 'dynamodb:GetItem', 'dynamodb:Query'].sort());
    expect(actionsOf('RotateKey')).toEqual(
      [
        ...logs,
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:BatchGetItem',
        'dynamodb:ConditionCheckItem',
        'kms:GenerateMac',
      ].sort(),
    );
    expect(actionsOf('RevokeKey')).toEqual(
      [...logs, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'].sort(),
    );
    expect(actionsOf('ListEvents')).toEqual(
      [...logs, 'dynamodb:GetItem', 'dynamodb:Query', 'kms:GenerateMac'].sort(),
    );
    expect(actionsOf('EventsPublishEvents')).toEqual(
      [
        ...logs,
        'events:PutEvents',
        'sqs:SendMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'dynamodb:ListStreams',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ].sort(),
    );
    expect(actionsOf('EventsExpirySweep')).toEqual(
      [...logs, 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem'].sort(),
    );
    // Two updates: last use and the days' calls (ReturnValues NONE), a limited credential's counters (UPDATED_NEW).
    expect(actionsOf('McpAuthorizer')).toEqual(
      [
        ...logs,
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'kms:GenerateMac',
      ].sort(),
    );
    expect(actionsOf('McpServer')).toEqual(logs);
    // Workspace governance (contract §12): the caller's role, then exactly what each route does.
    const governance = (name: string) => actionsOf(name);
    expect(governance('ListWorkspaceKeys')).toEqual(
      [...logs, 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'kms:GenerateMac'].sort(),
    );
    expect(governance('CutOffKey')).toEqual(
      [
        ...logs,
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
      ].sort(),
    );
    expect(governance('ListWorkspaceEvents')).toEqual(
      [...logs, 'dynamodb:BatchGetItem', 'dynamodb:Query', 'kms:GenerateMac'].sort(),
    );
    expect(governance('GetWorkspaceUsage')).toEqual(
      [...logs, 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:Query'].sort(),
    );
    expect(governance('GetWorkspacePolicy')).toEqual(
      [...logs, 'dynamodb:BatchGetItem', 'dynamodb:GetItem'].sort(),
    );
    expect(governance('PutWorkspacePolicy')).toEqual(
      [
        ...logs,
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
      ].sort(),
    );
    // The fan-out: the workspace's partition, its keys, and the cut-offs' transactions.
    expect(actionsOf('WorkspaceGovernanceApplyWorkspacePolicy')).toEqual(
      [
        ...logs,
        'dynamodb:Query',
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'sqs:SendMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'dynamodb:ListStreams',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ].sort(),
    );
  });

  it('lets the authorizer update only the last-use attribute and list read only the byUser index', () => {
    const policies = stateless.findResources('AWS::IAM::Policy');
    const statements = Object.entries(policies).flatMap(([id, p]) =>
      (
        p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown; Condition?: unknown }[]
      ).map((s) => ({
        id,
        ...s,
      })),
    );
    const update = statements.find(
      (s) => s.id.startsWith('McpAuthorizer') && s.Action === 'dynamodb:UpdateItem',
    );
    expect(update?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at', 'calls_on_*'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
    });
    // A limited credential's counters (contract §19): those attributes only, their totals answered.
    const counters = statements.filter(
      (s) => s.id.startsWith('McpAuthorizer') && s.Action === 'dynamodb:UpdateItem',
    )[1];
    expect(counters?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:Attributes': ['pk', 'sk', 'rate_*'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['UPDATED_NEW'] },
    });
    const usage = statements.find((s) => s.id.startsWith('McpAuthorizer') && s.Action === 'dynamodb:PutItem');
    expect(usage?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USAGE#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...USAGE_ATTRIBUTES] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
      Null: { 'dynamodb:LeadingKeys': 'false', 'dynamodb:Attributes': 'false' },
    });
    const query = statements.find((s) => s.id.startsWith('ListKeys') && s.Action === 'dynamodb:Query');
    expect(JSON.stringify(query?.Resource)).toContain('/index/byUser');
    for (const s of statements) expect(s.Resource, `${s.id} ${String(s.Action)}`).not.toBe('*');
  });

  it('limits event history reads to lineage partitions and the sweep to its index', () => {
    const statements = statementsOf(stateless);
    const eventsQuery = statements.find(
      (s) => s.id.startsWith('ListEvents') && s.Action === 'dynamodb:Query',
    );
    expect(eventsQuery?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LINEAGE#*'] },
    });
    const sweepQuery = statements.find(
      (s) => s.id.startsWith('EventsExpirySweep') && s.Action === 'dynamodb:Query',
    );
    expect(JSON.stringify(sweepQuery?.Resource)).toContain('/index/byExpiry');
    const putEvents = statements.find((s) => s.Action === 'events:PutEvents');
    expect(JSON.stringify(putEvents?.Resource)).toContain(':event-bus/default');
    const streamActions = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords'];
    const streamReads = statements.filter((s) =>
      streamActions.some((a) => JSON.stringify(s.Action).includes(a)),
    );
    expect(streamReads.length).toBeGreaterThan(0);
    for (const st of streamReads) expect(JSON.stringify(st.Resource)).toContain('StreamArn');
  });

  it('consumes the stream’s event items with retries, bisection, partial batch responses and a dead-letter queue', () => {
    stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ParallelizationFactor: 1,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventsDeadLetters'), 'Arn'] } },
      },
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: { NewImage: { pk: { S: [{ prefix: 'LINEAGE#' }] } } },
            }),
          },
          // Workspace events (contract §12): the policy changes, published like the key events.
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: {
                NewImage: {
                  pk: { S: [{ prefix: 'WORKSPACE#' }] },
                  type: { S: ['workspace.policy_changed'] },
                },
              },
            }),
          },
        ],
      },
    });
    // The policy fan-out takes only the policy changes, with its own dead-letter queue.
    stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^WorkspaceGovernanceApplyWorkspacePolicy') },
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: {
          Destination: {
            'Fn::GetAtt': [Match.stringLikeRegexp('^WorkspaceGovernanceFanOutDeadLetters'), 'Arn'],
          },
        },
      },
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: {
                NewImage: {
                  pk: { S: [{ prefix: 'WORKSPACE#' }] },
                  type: { S: ['workspace.policy_changed'] },
                },
              },
            }),
          },
        ],
      },
    });
    stateless.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    stateless.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ],
      },
    });
    const publisher = Object.values(stateless.findResources('AWS::Lambda::Function')).find(
      (f) => f.Properties.Environment.Variables.EVENT_BUS_NAME,
    );
    expect(publisher?.Properties.Environment.Variables).not.toHaveProperty('KEYS_TABLE_NAME');
  });

  it('runs the expiry sweep every hour', () => {
    stateless.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventsExpirySweepFunction'), 'Arn'] },
        }),
      ],
    });
  });

  it('exports the key authorizer for reuse (SSM parameter and output)', () => {
    stateless.hasResourceProperties('AWS::SSM::Parameter', { Name: KEY_AUTHORIZER_PARAMETER });
    stateless.hasOutput('KeyAuthorizerFunctionArn', { Export: { Name: 'SvcMcpKeyAuthorizerFunctionArn' } });
    const built = buildApp({ context: SKIP_BUNDLING, settings: SETTINGS });
    expect(built.stateless.keyAuthorizerFunction).toBe(built.stateless.functions['mcp-authorizer']);
  });

  it('alarms on one credential refused for its limits minute after minute (contract §19)', () => {
    const rules = Object.values(stateless.findResources('AWS::CloudWatch::InsightRule'));
    expect(rules).toHaveLength(1);
    const body = JSON.stringify(rules[0]?.Properties.RuleBody);
    // The key authorizer's decision lines refused for a limit, counted per credential.
    for (const part of ['$.key_id', 'mcp key decision', 'rate_limited', 'McpAuthorizer'])
      expect(body).toContain(part.replaceAll('"', '\\"'));
    const alarm = Object.entries(stateless.findResources('AWS::CloudWatch::Alarm')).find(([id]) =>
      id.startsWith('AlarmsRunawayCredential'),
    );
    expect(alarm?.[1].Properties).toMatchObject({
      Threshold: RUNAWAY_REFUSALS_PER_MINUTE,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(JSON.stringify(alarm?.[1].Properties.Metrics)).toContain('INSIGHT_RULE_METRIC');
  });

  it('keeps the key authorizer’s result cache off, so a cached Deny for one tool never answers another', () => {
    // API Gateway's cache would key on the identity sources alone (Authorization), and with the
    // cache on it needs every identity source present, which Mcp-Name is not on initialize or from
    // older clients: the cache stays off (decisions.md), and each call is verified with its tool.
    const authorizers = Object.values(stateless.findResources('AWS::ApiGateway::Authorizer'));
    expect(authorizers.length).toBeGreaterThan(0);
    for (const a of authorizers) expect(a.Properties.AuthorizerResultTtlInSeconds).toBe(0);
  });

  it('alarms on 5xx rate, authorizer errors, throttles and DynamoDB system errors, with a dashboard', () => {
    const alarms = Object.keys(stateless.findResources('AWS::CloudWatch::Alarm'));
    for (const name of ['Api5xxRate', 'KeyAuthorizerErrors', 'LambdaThrottles', 'KeysTableSystemErrors']) {
      expect(
        alarms.some((a) => a.startsWith(`Alarms${name}`)),
        name,
      ).toBe(true);
    }
    stateless.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('alarms on each API’s own 5xx rate: the management HTTP API and the MCP endpoint’s REST API', () => {
    // The metric names of each alarm's math: HTTP APIs count `5xx`, REST APIs `5XXError`.
    type MetricQuery = { MetricStat?: { Metric: { MetricName: string; Dimensions: unknown } } };
    const metricsOf = (name: string) =>
      ((alarmNamed(name)?.Properties.Metrics ?? []) as MetricQuery[]).flatMap((m) =>
        m.MetricStat ? [m.MetricStat.Metric] : [],
      );
    const mgmt = metricsOf('Api5xxRate');
    expect(mgmt.map((m) => m.MetricName).sort()).toEqual(['5xx', 'Count']);
    const mcp = metricsOf('McpEndpoint5xxRate');
    expect(mcp.map((m) => m.MetricName).sort()).toEqual(['5XXError', 'Count']);
    expect(JSON.stringify(mcp.map((m) => m.Dimensions))).toContain('svc-mcp-reference');
    expect(alarmNamed('McpEndpoint5xxRate')?.Properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('alarms on event publishing failures, dead letters and sweep failures', () => {
    for (const name of ['EventPublishFailures', 'EventDeadLetters', 'ExpirySweepFailures']) {
      expect(alarmNamed(name)?.Properties.AlarmActions, name).toHaveLength(1);
    }
    const publish = JSON.stringify(alarmNamed('EventPublishFailures')?.Properties.Metrics);
    for (const metric of ['"Errors"', '"EventPublishFailures"', '"IteratorAge"'])
      expect(publish).toContain(metric);
    expect(alarmNamed('EventDeadLetters')?.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(alarmNamed('ExpirySweepFailures')?.Properties).toMatchObject({
      MetricName: 'Errors',
      Threshold: 0,
    });
  });

  it('alarms on the policy fan-out’s errors and on the first policy change it gave up on', () => {
    expect(alarmNamed('PolicyFanOutErrors')?.Properties).toMatchObject({
      MetricName: 'Errors',
      Threshold: 0,
    });
    const deadLetters = alarmNamed('PolicyFanOutDeadLetters')?.Properties;
    expect(deadLetters).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(deadLetters?.AlarmActions).toHaveLength(1);
    // The queue it watches is the fan-out's, not the events consumer's.
    expect(JSON.stringify(deadLetters?.Dimensions)).toMatch(/WorkspaceGovernanceFanOutDeadLetters/);
  });
});

describe('reference MCP endpoint (REST API)', () => {
  const logicalId = (type: string, props: Record<string, unknown> = {}) => {
    const ids = Object.keys(stateless.findResources(type, { Properties: props }));
    expect(ids, type).toHaveLength(1);
    return ids[0] as string;
  };

  it('is a regional REST API with a throttled, access-logged stage', () => {
    stateless.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'svc-mcp-reference',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    stateless.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: REST_STAGE,
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
        }),
      ]),
    });
    stateless.resourceCountIs('AWS::ApiGateway::Account', 0);
    stateless.hasOutput('McpEndpointUrl', { Value: Match.anyValue() });
  });

  it('sends POST, GET, HEAD and DELETE /mcp through the key authorizer, as a REQUEST authorizer with TTL 0', () => {
    const authorizerId = logicalId('AWS::ApiGateway::Authorizer');
    const authorizer = stateless.findResources('AWS::ApiGateway::Authorizer')[authorizerId];
    expect(authorizer?.Properties).toMatchObject({
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 0,
    });
    const uri = JSON.stringify(authorizer?.Properties.AuthorizerUri);
    expect(uri).toContain('McpAuthorizer');
    const methods = Object.values(stateless.findResources('AWS::ApiGateway::Method')).map(
      (m) => m.Properties,
    );
    expect(methods.map((m) => m.HttpMethod).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
    expect(methods.map((m) => m.HttpMethod).sort()).toEqual(
      routesOf('rest')
        .map((r) => r.method)
        .sort(),
    );
    for (const method of methods) {
      expect(method.AuthorizationType, method.HttpMethod).toBe('CUSTOM');
      expect(method.AuthorizerId, method.HttpMethod).toEqual({ Ref: authorizerId });
      expect(method.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(JSON.stringify(method.Integration.Uri)).toContain('McpServer');
    }
    stateless.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'mcp' });
  });

  it.each(Object.entries(REST_GATEWAY_RESPONSES))(
    'sets the %s gateway response: status, headers and JSON-RPC body of contract §7',
    (type, answer) => {
      const { 'content-type': _json, ...headers } = answer.headers;
      stateless.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(answer.status),
        ResponseParameters: Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`]),
        ),
        ResponseTemplates: { 'application/json': answer.body },
      });
    },
  );

  it('challenges 401s and 403s the way MCP clients expect, and asks a 503 to retry', () => {
    const byType = Object.fromEntries(
      Object.values(stateless.findResources('AWS::ApiGateway::GatewayResponse')).map((r) => [
        r.Properties.ResponseType,
        r.Properties,
      ]),
    );
    expect(byType.UNAUTHORIZED?.StatusCode).toBe('401');
    expect(byType.UNAUTHORIZED?.ResponseParameters['gatewayresponse.header.www-authenticate']).toMatch(
      /^'Bearer realm="svc-mcp", error="invalid_token"/,
    );
    expect(byType.ACCESS_DENIED?.StatusCode).toBe('403');
    expect(byType.ACCESS_DENIED?.ResponseParameters['gatewayresponse.header.www-authenticate']).toBe(
      `'Bearer realm="svc-mcp"'`,
    );
    for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR']) {
      expect(byType[type]?.StatusCode).toBe('503');
      expect(byType[type]?.ResponseParameters).toEqual({ 'gatewayresponse.header.retry-after': "'2'" });
      expect(JSON.parse(byType[type]?.ResponseTemplates['application/json']).error.code).toBe(-32002);
    }
    expect(JSON.stringify(byType)).not.toContain('resource_metadata');
  });

  it('gives the MCP function the allowed origins only when some are set', () => {
    const mcpEnv = (template: Template) =>
      Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
        id.startsWith('McpServer'),
      )?.[1].Properties.Environment.Variables;
    expect(mcpEnv(stateless).MCP_ALLOWED_ORIGINS).toBeUndefined();
    const custom = buildApp({
      checks: false,
      context: SKIP_BUNDLING,
      settings: { ...SETTINGS, mcpAllowedOrigins: 'https://app.example.com,http://localhost:6274' },
    });
    expect(mcpEnv(Template.fromStack(custom.stateless)).MCP_ALLOWED_ORIGINS).toBe(
      'https://app.example.com,http://localhost:6274',
    );
    expect(() => parseSettings({ ...SETTINGS, mcpAllowedOrigins: 'https://app.example.com/path' })).toThrow(
      /mcpAllowedOrigins/,
    );
  });

  it('alarms on authorizer failures, not on the Unauthorized it throws for refused keys', () => {
    const alarm = Object.entries(stateless.findResources('AWS::CloudWatch::Alarm')).find(([id]) =>
      id.startsWith('AlarmsKeyAuthorizerErrors'),
    )?.[1];
    const text = JSON.stringify(alarm?.Properties.Metrics);
    // REST: function errors less the Unauthorized throws; HTTP API reuse: the caught failures.
    expect(text).toContain('MAX([thrown, caught])');
    expect(text).toContain('FILL(errors, 0) - FILL(unauthorized, 0)');
    expect(text).toContain('"MetricName":"AuthorizerUnauthorized"');
    expect(text).toContain('"MetricName":"AuthorizerDecisions"');
    expect(text).toContain('"MetricName":"Errors"');
  });
});

describe('McpKeyAuthorizer in another stack', () => {
  const consumer = () => {
    const app = new App({ context: SKIP_BUNDLING });
    const stack = new Stack(app, 'Consumer');
    const keys = McpKeyAuthorizer.fromParameter(stack, 'McpKeys');
    return { app, stack, keys };
  };

  it('attaches to a REST API in a few lines: REQUEST authorizer, TTL 0, the gateway responses', () => {
    const { stack, keys } = consumer();
    const api = new RestApi(stack, 'Api');
    const mcp = api.root.addResource('mcp');
    mcp.addMethod('POST', new MockIntegration(), { authorizer: keys.attachToRestApi(api) });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 0,
    });
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', Object.keys(REST_GATEWAY_RESPONSES).length);
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      AuthorizationType: 'CUSTOM',
    });
    // The function comes from the key service's SSM parameter and may be invoked by this API.
    expect(JSON.stringify(template.toJSON().Parameters)).toContain(KEY_AUTHORIZER_PARAMETER);
    template.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'apigateway.amazonaws.com' });
    expect(keys.attachToRestApi(api)).toBe(keys.attachToRestApi(api));
  });

  it('attaches to an HTTP API: simple responses, payload 2.0, TTL 0, identity source Authorization', () => {
    const { stack, keys } = consumer();
    const api = new HttpApi(stack, 'HttpApi');
    api.addRoutes({
      path: '/mcp',
      methods: [HttpMethod.POST],
      integration: new HttpUrlIntegration('Mcp', 'https://mcp.example.com/mcp'),
      authorizer: keys.attachToHttpApi(api),
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: ['$request.header.Authorization'],
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /mcp',
      AuthorizationType: 'CUSTOM',
    });
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', 0);
  });
});

describe('settings', () => {
  it('require the JWT issuer and audience and name every problem', () => {
    expect(() => parseSettings({})).toThrow(/jwtIssuer[\s\S]*jwtAudience/);
    expect(() => parseSettings({ ...SETTINGS, jwtIssuer: 'http://insecure' })).toThrow(/https/);
    expect(() => parseSettings({ ...SETTINGS, defaultExpiryDays: 100 })).toThrow(/defaultExpiryDays/);
    expect(parseSettings(SETTINGS)).toMatchObject({
      defaultExpiryDays: 30,
      maxExpiryDays: 90,
      maxActiveKeys: 50,
      retentionDays: 90,
    });
  });

  it('flow into every function’s environment', () => {
    const custom = buildApp({
      checks: false,
      context: SKIP_BUNDLING,
      settings: { ...SETTINGS, maxExpiryDays: 60, maxActiveKeys: 10 },
    });
    const functions = Object.entries(
      Template.fromStack(custom.stateless).findResources('AWS::Lambda::Function'),
    )
      // Functions that read no key settings (the MCP endpoint) have none to receive.
      .filter(([, f]) => f.Properties.Environment?.Variables?.KEYS_TABLE_NAME !== undefined);
    expect(functions.length).toBeGreaterThanOrEqual(5);
    for (const [id, f] of functions) {
      expect(f.Properties.Environment.Variables, id).toMatchObject({
        MAX_EXPIRY_DAYS: '60',
        MAX_ACTIVE_KEYS: '10',
      });
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in either stack', async () => {
    // The shared synth ran cdk-nag with the app's acknowledgements; a finding would have failed it.
    const nag = (await synthesized('defaults')).validationReport.pluginReports;
    expect(nag.map((r) => r.conclusion)).not.toContain('failure');
    expect(stateless.toJSON().Resources).not.toEqual({});
  });

  it('would fail synth on an unacknowledged finding (the check can fail)', () => {
    const app = new App({ context: SKIP_BUNDLING });
    new Bucket(new Stack(app, 'Bad'), 'Unsafe');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow();
  });
});

describe('leak routes', () => {
  it('are on the HTTP API without the JWT authorizer, each throttled on its own', () => {
    for (const key of ['POST /v1/mcp/leaked-keys', 'POST /v1/mcp/secret-scanning/github']) {
      stateless.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: key,
        AuthorizationType: 'NONE',
      });
    }
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      RouteSettings: {
        'POST /v1/mcp/leaked-keys': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
        'POST /v1/mcp/secret-scanning/github': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
      },
    });
  });

  it('give the GitHub function GitHub’s keys URL, and alarm on forged reports and surges', () => {
    const github = Object.entries(stateless.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('GithubSecretScanning'),
    )?.[1];
    expect(github?.Properties.Environment.Variables.GITHUB_PUBLIC_KEYS_URL).toBe(
      'https://api.github.com/meta/public_keys/secret_scanning',
    );
    const alarms = Object.keys(stateless.findResources('AWS::CloudWatch::Alarm'));
    for (const name of ['GithubSignatureFailures', 'LeakReportsSurge'])
      expect(
        alarms.some((a) => a.startsWith(`Alarms${name}`)),
        name,
      ).toBe(true);
  });
});
