import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableInput,
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { buildApp } from '#infra/build-app';
import { FUNCTION_BUNDLING, type FunctionName } from '#infra/constructs/bundling';
import { bundleFunction } from '#infra/constructs/esbuild-bundle';
import { localEndpoint } from '#lib/store/client';
import {
  dynamoDbProxy,
  eventBridgeStandIn,
  githubKeysStandIn,
  kmsStandIn,
  type WireCall,
} from './aws-stand-ins.ts';
import {
  ACCOUNT,
  type Physical,
  type PhysicalResource,
  REGION,
  Resolver,
  readAssembly,
  type Template,
} from './cloudformation.ts';
import { type Environment, startEnvironment, type TemplateFunction, templateFunctions } from './functions.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON
type Json = any;

/**
 * The deployment settings the suite synthesizes with (`npm run synth`'s, plus the GitHub
 * stand-in), with OAuth on: every function the service can deploy is then in the templates.
 */
const CONTEXT = {
  jwtIssuer: 'https://login.example.com/',
  jwtAudience: 'svc-dashboard',
  corsOrigins: 'https://dashboard.example.com',
  consentPageUrl: 'https://dashboard.example.com/mcp/consent',
  oauthResources: 'https://forms.example.com/mcp',
};

const TABLE_TYPES = new Set(['AWS::DynamoDB::GlobalTable', 'AWS::DynamoDB::Table']);

/** A GitHub stand-in over HTTPS (the setting must be https), with a certificate of its own. */
async function githubStandIn(dir: string) {
  const key = join(dir, 'github.key');
  const cert = join(dir, 'github.crt');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' }); // biome-ignore format: one command line
  return { ...(await githubKeysStandIn({ key: readFileSync(key), cert: readFileSync(cert) })), cert };
}

/** A table as the template defines it, created in DynamoDB Local. */
function createTableInput(name: string, p: Json): CreateTableInput {
  const streamType = p.StreamSpecification?.StreamViewType;
  return {
    TableName: name,
    KeySchema: p.KeySchema,
    AttributeDefinitions: p.AttributeDefinitions,
    BillingMode: 'PAY_PER_REQUEST',
    ...(p.GlobalSecondaryIndexes && {
      GlobalSecondaryIndexes: p.GlobalSecondaryIndexes.map((g: Json) => ({
        IndexName: g.IndexName,
        KeySchema: g.KeySchema,
        Projection: g.Projection,
      })),
    }),
    ...(streamType && { StreamSpecification: { StreamEnabled: true, StreamViewType: streamType } }),
  };
}

export interface Deployment {
  functions: TemplateFunction[];
  environments: Map<string, Environment>;
  calls: WireCall[];
  published: Json[];
  tables: Map<string, { name: string; partitionKey: string; logicalId: string }>;
  /** The KMS key policies by key ARN. */
  keyPolicies: Map<string, Json>;
  /** DynamoDB Local through the recording proxy, signed as `accessKeyId`. */
  proxyEndpoint(accessKeyId: string): string;
  github: { keyIdentifier: string; privateKey: import('node:crypto').KeyObject };
  resolver: Resolver;
  templates: Template[];
  /** A direct client to the suite's DynamoDB Local database (for test setup, not recorded). */
  db: DynamoDBClient;
  stop(): Promise<void>;
}

/**
 * Every function's bundle, built into `dir` as the published CDK package builds them
 * (`<dir>/<function>/index.mjs`, the layout `PREBUILT_FUNCTIONS_DIR` names): one esbuild service
 * for all of them, where a synth's bundling starts esbuild, and a Node process for the source map,
 * once per function (some 50 s of CPU). The bytes are the same either way
 * (test/infra/bundles.test.ts compares them).
 */
export async function bundleEveryFunction(dir: string): Promise<void> {
  await Promise.all(
    Object.entries(FUNCTION_BUNDLING).map(([name, choice]) =>
      bundleFunction(name as FunctionName, choice, join(dir, name, 'index.mjs')),
    ),
  );
}

/**
 * Synthesizes the app once, creates the tables its templates define in DynamoDB Local, starts the
 * AWS stand-ins and one execution environment per Lambda function of the templates. The functions'
 * code is the prebuilt bundles the caller has put where `PREBUILT_FUNCTIONS_DIR` points
 * (`bundleEveryFunction`), as a deployment from the published package takes them.
 */
