import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/build-app';
import { ROUTES } from '#infra/routes';
import { parseSettings } from '#infra/settings';
import { KEY_AUTHORIZER_PARAMETER } from '#infra/stacks/stateless';

const SETTINGS = {
  jwtIssuer: 'https://login.example.com/',
  jwtAudience: 'svc-dashboard',
  corsOrigins: 'https://dash.example.com',
};
// Skip esbuild bundling in unit tests; `npm run synth` bundles for real.
const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

let built: ReturnType<typeof buildApp>;
let stateful: Template;
let stateless: Template;

beforeAll(() => {
  built = buildApp({ context: SKIP_BUNDLING, settings: SETTINGS });
  stateful = Template.fromStack(built.stateful);
  stateless = Template.fromStack(built.stateless);
});

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

describe('stateful stack', () => {
  it('keeps the keys table safe: PITR, deletion protection, retain, TTL, GSI byUser, encryption', () => {
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
        GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'byUser' })],
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
      context: SKIP_BUNDLING,
      settings: { ...SETTINGS, membershipsTableName: 'forms-memberships' },
    });
    Template.fromStack(imported.stateful).resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    const policies = JSON.stringify(Template.fromStack(imported.stateless).findResources('AWS::IAM::Policy'));
    expect(policies).toContain(':table/forms-memberships');
  });
});

describe('stateless stack', () => {
  it('puts the JWT authorizer on every management route and the key authorizer on /mcp', () => {
    const authorizers = stateless.findResources('AWS::ApiGatewayV2::Authorizer');
    const jwt = Object.entries(authorizers).find(([, a]) => a.Properties.AuthorizerType === 'JWT');
    const lambda = Object.entries(authorizers).find(([, a]) => a.Properties.AuthorizerType === 'REQUEST');
    expect(jwt?.[1].Properties.JwtConfiguration).toEqual({
      Issuer: SETTINGS.jwtIssuer,
      Audience: ['svc-dashboard'],
    });
    expect(lambda?.[1].Properties).toMatchObject({
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: ['$request.header.Authorization'],
    });
    const routes = Object.values(stateless.findResources('AWS::ApiGatewayV2::Route')).map(
      (r) => r.Properties,
    );
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of routes) {
      const expected = route.RouteKey === 'POST /mcp' ? lambda?.[0] : jwt?.[0];
      expect(route.AuthorizationType, route.RouteKey).toBe(route.RouteKey === 'POST /mcp' ? 'CUSTOM' : 'JWT');
      expect(route.AuthorizerId, route.RouteKey).toEqual({ Ref: expected });
    }
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

  it('runs every function on the newest Node.js runtime, ARM64, with source maps', () => {
    const fns = Object.values(stateless.findResources('AWS::Lambda::Function')).map((f) => f.Properties);
    expect(fns).toHaveLength(6);
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
      [...logs, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem', 'kms:GenerateMac'].sort(),
    );
    expect(actionsOf('ListKeys')).toEqual([...logs, 'dynamodb:Query', 'kms:GenerateMac'].sort());
    expect(actionsOf('RotateKey')).toEqual(
      [...logs, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'kms:GenerateMac'].sort(),
    );
    expect(actionsOf('RevokeKey')).toEqual([...logs, 'dynamodb:GetItem', 'dynamodb:UpdateItem'].sort());
    expect(actionsOf('McpAuthorizer')).toEqual(
      [
        ...logs,
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'kms:GenerateMac',
      ].sort(),
    );
    expect(actionsOf('McpServer')).toEqual(logs);
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
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
    });
    const query = statements.find((s) => s.id.startsWith('ListKeys') && s.Action === 'dynamodb:Query');
    expect(JSON.stringify(query?.Resource)).toContain('/index/byUser');
    for (const s of statements) expect(s.Resource, `${s.id} ${String(s.Action)}`).not.toBe('*');
  });

  it('exports the key authorizer for reuse (SSM parameter and output)', () => {
    stateless.hasResourceProperties('AWS::SSM::Parameter', { Name: KEY_AUTHORIZER_PARAMETER });
    stateless.hasOutput('KeyAuthorizerFunctionArn', { Export: { Name: 'SvcMcpKeyAuthorizerFunctionArn' } });
    expect(built.stateless.keyAuthorizerFunction).toBe(built.stateless.functions['mcp-authorizer']);
  });

  it('alarms on 5xx rate, authorizer errors, throttles and DynamoDB system errors, with a dashboard', () => {
    const alarms = Object.keys(stateless.findResources('AWS::CloudWatch::Alarm'));
    for (const name of ['Api5xxRate', 'KeyAuthorizerErrors', 'LambdaThrottles', 'KeysTableSystemErrors']) {
      expect(
        alarms.some((a) => a.startsWith(name)),
        name,
      ).toBe(true);
    }
    stateless.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });
});

describe('settings', () => {
  it('require the JWT issuer and audience and name every problem', () => {
    expect(() => parseSettings({})).toThrow(/jwtIssuer.*jwtAudience/);
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
  it('finds nothing unacknowledged in either stack', () => {
    expect(() => built.app.synth()).not.toThrow();
  });

  it('would fail synth on an unacknowledged finding (the check can fail)', () => {
    const app = new App({ context: SKIP_BUNDLING });
    new Bucket(new Stack(app, 'Bad'), 'Unsafe');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow();
  });
});
