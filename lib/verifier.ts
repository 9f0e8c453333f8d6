import { readFileSync } from 'node:fs';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ToolCatalogue } from './access/tools.ts';
import { parseVerifierConfig } from './env.ts';
import { fixedPepperSource, MIN_PEPPER_BYTES } from './keys/pepper.ts';
import { kmsPepperSource } from './keys/pepper-kms.ts';
import { pepperFile } from './keys/pepper-local.ts';
import type { KeyUse, VerifyResult } from './keys/verify.ts';
import { logger } from './observability.ts';
import { describeError } from './redact.ts';
import { localEndpoint, serviceClient } from './store/client.ts';
import { DynamoUsageWriter } from './store/usage-items.ts';
import { DEFAULT_USAGE_RETENTION_DAYS, type McpCall } from './usage/model.ts';
import { UsageRecorder } from './usage/recorder.ts';
import { dynamoKeyVerifier } from './verifier-dynamo.ts';

export { type DynamoVerifierParts, dynamoKeyVerifier } from './verifier-dynamo.ts';

/**
 * The key verifier as MCP servers build it (contract §16): configured by options only, every
 * dependency injectable, nothing read from the environment and nothing shared between two
 * verifiers (each has its clients, its cache of verified keys and its pepper). It imports the
 * verification and its DynamoDB reads, and nothing of key management.
 */

/** Where log lines go; `console` fits. */
export interface McpKeyVerifierLogger {
  /** Something the verifier recovered from (a failed `last_used_at` write). */
  warn(message: string, fields: Record<string, unknown>): void;
  /** A verification that failed (DynamoDB or KMS): the request was answered `unavailable`. */
  error(message: string, fields: Record<string, unknown>): void;
}

/** Everything but the pepper. */
export interface McpKeyVerifierSettings {
  /** The key service's keys table (its stateful stack outputs the name). */
  keysTableName: string;
  /** The form service's memberships table. */
  membershipsTableName: string;
  /**
   * The AWS region of the tables and the pepper key. Required when the verifier builds a client
   * (no `dynamoDb`, or a `pepperKeyId` without `kms`): never taken from the environment.
   */
  region?: string;
  /** DynamoDB's endpoint, e.g. DynamoDB Local's `http://127.0.0.1:8000`. @default AWS's own */
  endpoint?: string;
  /** Credentials of the clients the verifier builds. @default the AWS SDK's default chain */
  credentials?: DynamoDBClientConfig['credentials'];
  /** A DynamoDB client to use instead of building one (`region`, `endpoint`, `credentials` then do not apply to it). */
  dynamoDb?: DynamoDBClient;
  /** A KMS client to derive the pepper with, for `pepperKeyId`, instead of building one. */
  kms?: KMSClient;
  /**
   * The MCP server's canonical URL (RFC 8707 resource), kept as `verifier.resource` for
   * `AuthInfo.resource` and protected resource metadata. An OAuth access token issued for another
   * MCP server is refused (`wrong_resource`); API keys are not bound to a resource.
   */
  resource?: string | URL;
  /**
   * The tools of the MCP server and the scope each needs (contract §19): a `tools/call` of a tool
   * the credential may call in none of its workspaces is refused (`tool_not_allowed`, 403 with a
   * sentence naming the tool and what it may call), and a valid result lists `tools`. Without
   * it, only the credential's own list and its workspaces' policies are checked, by name.
   * @default none
   */
  tools?: ToolCatalogue;
  /** Verified keys kept in memory; the least recently used is forgotten first. @default 5000 */
  cacheSize?: number;
  /** The clock. @default () => new Date() */
  now?: () => Date;
  /**
   * Where failures are logged: `key verification failed` (error) and `could not record key use`
   * (warning), with the error's name and message, never a key. @default the service's structured
   * JSON logs on stdout and stderr
   */
  logger?: McpKeyVerifierLogger;
  /** Told of every `last_used_at` write once it settled (at most one a minute per key). */
  onUse?: (use: KeyUse) => void;
  /**
   * Count each verification in the credential's usage (contract §18), written at most once a
   * minute per credential (`dynamodb:PutItem` on `USAGE#` items and the key's `calls_on_<day>`, which `grantVerify` grants); a
   * failed write is logged (`could not record usage`) and never denies. @default true
   */
  usage?: boolean;
  /** Days the usage buckets are kept: the deployment's `usageRetentionDays`. @default 90 */
  usageRetentionDays?: number;
}