export async function deploy(dynamoEndpoint: string): Promise<Deployment> {
  const work = mkdtempSync(join(tmpdir(), 'svc-artifact-'));
  const calls: WireCall[] = [];
  const local = localEndpoint(dynamoEndpoint);
  const db = new DynamoDBClient({ region: REGION, ...local });
  const proxy = await dynamoDbProxy(calls, local.endpoint, local.credentials.accessKeyId);
  const kms = await kmsStandIn(calls);
  const events = await eventBridgeStandIn(calls);
  const github = await githubStandIn(work);

  const outdir = join(work, 'cdk.out');
  const previous = process.env.CDK_OUTDIR;
  process.env.CDK_OUTDIR = outdir;
  try {
    buildApp({ context: { ...CONTEXT, githubPublicKeysUrl: github.url } }).app.synth();
  } finally {
    if (previous === undefined) delete process.env.CDK_OUTDIR;
    else process.env.CDK_OUTDIR = previous;
  }
  const assembly = readAssembly(outdir);

  const suffix = randomUUID().slice(0, 8);
  const physical = new Map<string, PhysicalResource>();
  const tables = new Map<string, { name: string; partitionKey: string; logicalId: string }>();
  for (const template of assembly.templates) {
    for (const [id, r] of Object.entries(template.Resources)) {
      if (!TABLE_TYPES.has(r.Type)) continue;
      const name = `${id.slice(0, 40)}-${suffix}`;
      await db.send(new CreateTableCommand(createTableInput(name, r.Properties)));
      const label = (await db.send(new DescribeTableCommand({ TableName: name }))).Table?.LatestStreamLabel;
      const arn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
      physical.set(id, {
        ref: name,
        attributes: { Arn: arn, ...(label && { StreamArn: `${arn}/stream/${label}` }) },
      });
      const hash = r.Properties.KeySchema.find((k: Json) => k.KeyType === 'HASH').AttributeName;
      tables.set(name, { name, partitionKey: hash, logicalId: id });
    }
  }
  const named: Physical = (id, r) => {
    const known = physical.get(id);
    if (known) return known;
    const arn = (service: string, rest: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${rest}`;
    switch (r.Type) {
      case 'AWS::KMS::Key': {
        const keyId = `0000${id.length.toString().padStart(4, '0')}-${suffix.slice(0, 4)}-4000-8000-${Buffer.from(id).toString('hex').slice(0, 12).padEnd(12, '0')}`;
        return { ref: keyId, attributes: { Arn: arn('kms', `key/${keyId}`), KeyId: keyId } };
      }
      case 'AWS::IAM::Role':
        return {
          ref: id,
          attributes: { Arn: `arn:aws:iam::${ACCOUNT}:role${r.Properties?.Path ?? '/'}${id}`, RoleId: id },
        };
      case 'AWS::SQS::Queue':
        return {
          ref: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`,
          attributes: { Arn: arn('sqs', id), QueueName: id },
        };
      case 'AWS::Logs::LogGroup':
        return {
          ref: `/aws/lambda/${id}`,
          attributes: { Arn: arn('logs', `log-group:/aws/lambda/${id}:*`) },
        };
      case 'AWS::SNS::Topic':
        return { ref: arn('sns', id), attributes: { TopicName: id } };
      case 'AWS::Lambda::Function':
        return { ref: id, attributes: { Arn: arn('lambda', `function:${id}`) } };
      // An API's id is its host's first label: the OAuth issuer and the MCP resource are URLs.
      case 'AWS::ApiGateway::RestApi':
        return { ref: id.toLowerCase().slice(0, 10), attributes: {} };
      case 'AWS::ApiGatewayV2::Api': {
        const apiId = id.toLowerCase().slice(0, 10);
        return {
          ref: apiId,
          attributes: { ApiEndpoint: `https://${apiId}.execute-api.${REGION}.amazonaws.com` },
        };
      }
      default:
        return { ref: id };
    }
  };
  const resolver = new Resolver(assembly.templates, named);
  const keyPolicies = new Map<string, Json>();
  for (const template of assembly.templates) {
    for (const [id, r] of Object.entries(template.Resources)) {
      if (r.Type !== 'AWS::KMS::Key') continue;
      keyPolicies.set(
        resolver.resolve(template, { 'Fn::GetAtt': [id, 'Arn'] }),
        resolver.resolve(template, r.Properties.KeyPolicy),
      );
    }
  }

  const functions = templateFunctions(assembly, resolver);
  const envDir = join(work, 'runtime');
  mkdirSync(envDir);
  const environments = new Map<string, Environment>();
  const endpoints = { dynamodb: proxy.url, kms: kms.url, events: events.url, extraCaCerts: github.cert };
  const started = await Promise.all(functions.map((fn, i) => startEnvironment(fn, endpoints, envDir, i)));
  for (const env of started) environments.set(env.fn.logicalId, env);

  return {
    functions,
    environments,
    calls,
    published: events.published,
    tables,
    keyPolicies,
    proxyEndpoint: (accessKeyId) => `http://${accessKeyId}@${new URL(proxy.url).host}`,
    github,
    resolver,
    templates: assembly.templates,
    db,
    stop: async () => {
      for (const env of environments.values()) env.stop();
      for (const s of [proxy.server, kms.server, events.server, github.server]) s.close();
      db.destroy();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
