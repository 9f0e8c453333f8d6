import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/build-app';
import {
  CDK_DEPLOY_ROLE_NAME,
  KEY_ADMIN_ACTIONS,
  PEPPER_ROLE_PATH,
  VERIFIER_TAG,
} from '#infra/constructs/pepper-key';
import { GUARD_EXCEPTIONS, GUARD_PLUGIN } from '#infra/guard';
import { parseSettings } from '#infra/settings';
import { soakOnly } from '#test/support/soak';
import {
  ALARM_TOPIC,
  DEFAULT_SYNTH_SETTINGS,
  KEY_ADMINS,
  SKIP_BUNDLING,
  synthesized,
} from '#test/support/synthesized';

const SETTINGS = DEFAULT_SYNTH_SETTINGS;
const TOPIC = ALARM_TOPIC;
const ADMINS = KEY_ADMINS;
/** The alarms that the next parts of the service add, whose runbook entries exist already. */
const PLANNED_ALARMS = [
  'EventPublishFailures',
  'EventDeadLetters',
  'ExpirySweepFailures',
  'GithubSignatureFailures',
  'LeakReportsSurge',
];

type Resource = { Type: string; Properties: Record<string, unknown>; [k: string]: unknown };
type Statement = {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal: unknown;
  Action: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
};

/** The shared synth's apps: the defaults, and every operations setting set (`custom`). */
const apps = { defaults: await synthesized('defaults'), custom: await synthesized('operations') };
const templates: Record<'defaults' | 'custom', { stateful: Template; stateless: Template }> = apps;

const resources = (template: Template, type: string) =>
  Object.entries(template.findResources(type)) as [string, Resource][];
/** The one resource of a type in a template. */
const only = (template: Template, type: string): [string, Resource] => {
  const found = resources(template, type);
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Resource];
};
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const keyPolicy = (template: Template) => {
  const [id, key] = only(template, 'AWS::KMS::Key');
  return { id, statements: (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement };
};
/** `arn:${Partition}:iam::${AccountId}:<rest>` as CDK renders it with Fn::Join. */
const accountArn = (rest: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, `:${rest}`]],
});
const ACCOUNT = accountArn('root');
const PEPPER_ROLES = accountArn(`role${PEPPER_ROLE_PATH}*`);
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

