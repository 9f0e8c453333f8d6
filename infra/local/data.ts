import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDocumentClient } from '#lib/store/client';
import { attachDynamoDbLocal, type DynamoDbLocal, startDynamoDbLocal } from './emulation/dynamodb-local.ts';
import { ensureTables } from './emulation/tables.ts';
import { acquireLock } from './lock.ts';

/** Where the data lives and which DynamoDB Local holds it (`LocalServiceOptions`' fields of the same names). */
export interface DataOptions {
  dataDir: string;
  inMemory?: boolean;
  dynamoDbLocalUrl?: string | undefined;
}

/** DynamoDB Local with the tables, in the data directory (or in memory). */
async function startStorage(dataDir: string, inMemory: boolean, running?: string): Promise<DynamoDbLocal> {
  const dynamoDir = join(dataDir, 'dynamodb');
  await mkdir(dynamoDir, { recursive: true });
  const options = inMemory ? {} : { dataDir: dynamoDir };
  const dynamo = running ? await attachDynamoDbLocal(running, options) : await startDynamoDbLocal(options);
  const doc = createDocumentClient({ region: 'us-east-1', endpoint: dynamo.endpoint });
  try {
    await ensureTables(doc);
    return dynamo;
  } catch (err) {
    await dynamo.stop();
    throw err;
  } finally {
    doc.destroy();
  }
}

/** The data directory, locked to this process, and DynamoDB Local with the tables. */
export interface LocalData {
  dataDir: string;
  dynamo: DynamoDbLocal;
  releaseLock: () => Promise<void>;
}

/** Opens the data directory (a temporary one in memory), takes its lock and starts the storage. */
export async function openData(options: DataOptions): Promise<LocalData> {
  const dataDir = options.inMemory
    ? await mkdtemp(join(tmpdir(), 'svc-mcp-local-'))
    : resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const releaseLock = await acquireLock(dataDir);
  try {
    const dynamo = await startStorage(dataDir, options.inMemory ?? false, options.dynamoDbLocalUrl);
    return { dataDir, dynamo, releaseLock };
  } catch (err) {
    await releaseLock();
    throw err;
  }
}
