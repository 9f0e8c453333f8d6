import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetStaging, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import { type BundlingChoice, esbuildSettings, FUNCTION_BUNDLING, type FunctionName } from './bundling.ts';
import { PEPPER_ROLE_PATH } from './pepper-key.ts';
import { PREBUILT_FUNCTIONS_DIR } from './prebuilt.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceFunctionProps extends BundlingChoice {
  /** File in functions/ without `.ts`, e.g. `create-key`; its bundling comes from `FUNCTION_BUNDLING`. */
  entry: FunctionName;
  /** Merged over the defaults, never replacing them. @default {} */
  environment?: Record<string, string>;
  /** Days the function's logs are kept. @default 30 */
  logRetentionDays?: number;
  /**
   * The pepper key, for a function that derives the pepper: its role goes under PEPPER_ROLE_PATH
   * (the only path the key policy lets use the key) and may call `kms:GenerateMac` on it.
   * @default none (no access to the key)
   */
  pepperKey?: IKey;
  /** @default 256 */
  memorySize?: number;
  /** @default 10 seconds */
  timeout?: Duration;
  /** Escape hatch for anything else; environment is still merged (bundling applies only when bundling from source). */
  overrides?: Partial<NodejsFunctionProps>;
}

/**
 * Every Lambda function of the service, with one set of defaults: the newest Node.js runtime,
 * ARM64, minified ESM bundles with source maps (the AWS SDK left to the runtime unless
 * `bundleAwsSdk`), a log group with retention, and no permissions but those granted explicitly.
 * From the published package, the same bundles come prebuilt (see `prebuilt.ts`).
 */
export class ServiceFunction extends Construct {
  readonly fn: LambdaFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const logGroup = serviceLogGroup(this, 'Logs', props.logRetentionDays ?? 30);
    // Its own role, with no managed policy: it may write its own log group and nothing else
    // until the stack grants an explicit statement.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      ...(props.pepperKey && { path: PEPPER_ROLE_PATH }),
    });
    logGroup.grantWrite(role);
    // The function table's choice for this entry, unless the props make their own.
    const bundle = esbuildSettings({ ...FUNCTION_BUNDLING[props.entry as FunctionName], ...props });
    const { bundling: bundlingOverrides, ...overrides } = props.overrides ?? {};
    const common = {
      role,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup,
      ...overrides,
      environment: {
        ...(bundle.sourceMap && { NODE_OPTIONS: '--enable-source-maps' }),
        POWERTOOLS_SERVICE_NAME: 'svc-mcp-api-keys',
        ...overrides.environment,
        ...props.environment,
      },
    };
    this.fn = PREBUILT_FUNCTIONS_DIR
      ? new LambdaFunction(this, 'Function', {
          ...common,
          // Built by the package build with this function's BundlingChoice (FUNCTION_BUNDLING).
          code: Code.fromAsset(join(PREBUILT_FUNCTIONS_DIR, props.entry)),
          handler: 'index.handler',
        })
      : new NodejsFunction(this, 'Function', {
          ...common,
          entry: `${ROOT}functions/${props.entry}.ts`,
          projectRoot: ROOT,
          depsLockFilePath: `${ROOT}package-lock.json`,
          handler: 'handler',
          bundling: { ...esbuildBundling(bundle), ...bundlingOverrides },
        });
    acknowledgeGuardRule(this.fn, GUARD_EXCEPTIONS.lambdaOutsideVpc);
    if (props.pepperKey) {
      this.fn.addToRolePolicy(
        new PolicyStatement({ actions: ['kms:GenerateMac'], resources: [props.pepperKey.keyArn] }),
      );
    }
  }
}

/** How a function is bundled from source: a minified ESM bundle for the runtime, as `bundle` says. */
function esbuildBundling(bundle: ReturnType<typeof esbuildSettings>): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    minify: true,
    sourceMap: bundle.sourceMap,
    sourcesContent: false,
    logLevel: bundle.logLevel,
    externalModules: bundle.external,
    esbuildArgs: {
      '--supported:dynamic-import': 'false',
      // Aliases are resolved from the project root (where local bundling runs; Docker too).
      ...(Object.keys(bundle.alias).length > 0 && {
        '--alias': Object.entries(bundle.alias).map(([from, to]) => `${from}=${to}`),
      }),
    },
    ...(Object.keys(bundle.alias).length > 0 && {
      workingDirectory: AssetStaging.BUNDLING_INPUT_DIR,
    }),
    ...(bundle.sourceMap && {
      // The map keeps the service's own code only (source-map.ts says why).
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (_input: string, output: string) => [
          `"${process.execPath}" "${ROOT}infra/constructs/source-map.ts" "${output}/index.mjs.map"`,
        ],
      },
    }),
    target: 'node24', // the runtime of ServiceFunction
    mainFields: ['module', 'main'],
    // Some dependencies still call require(); give the ESM bundle one.
    banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  };
}

/** What both APIs write to their access logs: JSON, no caller or user (they can hold identities). */
export const ACCESS_LOG_FORMAT = AccessLogFormat.jsonWithStandardFields({
  caller: false,
  httpMethod: true,
  ip: true,
  protocol: true,
  requestTime: true,
  resourcePath: true,
  responseLength: true,
  status: true,
  user: false,
});

/**
 * A log group of the service: retention from the `logRetentionDays` setting, destroyed with its
 * stack, and the guard-rule exceptions that apply to every log group of the service acknowledged.
 */
export function serviceLogGroup(scope: Construct, id: string, retentionDays: number): LogGroup {
  const retention = retentionFor(retentionDays);
  const logGroup = new LogGroup(scope, id, { retention, removalPolicy: RemovalPolicy.DESTROY });
  acknowledgeGuardRule(logGroup, GUARD_EXCEPTIONS.logGroupWithoutCustomerKey);
  if (retention < 365) acknowledgeGuardRule(logGroup, GUARD_EXCEPTIONS.logRetentionBelowOneYear);
  return logGroup;
}

/** The shortest retention CloudWatch Logs offers that keeps logs at least `days` days. */
export function retentionFor(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter(
    (v): v is RetentionDays => typeof v === 'number' && v > 0,
  );
  const match = allowed.sort((a, b) => a - b).find((v) => v >= days);
  return match ?? RetentionDays.TEN_YEARS;
}
