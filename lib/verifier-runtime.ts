import { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Config, parseConfig } from './config.ts';
import { lambdaCredentials } from './credentials.ts';
import type { PepperSource } from './keys/pepper.ts';
import { kmsPepperSource } from './keys/pepper-kms.ts';
import { localPepperSource } from './keys/pepper-local.ts';
import type { KeyReader } from './keys/port.ts';
import type { VerifyResult } from './keys/verify.ts';
import { logger } from './observability.ts';
import { describeError } from './redact.ts';
import { createDocumentClient, serviceClient } from './store/client.ts';
import { DynamoUsageWriter } from './store/usage-items.ts';
import type { McpCall } from './usage/model.ts';
import { UsageRecorder } from './usage/recorder.ts';
import { dynamoKeyVerifier } from './verifier-dynamo.ts';

/**
 * The key verifier wired from the service's configuration, and nothing else: what the key
 * authorizer's function imports (`getVerifierRuntime`), so its bundle and its cold start hold the
 * verification alone, not key management, OAuth or workspace governance (issue 60). The full
 * runtime (runtime.ts) builds its verifier here too, on its own client and pepper.
 */
export interface VerifierRuntime {
  /** The key verifier; a failing DynamoDB or KMS call throws. */
  verify: (rawKey: unknown, call?: McpCall) => Promise<VerifyResult>;
  /**
   * Stops the usage timer and writes every usage count still waiting, after the writes under way
   * (contract §18): an instance that ends (SIGTERM on Lambda, local mode's close). Never rejects.
   */
  endUsage(): Promise<void>;
}

export interface VerifierOverrides {
  doc?: DynamoDBDocumentClient;
  kms?: KMSClient;
  now?: () => Date;
  onUseRecordError?: (err: unknown) => void;
  /** Verified keys the verifier keeps in memory. @default 5000 */
  verifierCacheSize?: number;
  /** How long a credential's usage counts wait between writes. @default a minute (contract §18) */
  usageWriteIntervalMs?: number;
  /**
   * Writes the usage counts that are due this often on a timer that never holds the process open,
   * for a process that no call may wake (local mode); a Lambda instance is frozen between calls
   * and writes on SIGTERM instead. @default none
   */
  usageTimerMs?: number;
}

/** What the full runtime shares with its verifier: one client, one pepper, one key store. */
export interface SharedParts {
  doc: DynamoDBDocumentClient;
  peppers: PepperSource;
  keys?: KeyReader;
}

/** The pepper the configuration names: KMS's (its client built on first use) or a local file's. */
export function pepperSourceOf(config: Config, kms?: KMSClient): PepperSource {
  if (config.pepper.kind !== 'kms') return localPepperSource(config.pepper.dir, config.pepper.version);
  let client = kms;
  return kmsPepperSource(
    () => (client ??= kmsClient(config.region)),
    config.pepper.keyId,
    config.pepper.version,
  );
}

/** The DynamoDB client the configuration names. */
export const documentClientOf = (config: Config): DynamoDBDocumentClient =>
  createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint });

/** Wires the verifier, built on first use, and its usage recorder. */
export function buildVerifierRuntime(
  config: Config,
  overrides: VerifierOverrides = {},
  shared?: SharedParts,
): VerifierRuntime {
  const doc = shared?.doc ?? overrides.doc ?? documentClientOf(config);
  const peppers = shared?.peppers ?? pepperSourceOf(config, overrides.kms);
  const now = overrides.now ?? (() => new Date());
  let verify: VerifierRuntime['verify'] | undefined;
  let usage: ReturnType<typeof usageRecorder> | undefined;
  return {
    get verify() {
      usage ??= usageRecorder(config, doc, overrides);
      verify ??= dynamoKeyVerifier({
        doc,
        ...(shared?.keys && { keys: shared.keys }),
        keysTableName: config.keysTableName,
        membershipsTableName: config.membershipsTableName,
        cacheSize: overrides.verifierCacheSize,
        resource: config.mcpResource,
        tools: config.mcpTools,
        peppers,
        now,
        onUseRecordError:
          overrides.onUseRecordError ??
          ((err) => logger.warn('could not record key use', { error: describeError(err) })),
        usageRecorder: usage.recorder,
      });
      return verify;
    },
    endUsage: async () => {
      if (!usage) return;
      clearInterval(usage.timer);
      await usage.recorder.flushAll(now());
    },
  };
}

/** The verifier's usage recorder, with local mode's timer when asked for one. */
function usageRecorder(config: Config, doc: DynamoDBDocumentClient, overrides: VerifierOverrides) {
  const recorder = new UsageRecorder({
    intervalMs: overrides.usageWriteIntervalMs,
    writer: new DynamoUsageWriter(doc, config.keysTableName, config.settings.usageRetentionDays),
    onWriteError: (err) => logger.warn('could not record usage', { error: describeError(err) }),
  });
  const now = overrides.now ?? (() => new Date());
  const timer =
    overrides.usageTimerMs === undefined
      ? undefined
      : setInterval(() => void recorder.writeDue(now()), overrides.usageTimerMs).unref();
  return { recorder, timer };
}

function kmsClient(region: string): KMSClient {
  const credentials = lambdaCredentials();
  return serviceClient(KMSClient, { region, ...(credentials && { credentials }) });
}

let shared: VerifierRuntime | undefined;

/** The process-wide verifier from the environment (the key authorizer's); throws at cold start on bad configuration. */
export function getVerifierRuntime(): VerifierRuntime {
  shared ??= buildVerifierRuntime(parseConfig());
  return shared;
}
