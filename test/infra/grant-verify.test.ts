import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App, Stack } from 'aws-cdk-lib';
import { ArnPrincipal, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, STACK_NAMES } from '#infra/build-app';
import { VERIFIER_TAG } from '#infra/constructs/pepper-key';
import { verifierPolicyStatements } from '#infra/constructs/verify-grant';
import { McpApiKeyService } from '#infra/mcp-api-key-service';
import { parseSettings } from '#infra/settings';
import { StatefulStack } from '#infra/stacks/stateful';
import { USAGE_ATTRIBUTES } from '#lib/store/usage-items';
import {
  ACCOUNT,
  type Physical,
  REGION,
  Resolver,
  readAssembly,
  type Template,
} from '#test/artifact/support/cloudformation';
import { DEFAULT_SYNTH_SETTINGS, SKIP_BUNDLING } from '#test/support/synthesized';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation and policy JSON
type Json = any;

/**
 * `grantVerify`, proven with IAM's evaluation logic (@cloud-copilot/iam-simulate) over what a
 * deployment would hold: the synthesized pepper key policy, the tables' resource-based policies and
 * the grantee's identity policy (and principal tags), every intrinsic resolved as CloudFormation
 * would. Each verifier call (lib/store/verification-reads.ts, the keys store's `recordUse`,
 * lib/keys/pepper-kms.ts) must be allowed to a grantee and denied to anyone else.
 */

const OTHER_ACCOUNT = '210987654321';
const CROSS_ACCOUNT_ROLE = `arn:aws:iam::${OTHER_ACCOUNT}:role/mcp-server`;
const CROSS_ACCOUNT_IMPORTED = `arn:aws:iam::${OTHER_ACCOUNT}:role/mcp-server-imported`;
const CROSS_ACCOUNT_UNGRANTED = `arn:aws:iam::${OTHER_ACCOUNT}:role/not-granted`;
const SAME_ACCOUNT_IMPORTED = `arn:aws:iam::${ACCOUNT}:role/legacy-mcp-server`;

const CONSUMER = 'McpServer';

interface Deployed {
  templates: Template[];
  resolver: Resolver;
  stateful: Template;
  consumer: Template;
  arns: { keysTable: string; membershipsTable: string; pepperKey: string };
  dependencies: { stateful: string[]; consumer: string[] };
}