/** The pepper derived by the key service's KMS HMAC key (your role needs `kms:GenerateMac` on it). */
export interface KmsPepperOption {
  /** The KMS key's id, ARN or alias. */
  pepperKeyId: string;
  /** Not with `pepperKeyId`: one pepper source or the other. */
  pepper?: undefined;
}

/** The pepper's bytes, for a verifier that cannot call KMS (local development: `npm start` gives them). */
export interface FixedPepperOption {
  /** One pepper version (keys digested with another one cannot be verified) and its bytes in base64. */
  pepper: { version: number; base64: string };
  /** Not with `pepper`: one pepper source or the other. */
  pepperKeyId?: undefined;
}

/** `createMcpKeyVerifier`'s options: the settings, and the pepper from KMS or as bytes. */
export type McpKeyVerifierOptions = McpKeyVerifierSettings & (KmsPepperOption | FixedPepperOption);

/** A verifier built by `createMcpKeyVerifier`: its own clients, cache and pepper. */
export interface McpKeyVerifier {
  /**
   * Verifies a raw key (`svc_mcp_v1_…`, without `Bearer`). Every outcome is data: a failing
   * DynamoDB or KMS call is `{ outcome: 'unavailable' }` (logged), never a rejection.
   */
  verify(rawKey: unknown, call?: McpCall): Promise<VerifyResult>;
  /** The `resource` option, parsed. */
  readonly resource: URL | undefined;
}

const UNAVAILABLE: VerifyResult = { outcome: 'unavailable' };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const isName = (value: unknown) => typeof value === 'string' && value.length > 0;

/** Every problem with the options, so one error names them all. */
function problemsOf(options: McpKeyVerifierOptions): string[] {
  const problems: string[] = [];
  if (!isName(options.keysTableName)) problems.push('`keysTableName` must be a table name');
  if (!isName(options.membershipsTableName)) problems.push('`membershipsTableName` must be a table name');
  if (options.keysTableName === options.membershipsTableName)
    problems.push('`keysTableName` and `membershipsTableName` must differ');
  const kms = options.pepperKeyId !== undefined;
  if (kms === (options.pepper !== undefined)) problems.push('pass exactly one of `pepperKeyId` and `pepper`');
  if (kms && !isName(options.pepperKeyId)) problems.push('`pepperKeyId` must be a KMS key id, ARN or alias');
  if (options.pepper !== undefined) {
    const { version, base64 } = options.pepper;
    if (!Number.isInteger(version) || version < 1)
      problems.push('`pepper.version` must be a whole number from 1');
    if (
      // Stryker disable next-line ConditionalExpression: equivalent, a value that is not a string fails the pattern below as well
      typeof base64 !== 'string' ||
      !BASE64.test(base64) ||
      Buffer.from(base64, 'base64').length < MIN_PEPPER_BYTES
    )
      problems.push(`\`pepper.base64\` must be base64 of at least ${MIN_PEPPER_BYTES} bytes`);
  }
  if (options.region === undefined) {
    if (!options.dynamoDb)
      problems.push(
        '`region` is required to build the DynamoDB client (or pass `dynamoDb`); none is read from the environment',
      );
    else if (kms && !options.kms)
      problems.push(
        '`region` is required to build the KMS client (or pass `kms`); none is read from the environment',
      );
  } else if (!isName(options.region)) problems.push('`region` must be a region name');
  if (options.endpoint !== undefined && (options.dynamoDb || !URL.canParse(options.endpoint)))
    problems.push(
      options.dynamoDb ? '`endpoint` does not apply to a `dynamoDb` you pass' : '`endpoint` must be a URL',
    );
  if (options.cacheSize !== undefined && (!Number.isInteger(options.cacheSize) || options.cacheSize < 1))
    problems.push('`cacheSize` must be a whole number from 1');
  if (options.resource !== undefined) {
    const resource = URL.canParse(String(options.resource)) ? new URL(String(options.resource)) : undefined;
    if (!resource || resource.hash) problems.push('`resource` must be an absolute URL without a fragment');
  }
  return problems;
}

