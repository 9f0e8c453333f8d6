import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '#infra/local/emulation/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * The run's one DynamoDB Local. Every tier that needs it names this file as its global setup;
 * global setups run in vitest's main process, so the first tier starts the JVM and the others
 * share it. It stops when the last of them tears down.
 */
const shared = globalThis as { svcDynamoDbLocal?: { started: Promise<DynamoDbLocal>; users: number } };

/** One DynamoDB Local (in memory) for the whole run; each test file makes its own tables. */
export default async function setup(project: TestProject) {
  shared.svcDynamoDbLocal ??= { started: startDynamoDbLocal(), users: 0 };
  const entry = shared.svcDynamoDbLocal;
  entry.users++;
  const local = await entry.started;
  project.provide('dynamoEndpoint', local.endpoint);
  return async () => {
    if (--entry.users > 0) return;
    shared.svcDynamoDbLocal = undefined;
    await local.stop();
  };
}
