import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lambdaCredentials } from '#lib/credentials';

export interface ClientOptions {
  region: string;
  /** DynamoDB Local's address; unset in AWS. */
  endpoint?: string | undefined;
}

/** A document client; create one per process at module scope and share it. */
export function createDocumentClient({ region, endpoint }: ClientOptions): DynamoDBDocumentClient {
  const credentials = endpoint ? { accessKeyId: 'local', secretAccessKey: 'local' } : lambdaCredentials();
  const client = new DynamoDBClient({
    region,
    maxAttempts: 3,
    ...(endpoint && { endpoint }),
    ...(credentials && { credentials }),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