describe('alarms', () => {
  it('every alarm in both stacks notifies the topic when it fires and when it recovers', () => {
    for (const { stateful, stateless } of Object.values(templates)) {
      const alarms = [
        ...resources(stateful, 'AWS::CloudWatch::Alarm'),
        ...resources(stateless, 'AWS::CloudWatch::Alarm'),
      ];
      expect(alarms.length).toBeGreaterThanOrEqual(4);
      for (const [id, alarm] of alarms) {
        expect(alarm.Properties.AlarmActions, id).toEqual([expect.anything()]);
        expect(alarm.Properties.OKActions, id).toEqual(alarm.Properties.AlarmActions);
      }
    }
    const [topicId] = only(templates.defaults.stateless, 'AWS::SNS::Topic');
    for (const [, alarm] of resources(templates.defaults.stateless, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    }
    for (const [, alarm] of resources(templates.custom.stateless, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions).toEqual([TOPIC]);
    }
  });

  it('every alarm names its runbook entry in docs/operations.md, and the planned alarms have theirs', () => {
    const runbook = readFileSync(join(process.cwd(), 'docs/operations.md'), 'utf8');
    const anchors = new Set([...runbook.matchAll(/^#{2,4} (.+)$/gm)].map((m) => slug(m[1] as string)));
    const alarms = resources(templates.defaults.stateless, 'AWS::CloudWatch::Alarm');
    for (const [id, alarm] of alarms) {
      const anchor = /Runbook: docs\/operations\.md#([a-z0-9-]+)$/.exec(
        String(alarm.Properties.AlarmDescription),
      );
      expect(anchor, id).not.toBeNull();
      expect(anchors.has(anchor?.[1] as string), `${id} -> #${anchor?.[1]}`).toBe(true);
    }
    for (const id of PLANNED_ALARMS) expect(anchors.has(id.toLowerCase()), id).toBe(true);
  });

  it('counts caught verification failures as key authorizer failures, not only crashes', () => {
    const alarm = resources(templates.defaults.stateless, 'AWS::CloudWatch::Alarm').find(([id]) =>
      id.startsWith('AlarmsKeyAuthorizerErrors'),
    );
    const metrics = JSON.stringify(alarm?.[1].Properties.Metrics);
    expect(metrics).toContain('"MetricName":"Errors"');
    expect(metrics).toContain('"MetricName":"AuthorizerDecisions"');
    expect(metrics).toContain('{"Name":"outcome","Value":"error"}');
    expect(metrics).toContain('"Namespace":"SvcMcpApiKeys"');
  });

  it('creates a topic, with its ARN as an output, that only CloudWatch alarms of the account may publish to, over TLS', () => {
    const { stateless } = templates.defaults;
    const [topicId] = only(stateless, 'AWS::SNS::Topic');
    stateless.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
    const [, policy] = only(stateless, 'AWS::SNS::TopicPolicy');
    const statements = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const publish = statements.find((s) => s.Effect === 'Allow');
    expect(publish).toMatchObject({
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: 'sns:Publish',
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    });
  });

  it('imports the topic named by alarmTopicArn instead of creating one', () => {
    const { stateless } = templates.custom;
    stateless.resourceCountIs('AWS::SNS::Topic', 0);
    stateless.hasOutput('AlarmTopicArn', { Value: TOPIC });
  });
});

describe('pepper key policy', () => {
  it('keeps the key’s logical id: a new key would be a new pepper, and every existing key would fail', () => {
    expect(keyPolicy(templates.defaults.stateful).id).toBe('PepperKey0F91C00C');
    expect(keyPolicy(templates.custom.stateful).id).toBe('PepperKey0F91C00C');
  });

  it('never lets the account root, or anyone outside the service roles and granted verifiers, use the key for MAC operations', () => {
    for (const { stateful } of Object.values(templates)) {
      const { statements } = keyPolicy(stateful);
      for (const s of statements.filter((s) => s.Effect === 'Allow')) {
        expect(actions(s), s.Sid).not.toContain('kms:*');
        expect(actions(s), s.Sid).not.toContain('kms:VerifyMac');
        expect(actions(s), s.Sid).not.toContain('kms:CreateGrant');
        expect(
          actions(s).filter((a) => a.includes('*')),
          s.Sid,
        ).toEqual([]);
      }
      // Scoped: the account delegates to IAM, only for roles under the service's path or carrying
      // the tag grantVerify sets, and only for HMAC_SHA_256.
      expect(
        statements.filter((s) => actions(s).includes('kms:GenerateMac') && s.Effect === 'Allow'),
      ).toEqual([
        {
          Sid: 'PepperDerivationByServiceRoles',
          Effect: 'Allow',
          Principal: { AWS: ACCOUNT },
          Action: 'kms:GenerateMac',
          Resource: '*',
          Condition: {
            ArnLike: { 'aws:PrincipalArn': PEPPER_ROLES },
            StringEquals: { 'kms:MacAlgorithm': 'HMAC_SHA_256' },
          },
        },
        {
          Sid: 'PepperDerivationByGrantedVerifiers',
          Effect: 'Allow',
          Principal: { AWS: ACCOUNT },
          Action: 'kms:GenerateMac',
          Resource: '*',
          Condition: {
            StringEquals: {
              [`aws:PrincipalTag/${VERIFIER_TAG.key}`]: VERIFIER_TAG.value,
              'kms:MacAlgorithm': 'HMAC_SHA_256',
            },
          },
        },
      ]);
      // The root user's own ARN (…:root) is outside the path and untagged: this denial applies to it too.
      expect(statements).toContainEqual({
        Sid: 'NoMacOutsideServiceRoles',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: ['kms:GenerateMac', 'kms:VerifyMac'],
        Resource: '*',
        Condition: {
          ArnNotLike: { 'aws:PrincipalArn': [PEPPER_ROLES] },
          StringNotEquals: { [`aws:PrincipalTag/${VERIFIER_TAG.key}`]: VERIFIER_TAG.value },
        },
      });
    }
  });

  it('lets key administrators administer, and only administer', () => {
    const admin = (template: Template) =>
      keyPolicy(template).statements.find((s) => s.Sid === 'KeyAdministration') as Statement;
    // Without the setting: any principal of the account that IAM allows, for administration only.
    expect(admin(templates.defaults.stateful)).toEqual({
      Sid: 'KeyAdministration',
      Effect: 'Allow',
      Principal: { AWS: ACCOUNT },
      Action: KEY_ADMIN_ACTIONS,
      Resource: '*',
    });
    // With it: those administrators and CDK's deployment role (so a deployment is never locked out).
    expect(admin(templates.custom.stateful)).toEqual({
      Sid: 'KeyAdministration',
      Effect: 'Allow',
      Principal: { AWS: ACCOUNT },
      Action: KEY_ADMIN_ACTIONS,
      Resource: '*',
      Condition: { ArnLike: { 'aws:PrincipalArn': [...ADMINS, accountArn(`role/${CDK_DEPLOY_ROLE_NAME}`)] } },
    });
    expect(KEY_ADMIN_ACTIONS).toContain('kms:PutKeyPolicy');
    for (const use of [
      'GenerateMac',
      'VerifyMac',
      'Encrypt',
      'Decrypt',
      'GenerateDataKey',
      'CreateGrant',
      'ReEncrypt',
    ]) {
      expect(
        KEY_ADMIN_ACTIONS.some((a) => a.startsWith(`kms:${use}`)),
        use,
      ).toBe(false);
    }
  });

  it('limits grants to AWS services (Control Tower CT.KMS.PR.3)', () => {
    expect(keyPolicy(templates.defaults.stateful).statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'kms:CreateGrant',
        Condition: {
          BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
        },
      }),
    );
  });

  it('puts exactly the roles of the functions that derive the pepper under the path the key trusts', () => {
    const { stateless } = templates.defaults;
    const paths = Object.fromEntries(
      resources(stateless, 'AWS::IAM::Role').map(([id, role]) => [
        id.replace(/Role[0-9A-F]{8}$/, ''),
        role.Properties.Path,
      ]),
    );
    expect(paths).toEqual({
      CreateKey: PEPPER_ROLE_PATH,
      ListKeys: PEPPER_ROLE_PATH,
      RotateKey: PEPPER_ROLE_PATH,
      McpAuthorizer: PEPPER_ROLE_PATH,
      ListEvents: PEPPER_ROLE_PATH,
      ReportLeakedKeys: PEPPER_ROLE_PATH,
      GithubSecretScanning: PEPPER_ROLE_PATH,
      RevokeKey: undefined,
      McpServer: undefined,
      EventsPublishEvents: undefined,
      EventsExpirySweep: undefined,
      ListWorkspaceKeys: PEPPER_ROLE_PATH,
      ListWorkspaceEvents: PEPPER_ROLE_PATH,
      CutOffKey: undefined,
      GetWorkspacePolicy: undefined,
      PutWorkspacePolicy: undefined,
      WorkspaceGovernanceApplyWorkspacePolicy: undefined,
    });
  });

  it('does not make the stateful stack depend on the stateless one (no circular reference)', () => {
    expect(JSON.stringify(templates.defaults.stateful.toJSON())).not.toContain('Fn::ImportValue');
  });
});

describe('guard rules (AWS Control Tower proactive controls) at synth', () => {
  const report = (app: (typeof apps)['defaults']) => app.validationReport;

  it('pass, with only the listed exceptions acknowledged, each with its reason', () => {
    const guard = report(apps.defaults).pluginReports.find((r) => r.pluginName === GUARD_PLUGIN);
    expect(guard?.conclusion).toBe('success');
    expect(guard?.violations).toEqual([]);
    const known = new Map(
      Object.values(GUARD_EXCEPTIONS).map((e) => [`${GUARD_PLUGIN}::${e.rule}`, `${e.control}: ${e.reason}`]),
    );
    const acknowledged = new Set<string>();
    for (const s of guard?.suppressedViolations ?? []) {
      expect(known.get(s.acknowledgedId), s.acknowledgedId).toBe(s.reason);
      acknowledged.add(s.acknowledgedId);
    }
    expect([...acknowledged].sort()).toEqual([...known.keys()].sort());
  });

  it('apply the log retention exception only while logRetentionDays is under a year', () => {
    const guard = report(apps.custom).pluginReports.find((r) => r.pluginName === GUARD_PLUGIN);
    expect(guard?.violations).toEqual([]);
    const ids = (guard?.suppressedViolations ?? []).map((s) => s.acknowledgedId);
    expect(ids).not.toContain(`${GUARD_PLUGIN}::${GUARD_EXCEPTIONS.logRetentionBelowOneYear.rule}`);
  });

  /** Synthesizes the app with one more resource and returns the error message ('' if synth passed). */
  const synthWith = (add: (built: ReturnType<typeof buildApp>) => void) => {
    const built = buildApp({ context: SKIP_BUNDLING, settings: SETTINGS });
    add(built);
    try {
      built.app.synth();
      return '';
    } catch (err) {
      return (err as Error).message;
    }
  };

  it('fail synth on an unacknowledged violation, even beside acknowledged ones', () => {
    const message = synthWith(({ stateless }) => {
      new Alarm(stateless, 'Silent', {
        metric: new Metric({ namespace: 'X', metricName: 'Y' }),
        threshold: 1,
        evaluationPeriods: 1,
      });
    });
    expect(message).toMatch(/CT\.CLOUDWATCH\.PR\.1[\s\S]*SvcMcpApiKeys-Stateless\/Silent/);
  });

  soakOnly('leave cdk-nag failing synth on its own findings beside acknowledged ones', () => {
    const message = synthWith(({ stateful }) => new Bucket(stateful, 'Unsafe'));
    expect(message).toMatch(/AwsSolutions-S1[\s\S]*SvcMcpApiKeys-Stateful\/Unsafe/);
  });

  it('back the invoke-permission exception: API Gateway may invoke only from this stack’s APIs', () => {
    const [httpApi] = only(templates.defaults.stateless, 'AWS::ApiGatewayV2::Api');
    const [restApi] = only(templates.defaults.stateless, 'AWS::ApiGateway::RestApi');
    const permissions = resources(templates.defaults.stateless, 'AWS::Lambda::Permission');
    expect(permissions.length).toBeGreaterThan(0);
    for (const [id, p] of permissions) {
      const source = JSON.stringify(p.Properties.SourceArn);
      if (p.Properties.Principal === 'events.amazonaws.com') {
        // The hourly sweep's schedule: only its own rule may invoke it.
        expect(source, id).toMatch(/"Fn::GetAtt":\["EventsHourlySweep[0-9A-F]+","Arn"\]/);
        continue;
      }
      expect(p.Properties.Principal, id).toBe('apigateway.amazonaws.com');
      expect(
        [`{"Ref":"${httpApi}"}`, `{"Ref":"${restApi}"}`].some((ref) => source.includes(ref)),
        id,
      ).toBe(true);
    }
  });
});

describe('operations settings', () => {
  it('flow into the functions and log groups: pepperVersion, logRetentionDays (access logs too)', () => {
    for (const [name, built] of Object.entries(templates)) {
      const version = name === 'custom' ? '3' : '1';
      const days = name === 'custom' ? 365 : 30;
      for (const [id, fn] of resources(built.stateless, 'AWS::Lambda::Function')) {
        const env = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
        // Every function that reads keys gets the pepper version (the MCP endpoint and the publisher read none).
        if (env.KEYS_TABLE_NAME) expect(env.PEPPER_VERSION, id).toBe(version);
      }
      for (const [id, group] of resources(built.stateless, 'AWS::Logs::LogGroup')) {
        expect(group.Properties.RetentionInDays, id).toBe(days);
      }
    }
  });

  it('are validated with one message per problem', () => {
    let message = '';
    try {
      parseSettings({
        ...SETTINGS,
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms.fifo',
        keyAdministratorArns:
          'arn:aws:iam::123456789012:role/Admin,arn:aws:sts::123456789012:assumed-role/X/y',
        pepperVersion: '0',
        logRetentionDays: 'thirty',
        defaultExpiryDays: 100,
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'invalid deployment settings:',
      '- logRetentionDays: must be a number',
      '- alarmTopicArn: must be the ARN of a standard SNS topic (arn:aws:sns:<region>:<account>:<name>; not FIFO)',
      '- keyAdministratorArns.1: each key administrator must be an IAM role or user ARN',
      '- pepperVersion: must be at least 1',
      '- defaultExpiryDays: must not exceed maxExpiryDays',
    ]);
  });
});
