import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lambdaCredentials } from '#lib/credentials';

export interface ClientOptions {
  region: string;
  /** DynamoDB Local's address, `http://<access key id>@host:port`; unset in AWS. */
  endpoint?: string | undefined;
}

/**
 * The address and credentials of a DynamoDB Local endpoint. DynamoDB Local keeps one database
 * per access key id (and region), so the access key id in the endpoint's user part selects the
 * service's database: only a process that knows the endpoint reaches the data (see
 * infra/local/emulation/dynamodb-local.ts). Any DynamoDB or DynamoDB Streams client for DynamoDB Local
 * takes its `endpoint` and `credentials` from here.
 */
export function localEndpoint(endpoint: string): {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
} {
  const url = new URL(endpoint);
  return {
    endpoint: `${url.protocol}//${url.host}`,
    credentials: { accessKeyId: decodeURIComponent(url.username) || 'local', secretAccessKey: 'local' },
  };
}

/** A document client; create one per process at module scope and share it. */
export function createDocumentClient({ region, endpoint }: ClientOptions): DynamoDBDocumentClient {
  // In Lambda, credentials come from the environment only (no default provider chain bundled).
  const credentials = endpoint ? undefined : lambdaCredentials();
  const client = new DynamoDBClient({
    region,
    maxAttempts: 3,
    ...(endpoint ? localEndpoint(endpoint) : credentials && { credentials }),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
