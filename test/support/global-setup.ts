import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#infra/local/emulation/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One DynamoDB Local (in memory) for the whole run; each test file makes its own tables. */
export default async function setup(project: TestProject) {
  const local = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', local.endpoint);
  return () => local.stop();
}
