import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Errors, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ArnPrincipal, type IPrincipal, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { afterAll, describe, expect, it } from 'vitest';
import {
  McpApiKeyService,
  type McpApiKeyServiceProps,
  McpApiKeyServiceStage,
} from '#infra/mcp-api-key-service';
import { ALARM_TOPIC, DEFAULT_SYNTH_SETTINGS, KEY_ADMINS, SKIP_BUNDLING } from '#test/support/synthesized';

/**
 * The whole service as a construct in a consumer's own CDK app (contract §16): placed in the
 * consumer's stack, it synthesizes with typed references (`alarmTopic`, `membershipsTable`,
 * `keyAdministrators`) reaching the templates; bad props are CDK `ValidationError`s naming each.
 */

const ENV = { account: '123456789012', region: 'eu-west-1' };
const root = mkdtempSync(join(tmpdir(), 'service-construct-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON
type Json = any;

describe('McpApiKeyService in a consumer’s stack', () => {
  const app = new App({ context: SKIP_BUNDLING, outdir: join(root, 'consumer') });
  const team = new Stack(app, 'Team', { env: ENV });
  const alarmTopic = Topic.fromTopicArn(team, 'OnCall', ALARM_TOPIC);
  const membershipsTable = TableV2.fromTableName(team, 'Memberships', 'forms-workspace-memberships');
  const admin = Role.fromRoleName(team, 'KeyAdmin', 'PlatformKeyAdmin');
  const keys = new McpApiKeyService(team, 'Keys', {
    settings: DEFAULT_SYNTH_SETTINGS,
    alarmTopic,
    membershipsTable,
    keyAdministrators: [admin, new ArnPrincipal(KEY_ADMINS[1] as string)],
  });
  const server = new Role(team, 'McpServer', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  keys.grantVerify(server);
  const assembly = app.synth();
  const stateful = Template.fromStack(keys.stateful).toJSON() as Json;
  const stateless = Template.fromStack(keys.stateless).toJSON() as Json;
  const consumer = Template.fromStack(team).toJSON() as Json;
  const ofType = (template: Json, type: string) =>
    Object.values(template.Resources as Record<string, Json>).filter((r) => r.Type === type);

  it('synthesizes: its two stacks beside the consumer’s, in its account and region, named after it', () => {
    expect(assembly.stacks.map((s) => s.stackName).sort()).toEqual([
      'Team',
      'Team-Keys-SvcMcpApiKeys-Stateful',
      'Team-Keys-SvcMcpApiKeys-Stateless',
    ]);
    for (const stack of [keys.stateful, keys.stateless]) {
      expect(stack.account).toBe(ENV.account);
      expect(stack.region).toBe(ENV.region);
    }
    // The consumer's grant reads the service's stack; the service's stacks never read the consumer's.
    expect(team.dependencies).toEqual([keys.stateful]);
    expect(keys.stateful.dependencies).toEqual([]);
  });

  it('the alarm topic is every alarm’s action, and no topic is created', () => {
    const alarms = ofType(stateless, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(5);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([ALARM_TOPIC]);
      expect(alarm.Properties.OKActions).toEqual([ALARM_TOPIC]);
    }
    expect(ofType(stateless, 'AWS::SNS::Topic')).toEqual([]);
  });

  it('the memberships table is not created but granted, to the service’s functions and the consumer', () => {
    expect(ofType(stateful, 'AWS::DynamoDB::GlobalTable')).toHaveLength(1);
    const granted = (template: Json) => JSON.stringify(ofType(template, 'AWS::IAM::Policy'));
    expect(granted(stateless)).toContain(':table/forms-workspace-memberships');
    expect(granted(consumer)).toContain(':table/forms-workspace-memberships');
  });

  it('the key administrators are named in the pepper key’s policy', () => {
    const [key] = ofType(stateful, 'AWS::KMS::Key');
    const administration = key.Properties.KeyPolicy.Statement.find(
      (s: Json) => s.Sid === 'KeyAdministration',
    );
    const arns = JSON.stringify(administration.Condition.ArnLike['aws:PrincipalArn']);
    expect(arns).toContain(':iam::123456789012:role/PlatformKeyAdmin');
    expect(arns).toContain(KEY_ADMINS[1]);
    expect(keys.settings.keyAdministratorArns).toHaveLength(2);
  });
});

describe('McpApiKeyService’s bad props are ValidationErrors naming each', () => {
  function failure(props: (stack: Stack) => McpApiKeyServiceProps): Error {
    const stack = new Stack(new App(), 'Team', { env: ENV });
    try {
      new McpApiKeyService(stack, 'Keys', props(stack));
    } catch (err) {
      expect(Errors.isValidationError(err)).toBe(true);
      expect((err as { constructPath?: string }).constructPath).toBe('Team/Keys');
      return err as Error;
    }
    throw new Error('no error thrown');
  }
  const settings = DEFAULT_SYNTH_SETTINGS;

  it.each<[string, (stack: Stack) => McpApiKeyServiceProps, RegExp]>([
    [
      'a jwtIssuer that is not an https URL',
      () => ({ settings: { ...settings, jwtIssuer: 'http://login.example.com/' } }),
      /^- jwtIssuer: must be an https URL$/m,
    ],
    [
      'a default expiry above the maximum',
      () => ({ settings: { ...settings, defaultExpiryDays: 120, maxExpiryDays: 90 } }),
      /^- defaultExpiryDays: must not exceed maxExpiryDays$/m,
    ],
    [
      'no jwtIssuer at all',
      () => ({ settings: { jwtAudience: 'svc-dashboard' } }),
      /^- jwtIssuer: is required \(an https URL\)$/m,
    ],
    [
      'an alarm topic given twice',
      (stack) => ({
        settings: { ...settings, alarmTopicArn: ALARM_TOPIC },
        alarmTopic: Topic.fromTopicArn(stack, 'OnCall', ALARM_TOPIC),
      }),
      /^- alarmTopic: set either alarmTopic or the alarmTopicArn setting, not both$/m,
    ],
    [
      'a FIFO alarm topic',
      (stack) => ({ settings, alarmTopic: new Topic(stack, 'OnCall', { fifo: true }) }),
      /^- alarmTopic: must be a standard SNS topic, not FIFO$/m,
    ],
    [
      'a memberships table given twice',
      (stack) => ({
        settings: { ...settings, membershipsTableName: 'forms' },
        membershipsTable: TableV2.fromTableName(stack, 'Memberships', 'forms'),
      }),
      /^- membershipsTable: set either membershipsTable or the membershipsTableName setting, not both$/m,
    ],
    [
      'a memberships table of another region',
      () => ({
        settings,
        membershipsTable: TableV2.fromTableAttributes(new Stack(new App(), 'Forms'), 'Memberships', {
          tableArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/forms',
        }),
      }),
      /^- membershipsTable: must be in the deployment's account and region/m,
    ],
    [
      'a key administrator that is a service',
      () => ({ settings, keyAdministrators: [new ServicePrincipal('lambda.amazonaws.com') as IPrincipal] }),
      /^- keyAdministrators: .* is not an IAM role or user$/m,
    ],
    [
      'a key administrator that is a group',
      () => ({ settings, keyAdministrators: [new ArnPrincipal('arn:aws:iam::123456789012:group/admins')] }),
      /^- keyAdministrators: each key administrator must be an IAM role or user ARN$/m,
    ],
  ])('%s', (_, props, line) => {
    const error = failure(props);
    expect(error.message).toMatch(/^invalid deployment settings:\n/);
    expect(error.message).toMatch(line);
  });

  it('names every problem at once', () => {
    const error = failure((stack) => ({
      settings: { ...settings, jwtIssuer: 'http://login.example.com/', alarmTopicArn: ALARM_TOPIC },
      alarmTopic: Topic.fromTopicArn(stack, 'OnCall', ALARM_TOPIC),
    }));
    expect(error.message.split('\n')).toEqual([
      'invalid deployment settings:',
      '- alarmTopic: set either alarmTopic or the alarmTopicArn setting, not both',
      '- jwtIssuer: must be an https URL',
    ]);
  });
});

describe('the service’s stack names', () => {
  it('in an app: <id>-SvcMcpApiKeys-…', () => {
    const keys = new McpApiKeyService(new App({ context: SKIP_BUNDLING }), 'McpKeys', {
      settings: DEFAULT_SYNTH_SETTINGS,
    });
    expect([keys.stateful.stackName, keys.stateless.stackName]).toEqual([
      'McpKeys-SvcMcpApiKeys-Stateful',
      'McpKeys-SvcMcpApiKeys-Stateless',
    ]);
  });

  it('McpApiKeyServiceStage keeps the stage’s: <stage>-SvcMcpApiKeys-…, in the stage’s environment', () => {
    const stage = new McpApiKeyServiceStage(new App({ context: SKIP_BUNDLING }), 'McpKeys', {
      env: ENV,
      settings: DEFAULT_SYNTH_SETTINGS,
    });
    expect([stage.stateful.stackName, stage.stateless.stackName]).toEqual([
      'McpKeys-SvcMcpApiKeys-Stateful',
      'McpKeys-SvcMcpApiKeys-Stateless',
    ]);
    expect(stage.stateful.account).toBe(ENV.account);
    expect(stage.settings.jwtIssuer).toBe(DEFAULT_SYNTH_SETTINGS.jwtIssuer);
  });
});
