import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface ClientOptions {
  region: string;
  /** DynamoDB Local's address; unset in AWS. */
  endpoint?: string | undefined;
}

/** A document client; create one per process at module scope and share it. */
export function createDocumentClient({ region, endpoint }: ClientOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    maxAttempts: 3,
    ...(endpoint && {
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
