import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ACCOUNT, type Assembly, REGION, type Resolver, type Template } from './cloudformation.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON
type Json = any;

/** How a function is reached, as the template wires it. */
export type Trigger =
  | { kind: 'http-route'; routeKey: string }
  | { kind: 'http-authorizer' }
  | { kind: 'rest-authorizer' }
  | { kind: 'rest-method'; method: string; path: string }
  | { kind: 'stream'; filters: Json[] }
  | { kind: 'schedule' };

/** A Lambda function of a template, its references resolved. */
export interface TemplateFunction {
  stack: string;
  logicalId: string;
  handler: string;
  runtime: string;
  codeDir: string;
  environment: Record<string, string>;
  memorySize: number;
  timeoutSeconds: number;
  roleLogicalId: string;
  roleArn: string;
  /** The role's statements: inline policies and every `AWS::IAM::Policy` attached to it. */
  policies: { name: string; document: Json }[];
  triggers: Trigger[];
}

/** The logical ids of Lambda functions a value refers to (by `Ref` or `Fn::GetAtt`). */
function referencedFunctions(template: Template, value: Json): string[] {
  const text = JSON.stringify(value ?? null);
  const ids = new Set<string>();
  for (const m of text.matchAll(/"(?:Ref|Fn::GetAtt)":\s*(?:\["|")([A-Za-z0-9]+)/g)) {
    if (template.Resources[m[1] as string]?.Type === 'AWS::Lambda::Function') ids.add(m[1] as string);
  }
  return [...ids];
}

/** A REST API resource's full path, from its chain of `PathPart`s. */
function restPath(template: Template, resourceId: Json): string {
  const id = resourceId?.Ref;
  const resource = id ? template.Resources[id] : undefined;
  if (resource?.Type !== 'AWS::ApiGateway::Resource') return '';
  return `${restPath(template, resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
}

function triggersOf(template: Template): Map<string, Trigger[]> {
  const found = new Map<string, Trigger[]>();
  const add = (ids: string[], trigger: Trigger) => {
    for (const id of ids) found.set(id, [...(found.get(id) ?? []), trigger]);
  };
  const resources = template.Resources;
  for (const r of Object.values(resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::ApiGatewayV2::Route') {
      const integrationId = JSON.stringify(p.Target).match(/"Ref":"([A-Za-z0-9]+)"/)?.[1];
      const integration = integrationId ? resources[integrationId] : undefined;
      add(referencedFunctions(template, integration?.Properties?.IntegrationUri), {
        kind: 'http-route',
        routeKey: p.RouteKey,
      });
    } else if (r.Type === 'AWS::ApiGatewayV2::Authorizer' && p.AuthorizerType === 'REQUEST') {
      add(referencedFunctions(template, p.AuthorizerUri), { kind: 'http-authorizer' });
    } else if (r.Type === 'AWS::ApiGateway::Authorizer') {
      add(referencedFunctions(template, p.AuthorizerUri), { kind: 'rest-authorizer' });
    } else if (r.Type === 'AWS::ApiGateway::Method') {
      add(referencedFunctions(template, p.Integration?.Uri), {
        kind: 'rest-method',
        method: p.HttpMethod,
        path: restPath(template, p.ResourceId) || '/',
      });
    } else if (r.Type === 'AWS::Lambda::EventSourceMapping') {
      add(referencedFunctions(template, p.FunctionName), {
        kind: 'stream',
        filters: (p.FilterCriteria?.Filters ?? []).map((f: { Pattern: string }) => JSON.parse(f.Pattern)),
      });
    } else if (r.Type === 'AWS::Events::Rule' && p.ScheduleExpression) {
      add(referencedFunctions(template, p.Targets), { kind: 'schedule' });
    }
  }
  return found;
}

/** Every Lambda function of every template of the assembly. */
export function templateFunctions(assembly: Assembly, resolver: Resolver): TemplateFunction[] {
  const out: TemplateFunction[] = [];
  for (const template of assembly.templates) {
    const triggers = triggersOf(template);
    for (const [logicalId, r] of Object.entries(template.Resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const p = r.Properties;
      const roleLogicalId = p.Role?.['Fn::GetAtt']?.[0] as string;
      const role = template.Resources[roleLogicalId];
      const policies = [
        ...(role?.Properties?.Policies ?? []).map((x: Json) => ({
          name: x.PolicyName,
          document: x.PolicyDocument,
        })),
        ...Object.entries(template.Resources)
          .filter(([, x]) => x.Type === 'AWS::IAM::Policy')
          .filter(([, x]) => JSON.stringify(x.Properties.Roles ?? []).includes(`"${roleLogicalId}"`))
          .map(([name, x]) => ({ name, document: x.Properties.PolicyDocument })),
      ];
      out.push({
        stack: template.stackName,
        logicalId,
        handler: p.Handler,
        runtime: p.Runtime,
        codeDir: assembly.assetDir(p.Code),
        environment: resolver.resolve(template, p.Environment?.Variables ?? {}),
        memorySize: p.MemorySize ?? 128,
        timeoutSeconds: p.Timeout ?? 3,
        roleLogicalId,
        roleArn: resolver.resolve(template, p.Role),
        policies: policies.map((x) => ({ name: x.name, document: resolver.resolve(template, x.document) })),
        triggers: triggers.get(logicalId) ?? [],
      });
    }
  }
  return out;
}

/** Node 24, the runtime's major: this process's node when it is 24, else the one `.ci/run` installs. */
export function node24(): string {
  if (process.versions.node.split('.')[0] === '24') return process.execPath;
  const dir = join(ROOT, '.node', 'node_modules');
  const pkg = existsSync(dir) ? readdirSync(dir).find((d) => d.startsWith('node-linux-')) : undefined;
  if (pkg) return join(dir, pkg, 'bin', 'node');
  throw new Error(`the artifact suite needs Node 24 (this is ${process.version}); run it through .ci/run`);
}

export interface Endpoints {
  dynamodb: string;
  kms: string;
  events: string;
  /** Extra CA certificates the functions trust (the HTTPS stand-ins'). */
  extraCaCerts?: string;
}

export interface Invocation {
  // biome-ignore lint/suspicious/noExplicitAny: whatever the handler returned
  result?: any;
  error?: { errorType: string; errorMessage: string };
}

/** One function's execution environment: its bundle loaded once, invoked many times. */
export interface Environment {
  fn: TemplateFunction;
  accessKeyId: string;
  initMs: number;
  /** Whether the function has loaded undici (the stack behind `fetch`), at init or in a request. */
  loadedUndici(): boolean;
  invoke(event: unknown): Promise<Invocation>;
  output(): string;
  stop(): void;
}

/**
 * Starts an environment as Lambda would: the bundle copied to its own task root (the runtime's
 * AWS SDK one level up, outside it, as `/var/runtime` is), the template's environment and
 * Lambda's own variables only (nothing of this process), credentials of its own.
 */
export async function startEnvironment(
  fn: TemplateFunction,
  endpoints: Endpoints,
  workDir: string,
  index: number,
): Promise<Environment> {
  const runtimeModules = join(workDir, 'node_modules');
  if (!existsSync(runtimeModules)) {
    mkdirSync(runtimeModules, { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', '@aws-sdk'), join(runtimeModules, '@aws-sdk'));
  }
  const taskRoot = join(workDir, fn.logicalId);
  cpSync(fn.codeDir, taskRoot, { recursive: true });
  const accessKeyId =
    `ASIA${String(index).padStart(4, '0')}${fn.logicalId.replace(/[^A-Z0-9]/gi, '').toUpperCase()}`.slice(
      0,
      60,
    );
  const env: Record<string, string> = {
    ...fn.environment,
    PATH: '/usr/local/bin:/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: taskRoot,
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.logicalId}`,
    AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: 'artifact-suite-secret',
    AWS_SESSION_TOKEN: `session-of-${fn.logicalId}`,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: endpoints.dynamodb,
    AWS_ENDPOINT_URL_KMS: endpoints.kms,
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoints.events,
    ...(endpoints.extraCaCerts && { NODE_EXTRA_CA_CERTS: endpoints.extraCaCerts }),
    ARTIFACT_TIMEOUT_MS: String(fn.timeoutSeconds * 1000),
  };
  const child: ChildProcess = fork(join(import.meta.dirname, 'lambda-runtime.ts'), [], {
    execPath: node24(),
    execArgv: ['--disable-warning=ExperimentalWarning'],
    cwd: taskRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const pending = new Map<number, (i: Invocation) => void>();
  let next = 0;
  let undici = false;
  const initMs = await new Promise<number>((resolveInit, reject) => {
    child.once('exit', (code) => reject(new Error(`${fn.logicalId} exited (${code}) at init:\n${output}`)));
    child.on('message', (m: Json) => {
      undici ||= m.undici === true;
      if (m.type === 'ready') resolveInit(m.initMs);
      else if (m.type === 'init-error')
        reject(new Error(`${fn.logicalId} init: ${m.errorMessage}\n${output}`));
      else pending.get(m.id)?.(m);
    });
  });
  child.removeAllListeners('exit');
  return {
    fn,
    accessKeyId,
    initMs,
    loadedUndici: () => undici,
    invoke: (event) =>
      new Promise((done) => {
        const id = next++;
        pending.set(id, done);
        child.send({ id, event, requestId: randomUUID() });
      }),
    output: () => output,
    stop: () => {
      child.kill('SIGKILL');
    },
  };
}

export const roleArnOf = (name: string, path = '/') => `arn:aws:iam::${ACCOUNT}:role${path}${name}`;
