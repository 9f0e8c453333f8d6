import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
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
 * An AWS SDK client the service builds for itself (never applied to one a caller passes in), as
 * `new Client(config)` with two differences (docs/decisions.md, decisions 73 and 74):
 * - no logger middleware: the service gives the SDK no logger, yet that middleware filters every
 *   request and response through the operation's schema for the no-op logger (about 8% of a warm
 *   verification's CPU), and without it an SDK logger configured later cannot write an item (a
 *   digest) to a log either;
 * - SigV4 signs with HMAC keys made once (`Sha256`): Node 24's `createHmac` given key bytes costs
 *   about 27 µs, and every request is signed with one (13% of this process's CPU per `GetItem`).
 */
export function serviceClient<C extends { middlewareStack: { remove(name: string): boolean } }, Config>(
  Client: new (config: Config) => C,
  config: Config,
): C {
  const client = new Client({ ...config, sha256: Sha256 });
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/** A document client; create one per process at module scope and share it. */
export function createDocumentClient({ region, endpoint }: ClientOptions): DynamoDBDocumentClient {
  // In Lambda, credentials come from the environment only (no default provider chain bundled).
  const credentials = endpoint ? undefined : lambdaCredentials();
  const client = serviceClient(DynamoDBClient, {
    region,
    maxAttempts: 3,
    ...(endpoint ? localEndpoint(endpoint) : credentials && { credentials }),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
