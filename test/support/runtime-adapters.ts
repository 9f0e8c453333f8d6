import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '#lib/config';
import { buildRuntime, type Runtime, type RuntimeOverrides } from '#lib/runtime';
import { createDocumentClient } from '#lib/store/client';
import { DynamoKeyStore } from '#lib/store/keys-store';

export type { RuntimeOverrides };

/**
 * A runtime with what it does not hand out: the DynamoDB client its stores share, and the key
 * store's adapter (its item layout), for the benchmarks that create tables, seed items and count
 * the commands sent.
 */
export interface RuntimeWithAdapters extends Runtime {
  doc: DynamoDBDocumentClient;
  store: DynamoKeyStore;
}

/** `buildRuntime(config, overrides)`, on a client built here (or `overrides.doc`) and returned with it. */
export function buildRuntimeWithAdapters(
  config: Config,
  overrides: RuntimeOverrides = {},
): RuntimeWithAdapters {
  const doc =
    overrides.doc ?? createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint });
  const store = new DynamoKeyStore(doc, config.keysTableName, config.settings.retentionDays);
  // Assigned onto the runtime, not spread: its lazy parts (the verifier, the expiry store) stay lazy.
  return Object.assign(buildRuntime(config, { ...overrides, doc }), { doc, store });
}