/**
 * Builds a verifier from options (contract §16). Throws at once, naming every problem, when the
 * options are incomplete. Nothing is sent before the first verification; the KMS client is built
 * on first use.
 */
export function createMcpKeyVerifier(options: McpKeyVerifierOptions): McpKeyVerifier {
  const problems = problemsOf(options);
  if (problems.length > 0) throw new TypeError(`createMcpKeyVerifier: ${problems.join('; ')}`);
  const log = options.logger ?? logger;
  const clientConfig = {
    region: options.region,
    ...(options.credentials && { credentials: options.credentials }),
    // An endpoint comes from the options or is AWS's own: never AWS_ENDPOINT_URL_* or a profile.
    ignoreConfiguredEndpointUrls: true,
  };
  const doc = DynamoDBDocumentClient.from(
    options.dynamoDb ??
      serviceClient(DynamoDBClient, {
        ...clientConfig,
        maxAttempts: 3,
        // Stryker disable next-line ConditionalExpression: equivalent for `true`, an `endpoint: undefined` is the SDK's default (`false` is killed by test/integration/mcp-key-verifier.test.ts)
        ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
      }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  let kms: KMSClient | undefined;
  const peppers = options.pepper
    ? fixedPepperSource(options.pepper.version, Buffer.from(options.pepper.base64, 'base64'))
    : kmsPepperSource(
        () => (kms ??= options.kms ?? serviceClient(KMSClient, clientConfig)),
        options.pepperKeyId,
        1,
      );
  const check = dynamoKeyVerifier({
    doc,
    keysTableName: options.keysTableName,
    membershipsTableName: options.membershipsTableName,
    peppers,
    now: options.now ?? (() => new Date()),
    cacheSize: options.cacheSize,
    ...(options.resource !== undefined && { resource: new URL(String(options.resource)).href }),
    tools: options.tools,
    onUseRecordError: (err) => log.warn('could not record key use', { error: describeError(err) }),
    onUse: options.onUse,
    usageRecorder:
      options.usage === false
        ? undefined
        : new UsageRecorder({
            writer: new DynamoUsageWriter(
              doc,
              options.keysTableName,
              options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS,
            ),
            onWriteError: (err) => log.warn('could not record usage', { error: describeError(err) }),
          }),
  });
  return {
    resource: options.resource === undefined ? undefined : new URL(String(options.resource)),
    async verify(rawKey, call) {
      try {
        return await check(rawKey, call);
      } catch (err) {
        log.error('key verification failed', { error: describeError(err) });
        return UNAVAILABLE;
      }
    },
  };
}

/**
 * The options `verifyMcpKey` builds from the environment (`KEYS_TABLE_NAME`,
 * `MEMBERSHIPS_TABLE_NAME`, `PEPPER_KMS_KEY_ID` or local mode's `PEPPER_DIR`, `PEPPER_VERSION`,
 * `AWS_REGION`, `DYNAMODB_ENDPOINT`); throws naming every problem.
 */
export function verifierOptionsFromEnv(env?: Record<string, string | undefined>): McpKeyVerifierOptions {
  const config = parseVerifierConfig(env);
  const local = config.dynamodbEndpoint ? localEndpoint(config.dynamodbEndpoint) : undefined;
  const tables = {
    keysTableName: config.keysTableName,
    membershipsTableName: config.membershipsTableName,
    // Stryker disable next-line ConditionalExpression: equivalent for `true`, a `region: undefined` reads as none
    ...(config.region !== undefined && { region: config.region }),
    ...local,
  };
  if (config.pepper.kind === 'kms') return { ...tables, pepperKeyId: config.pepper.keyId };
  const { dir, version } = config.pepper;
  let base64: string;
  try {
    base64 = readFileSync(pepperFile(dir, version)).toString('base64');
  } catch (err) {
    throw new Error(
      // Stryker disable next-line StringLiteral,LogicalOperator: never read, a failed file read always has a message
      `PEPPER_DIR: no pepper version ${version} in ${dir} (${describeError(err).message ?? 'unreadable'})`,
    );
  }
  return { ...tables, pepper: { version, base64 } };
}