/** A deployment's physical names: tables and the key by logical id, roles by path and logical id. */
const physical: Physical = (id, resource) => {
  switch (resource.Type) {
    case 'AWS::DynamoDB::GlobalTable':
      return { ref: id, attributes: { Arn: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${id}` } };
    case 'AWS::KMS::Key':
      return {
        ref: '1234abcd-12ab-34cd-56ef-1234567890ab',
        attributes: { Arn: `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab` },
      };
    case 'AWS::IAM::Role':
      return {
        ref: id,
        attributes: { Arn: `arn:aws:iam::${ACCOUNT}:role${resource.Properties?.Path ?? '/'}${id}` },
      };
    default:
      return { ref: id, attributes: { Arn: `arn:aws:local:${REGION}:${ACCOUNT}:${id}` } };
  }
};

/**
 * The service's own app (cdk-nag and the Control Tower rules included, so a finding fails synth)
 * with an MCP server team's stack beside it: a granted role, a role that is not, one with a broad
 * `kms:GenerateMac` of its own, and the cross-account and imported grantees.
 */
function deploy(outdir: string): Deployed {
  const previous = process.env.CDK_OUTDIR;
  process.env.CDK_OUTDIR = outdir;
  try {
    const { app, stateful } = buildApp({
      checks: false,
      context: SKIP_BUNDLING,
      settings: DEFAULT_SYNTH_SETTINGS,
    });
    const consumer = new Stack(app, CONSUMER);
    const lambda = new ServicePrincipal('lambda.amazonaws.com');
    stateful.grantVerify(new Role(consumer, 'Granted', { assumedBy: lambda }));
    new Role(consumer, 'NotGranted', { assumedBy: lambda });
    new Role(consumer, 'MacEverywhere', { assumedBy: lambda }).addToPolicy(
      new PolicyStatement({ actions: ['kms:GenerateMac'], resources: [stateful.pepperKey.keyArn] }),
    );
    stateful.grantVerify(new ArnPrincipal(CROSS_ACCOUNT_ROLE));
    stateful.grantVerify(
      Role.fromRoleArn(consumer, 'ImportedCrossAccount', CROSS_ACCOUNT_IMPORTED, { mutable: false }),
    );
    stateful.grantVerify(Role.fromRoleArn(consumer, 'ImportedSameAccount', SAME_ACCOUNT_IMPORTED));
    app.synth();
    const { templates } = readAssembly(outdir);
    const resolver = new Resolver(templates, physical);
    const named = (name: string) => templates.find((t) => t.stackName === name) as Template;
    const ofType = (t: Template, type: string) =>
      Object.keys(t.Resources).filter((id) => t.Resources[id]?.Type === type);
    const s = named(STACK_NAMES.stateful);
    const tables = ofType(s, 'AWS::DynamoDB::GlobalTable');
    const arnOf = (id: string) => resolver.resolve(s, { 'Fn::GetAtt': [id, 'Arn'] });
    return {
      templates,
      resolver,
      stateful: s,
      consumer: named(CONSUMER),
      arns: {
        keysTable: arnOf(tables.find((id) => id.startsWith('KeysTable')) as string),
        membershipsTable: arnOf(tables.find((id) => id.startsWith('MembershipsTable')) as string),
        pepperKey: arnOf(ofType(s, 'AWS::KMS::Key')[0] as string),
      },
      dependencies: {
        stateful: stateful.dependencies.map((d) => d.stackName),
        consumer: consumer.dependencies.map((d) => d.stackName),
      },
    };
  } finally {
    if (previous === undefined) delete process.env.CDK_OUTDIR;
    else process.env.CDK_OUTDIR = previous;
  }
}

/** One authorization the verifier's calls need. */
interface Call {
  name: string;
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

/** Every authorization a verification makes, as the artifact suite records them on the wire. */
function verifierCalls(arns: Deployed['arns']): Call[] {
  const keyItem = { 'dynamodb:LeadingKeys': ['key#0123456789abcdefghijkl'] };
  return [
    // The first verification: the key by id (GetItem), then the memberships (BatchGetItem or Query).
    { name: 'GetItem keys', action: 'dynamodb:GetItem', resource: arns.keysTable, context: keyItem },
    // Warm: one BatchGetItem across both tables (one authorization per table).
    {
      name: 'BatchGetItem keys',
      action: 'dynamodb:BatchGetItem',
      resource: arns.keysTable,
      context: keyItem,
    },
    {
      name: 'BatchGetItem memberships',
      action: 'dynamodb:BatchGetItem',
      resource: arns.membershipsTable,
      context: { 'dynamodb:LeadingKeys': ['user-1'] },
    },
    {
      name: 'Query memberships',
      action: 'dynamodb:Query',
      resource: arns.membershipsTable,
      context: { 'dynamodb:LeadingKeys': ['user-1'] },
    },
    // recordUse: SET last_used_at on condition attribute_exists(pk) AND last_used_at is stale.
    {
      name: 'UpdateItem last_used_at',
      action: 'dynamodb:UpdateItem',
      resource: arns.keysTable,
      context: { ...keyItem, 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'] },
    },
    // A limited credential's counters (contract §19), their totals answered.
    {
      name: 'UpdateItem rate counters',
      action: 'dynamodb:UpdateItem',
      resource: arns.keysTable,
      context: {
        ...keyItem,
        'dynamodb:Attributes': ['pk', 'sk', 'rate_2026-12-06T10:00', 'rate_2026-12-06'],
        'dynamodb:ReturnValues': 'UPDATED_NEW',
      },
    },
    // The usage counts (contract §18): an instance's day, put whole.
    {
      name: 'PutItem usage',
      action: 'dynamodb:PutItem',
      resource: arns.keysTable,
      context: { 'dynamodb:LeadingKeys': ['USAGE#0123'], 'dynamodb:Attributes': [...USAGE_ATTRIBUTES] },
    },
    {
      name: 'GenerateMac',
      action: 'kms:GenerateMac',
      resource: arns.pepperKey,
      context: { 'kms:MacAlgorithm': 'HMAC_SHA_256' },
    },
  ];
}

interface Caller {
  arn: string;
  account: string;
  identityPolicies: Json[];
  tags?: Record<string, string>;
}

interface ResourcePolicies {
  keysTable?: Json;
  membershipsTable?: Json;
  pepperKey: Json;
}

async function allowed(caller: Caller, call: Call, policies: ResourcePolicies, arns: Deployed['arns']) {
  const resourcePolicy =
    call.resource === arns.pepperKey
      ? policies.pepperKey
      : call.resource === arns.keysTable
        ? policies.keysTable
        : policies.membershipsTable;
  const response = await runSimulation(
    {
      identityPolicies: caller.identityPolicies.map((policy, i) => ({ name: `identity-${i}`, policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy && { resourcePolicy }),
      request: {
        principal: caller.arn,
        action: call.action,
        resource: { resource: call.resource, accountId: ACCOUNT },
        contextVariables: {
          'aws:PrincipalArn': caller.arn,
          'aws:PrincipalAccount': caller.account,
          ...Object.fromEntries(
            Object.entries(caller.tags ?? {}).map(([k, v]) => [`aws:PrincipalTag/${k}`, v]),
          ),
          ...call.context,
        },
      },
    },
    {},
  );
  if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
  return response.overallResult === 'Allowed';
}

/** Each call's verdict, by name. */
async function verdicts(caller: Caller, policies: ResourcePolicies, arns: Deployed['arns'], calls?: Call[]) {
  const out: Record<string, boolean> = {};
  for (const call of calls ?? verifierCalls(arns))
    out[call.name] = await allowed(caller, call, policies, arns);
  return out;
}

const every = (value: boolean) =>
  Object.fromEntries(
    verifierCalls({ keysTable: '', membershipsTable: '', pepperKey: '' }).map((c) => [c.name, value]),
  );

let root: string;
let d: Deployed;
let policies: ResourcePolicies;

/** A role of the consumer stack as it would sign in: its ARN, tags and attached identity policies. */
function consumerRole(logicalPrefix: string): Caller {
  const { consumer, resolver } = d;
  const id = Object.keys(consumer.Resources).find(
    (k) => k.startsWith(logicalPrefix) && consumer.Resources[k]?.Type === 'AWS::IAM::Role',
  ) as string;
  const role = resolver.resolve(consumer, consumer.Resources[id]?.Properties ?? {});
  const identityPolicies = Object.values(consumer.Resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: id }]))
    .map((r) => resolver.resolve(consumer, r.Properties.PolicyDocument));
  return {
    arn: physical(id, consumer.Resources[id] as Template['Resources'][string]).attributes?.Arn as string,
    account: ACCOUNT,
    identityPolicies,
    tags: Object.fromEntries((role.Tags ?? []).map((t: Json) => [t.Key, t.Value])),
  };
}

/** A principal of the other account whose administrator allowed exactly the verifier's calls. */
function crossAccountCaller(arn: string): Caller {
  const statements = verifierPolicyStatements({
    keysTableArn: d.arns.keysTable,
    membershipsTableArn: d.arns.membershipsTable,
    pepperKeyArn: d.arns.pepperKey,
  });
  const document = { Version: '2012-10-17', Statement: statements.map((s) => s.toStatementJson()) };
  return { arn, account: OTHER_ACCOUNT, identityPolicies: [document] };
}

/** A policy without the statements that name a principal (as if it had never been granted). */
function without(policy: Json, arn: string): Json {
  const names = (s: Json) => [s.Principal?.AWS].flat().includes(arn);
  return {
    ...policy,
    Statement: policy.Statement.flatMap((s: Json) => {
      if (!names(s)) return [s];
      const rest = [s.Principal.AWS].flat().filter((a: string) => a !== arn);
      return rest.length > 0 ? [{ ...s, Principal: { AWS: rest.length === 1 ? rest[0] : rest } }] : [];
    }),
  };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-grant-verify-'));
  d = deploy(root);
  const { stateful, resolver } = d;
  const byPrefix = (prefix: string) =>
    Object.entries(stateful.Resources).find(([id]) => id.startsWith(prefix))?.[1] as Json;
  const tablePolicy = (prefix: string) =>
    resolver.resolve(stateful, byPrefix(prefix).Properties.Replicas[0].ResourcePolicy?.PolicyDocument);
  policies = {
    keysTable: tablePolicy('KeysTable'),
    membershipsTable: tablePolicy('MembershipsTable'),
    pepperKey: resolver.resolve(stateful, byPrefix('PepperKey').Properties.KeyPolicy),
  };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('grantVerify, same account', () => {
  it('allows every call the verifier makes to a granted role', async () => {
    const granted = consumerRole('Granted');
    expect(granted.tags).toEqual({ [VERIFIER_TAG.key]: VERIFIER_TAG.value });
    expect(await verdicts(granted, policies, d.arns)).toEqual(every(true));
  });

  it('denies every call to a role it did not grant, even one whose own policy allows GenerateMac', async () => {
    expect(await verdicts(consumerRole('NotGranted'), policies, d.arns)).toEqual(every(false));
    const macEverywhere = consumerRole('MacEverywhere');
    expect(macEverywhere.identityPolicies).toHaveLength(1);
    expect((await verdicts(macEverywhere, policies, d.arns)).GenerateMac).toBe(false);
  });

  it('needs both halves: the tag without the identity policy, or the identity policy without the tag, is denied', async () => {
    const granted = consumerRole('Granted');
    expect(await verdicts({ ...granted, identityPolicies: [] }, policies, d.arns)).toEqual(every(false));
    const untagged = await verdicts({ ...granted, tags: {} }, policies, d.arns);
    expect(untagged.GenerateMac).toBe(false);
    // The tag on another account's principal counts for nothing.
    const elsewhere = { ...crossAccountCaller(CROSS_ACCOUNT_UNGRANTED), tags: granted.tags };
    expect(await verdicts(elsewhere, policies, d.arns)).toEqual(every(false));
  });

  it('grants the calls and nothing more: another attribute, another algorithm, another table', async () => {
    const granted = consumerRole('Granted');
    const beyond: Call[] = [
      {
        name: 'UpdateItem revoked_at',
        action: 'dynamodb:UpdateItem',
        resource: d.arns.keysTable,
        context: { 'dynamodb:Attributes': ['pk', 'sk', 'revoked_at'] },
      },
      {
        name: 'UpdateItem returning the item',
        action: 'dynamodb:UpdateItem',
        resource: d.arns.keysTable,
        context: { 'dynamodb:Attributes': ['pk', 'sk', 'last_used_at'], 'dynamodb:ReturnValues': 'ALL_NEW' },
      },
      { name: 'PutItem, no item named', action: 'dynamodb:PutItem', resource: d.arns.keysTable },
      {
        name: 'PutItem of a key',
        action: 'dynamodb:PutItem',
        resource: d.arns.keysTable,
        context: { 'dynamodb:LeadingKeys': ['KEY#0123'], 'dynamodb:Attributes': ['pk', 'sk', 'calls'] },
      },
      {
        name: 'PutItem of usage with another attribute',
        action: 'dynamodb:PutItem',
        resource: d.arns.keysTable,
        context: {
          'dynamodb:LeadingKeys': ['USAGE#0123'],
          'dynamodb:Attributes': ['pk', 'sk', 'revoked_at'],
        },
      },
      { name: 'Query keys', action: 'dynamodb:Query', resource: d.arns.keysTable },
      { name: 'GetItem memberships', action: 'dynamodb:GetItem', resource: d.arns.membershipsTable },
      {
        name: 'GenerateMac SHA-512',
        action: 'kms:GenerateMac',
        resource: d.arns.pepperKey,
        context: { 'kms:MacAlgorithm': 'HMAC_SHA_512' },
      },
      {
        name: 'VerifyMac',
        action: 'kms:VerifyMac',
        resource: d.arns.pepperKey,
        context: { 'kms:MacAlgorithm': 'HMAC_SHA_256' },
      },
    ];
    const out = await verdicts(granted, policies, d.arns, beyond);
    expect(Object.entries(out).filter(([, ok]) => ok)).toEqual([]);
  });

  it('lets a role imported by a literal ARN of the account verify, named by the key and the tables', async () => {
    // The service's app is environment-agnostic: the role's account may be another, so the
    // resources name it and its identity policy is left to its own account.
    const attached = Object.values(d.consumer.Resources).filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes('legacy-mcp-server'),
    );
    expect(attached).toEqual([]);
    const caller: Caller = { arn: SAME_ACCOUNT_IMPORTED, account: ACCOUNT, identityPolicies: [] };
    expect(await verdicts(caller, policies, d.arns)).toEqual(every(true));
    const unnamed = { ...caller, arn: `arn:aws:iam::${ACCOUNT}:role/another-legacy-server` };
    expect(await verdicts(unnamed, policies, d.arns)).toEqual(every(false));
  });

  it('adds nothing to the key’s stack for a role of its account: the consumer depends on it, never back', () => {
    expect(d.dependencies.stateful).toEqual([]);
    expect(d.dependencies.consumer).toContain(STACK_NAMES.stateful);
    expect(JSON.stringify(d.stateful)).not.toContain('Fn::ImportValue');
    expect(JSON.stringify(policies)).not.toContain(consumerRole('Granted').arn);
  });
});

describe('grantVerify, another account', () => {
  it('allows every call to a granted principal of another account, given its own identity policy', async () => {
    expect(await verdicts(crossAccountCaller(CROSS_ACCOUNT_ROLE), policies, d.arns)).toEqual(every(true));
    expect(await verdicts(crossAccountCaller(CROSS_ACCOUNT_IMPORTED), policies, d.arns)).toEqual(every(true));
  });

  it('puts the resource side in the key policy and both tables’ resource-based policies, and nothing in this account’s IAM', () => {
    for (const policy of [policies.pepperKey, policies.keysTable, policies.membershipsTable]) {
      expect(JSON.stringify(policy)).toContain(CROSS_ACCOUNT_ROLE);
      expect(JSON.stringify(policy)).toContain(CROSS_ACCOUNT_IMPORTED);
    }
    const policiesHere = Object.values(d.consumer.Resources).filter((r) => r.Type === 'AWS::IAM::Policy');
    expect(JSON.stringify(policiesHere)).not.toContain('mcp-server-imported');
  });

  it('denies every call without the resource side: the grant’s statements removed, or another principal', async () => {
    const caller = crossAccountCaller(CROSS_ACCOUNT_ROLE);
    const stripped: ResourcePolicies = {
      keysTable: without(policies.keysTable, CROSS_ACCOUNT_ROLE),
      membershipsTable: without(policies.membershipsTable, CROSS_ACCOUNT_ROLE),
      pepperKey: without(policies.pepperKey, CROSS_ACCOUNT_ROLE),
    };
    expect(await verdicts(caller, stripped, d.arns)).toEqual(every(false));
    // With no resource-based policy on the tables at all.
    expect(await verdicts(caller, { pepperKey: stripped.pepperKey }, d.arns)).toEqual(every(false));
    expect(await verdicts(crossAccountCaller(CROSS_ACCOUNT_UNGRANTED), policies, d.arns)).toEqual(
      every(false),
    );
  });

  it('denies every call when the other account’s identity policy does not allow them', async () => {
    const bare = { ...crossAccountCaller(CROSS_ACCOUNT_ROLE), identityPolicies: [] };
    expect(await verdicts(bare, policies, d.arns)).toEqual(every(false));
  });
});

describe('grantVerify, refused', () => {
  const settings = parseSettings(DEFAULT_SYNTH_SETTINGS);

  it('refuses a same-account principal it can neither tag nor name without a cycle', () => {
    const app = new App();
    const stateful = new StatefulStack(app, 'Stateful', {
      settings,
      env: { account: ACCOUNT, region: REGION },
    });
    const consumer = new Stack(app, 'Consumer', { env: { account: ACCOUNT, region: REGION } });
    const role = new Role(consumer, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const tokenArn = Role.fromRoleArn(consumer, 'ByToken', role.roleArn, { mutable: false });
    expect(() => stateful.grantVerify(tokenArn)).toThrow(/ARN is not known at synth/);
  });

  it('refuses an account as grantee, and a cross-account grantee when the memberships table is imported', () => {
    const app = new App();
    const stateful = new StatefulStack(app, 'Stateful', {
      settings: { ...settings, membershipsTableName: 'forms-memberships' },
    });
    expect(() => stateful.grantVerify(new ArnPrincipal(`arn:aws:iam::${OTHER_ACCOUNT}:root`))).toThrow(
      /is an account/,
    );
    expect(() => stateful.grantVerify(new ArnPrincipal(CROSS_ACCOUNT_ROLE))).toThrow(
      /resource-based policy on the memberships table/,
    );
  });

  it('is the same grant from the whole-service construct, placed in the consumer’s stack', () => {
    const app = new App({ context: SKIP_BUNDLING, outdir: join(root, 'stage') });
    const consumer = new Stack(app, 'McpServer', { env: { account: ACCOUNT, region: REGION } });
    const service = new McpApiKeyService(consumer, 'Keys', { settings: DEFAULT_SYNTH_SETTINGS });
    const role = new Role(consumer, 'Server', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const grant = service.grantVerify(role);
    expect(grant.success).toBe(true);
    expect(grant.principalStatements.flatMap((s) => s.actions)).toEqual([
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'dynamodb:UpdateItem',
      'dynamodb:PutItem',
      'kms:GenerateMac',
    ]);
    app.synth();
    expect(service.stateful.dependencies).toEqual([]);
    expect(consumer.dependencies).toEqual([service.stateful]);
  });
});
