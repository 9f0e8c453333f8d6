import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lambdaCredentials } from '#lib/credentials';
import { Sha256 } from './sha256.ts';

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

/**
 * Takes the AWS SDK's logger middleware out of a client the service built itself (never out of one
 * a caller passed in). The service gives the SDK no logger, yet that middleware filters every
 * request and response through the operation's schema for the no-op logger: about 8% of a warm
 * verification's CPU, measured by `bench/verify.ts`. Without it, an SDK logger configured later
 * cannot write an item (a digest) to a log either.
 */
export function withoutSdkLogging<C extends DynamoDBClient | KMSClient>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/** A document client; create one per process at module scope and share it. */
export function createDocumentClient({ region, endpoint }: ClientOptions): DynamoDBDocumentClient {
  // In Lambda, credentials come from the environment only (no default provider chain bundled).
  const credentials = endpoint ? undefined : lambdaCredentials();
  const client = withoutSdkLogging(
    new DynamoDBClient({
      region,
      maxAttempts: 3,
      sha256: Sha256,
      ...(endpoint ? localEndpoint(endpoint) : credentials && { credentials }),
    }),
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
