import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { newAccessKeyId } from '#infra/local/emulation/dynamodb-local';
import type { Role } from '#lib/access/scopes';
import { REFERENCE_TOOLS } from '#lib/access/tools';
import type { Config } from '#lib/config';
import { DEFAULT_SETTINGS, type Settings } from '#lib/limits';
import { buildRuntime, type Runtime, type RuntimeOverrides } from '#lib/runtime';
import { createDocumentClient } from '#lib/store/client';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE } from '#lib/store/tables';
import { ENTRY_PREFIX, workspacePk } from '#lib/store/workspace-items';

export interface TestTables {
  endpoint: string;
  doc: DynamoDBDocumentClient;
  keysTable: string;
  membershipsTable: string;
  pepperDir: string;
  /** Environment a handler module reads at import, pointing at these tables. */
  env: Record<string, string>;
  config(settings?: Partial<Settings>, pepper?: Config['pepper']): Config;
  /** A runtime on these tables; `pepper` replaces the local pepper (e.g. a KMS one with a mocked client). */
  runtime(
    overrides?: RuntimeOverrides & { settings?: Partial<Settings>; pepper?: Config['pepper'] },
  ): Runtime;
  setRole(userId: string, workspaceId: string, role: Role): Promise<void>;
  scanKeys(): Promise<Record<string, unknown>[]>;
  /** A workspace's index entries (contract §12), consistently, oldest first. */
  workspaceEntries(workspaceId: string): Promise<Record<string, unknown>[]>;
  /** Writes one attribute of a key's item directly, as a restore or a fix might. */
  setKeyField(id: string, field: string, value: unknown): Promise<unknown>;
  drop(): Promise<void>;
}

/**
 * The run's DynamoDB Local as a database of its own (an access key id of its own): DynamoDB Local
 * runs each database's SQLite work on one thread, so tables in one database would queue every
 * test file's requests behind each other while the other core idles.
 */
function ownDatabase(): string {
  return `http://${newAccessKeyId()}@${new URL(inject('dynamoEndpoint')).host}`;
}

/**
 * Fresh, uniquely named tables in the run's DynamoDB Local, made from the shared definitions, in
 * a database of their own.
 */
export async function createTestTables(): Promise<TestTables> {
  const endpoint = ownDatabase();
  const doc = createDocumentClient({ region: 'us-east-1', endpoint });
  const suffix = randomUUID().slice(0, 8);
  const keysTable = `keys-${suffix}`;
  const membershipsTable = `memberships-${suffix}`;
  await doc.send(new CreateTableCommand(createTableInput(KEYS_TABLE, keysTable)));
  await doc.send(new CreateTableCommand(createTableInput(MEMBERSHIPS_TABLE, membershipsTable)));
  const pepperDir = mkdtempSync(join(tmpdir(), 'svc-pepper-'));
  const config = (settings: Partial<Settings> = {}, pepper?: Config['pepper']): Config => ({
    keysTableName: keysTable,
    mcpTools: REFERENCE_TOOLS,
    membershipsTableName: membershipsTable,
    pepper: pepper ?? { kind: 'local', dir: pepperDir, version: 1 },
    dynamodbEndpoint: endpoint,
    region: 'us-east-1',
    settings: { ...DEFAULT_SETTINGS, ...settings },
    mcpAllowedOrigins: [],
  });
  return {
    endpoint,
    doc,
    keysTable,
    membershipsTable,
    pepperDir,
    env: {
      KEYS_TABLE_NAME: keysTable,
      MEMBERSHIPS_TABLE_NAME: membershipsTable,
      PEPPER_DIR: pepperDir,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: 'us-east-1',
    },
    config,
    runtime: ({ settings, pepper, ...overrides } = {}) =>
      buildRuntime(config(settings, pepper), { doc, ...overrides }),
    setRole: async (userId, workspaceId, role) => {
      await doc.send(
        new PutCommand({ TableName: membershipsTable, Item: { pk: userId, sk: workspaceId, role } }),
      );
    },
    scanKeys: async () => {
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await doc.send(
          new ScanCommand({ TableName: keysTable, ExclusiveStartKey: start, ConsistentRead: true }),
        );
        items.push(...(out.Items ?? []));
        start = out.LastEvaluatedKey;
      } while (start);
      return items;
    },
    workspaceEntries: async (workspaceId) =>
      (
        await doc.send(
          new QueryCommand({
            TableName: keysTable,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :k)',
            ExpressionAttributeValues: { ':pk': workspacePk(workspaceId), ':k': ENTRY_PREFIX },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [],
    setKeyField: (id, field, value) =>
      doc.send(
        new UpdateCommand({
          TableName: keysTable,
          Key: { pk: keyPk(id), sk: KEY_SK },
          UpdateExpression: 'SET #f = :v',
          ExpressionAttributeNames: { '#f': field },
          ExpressionAttributeValues: { ':v': value },
        }),
      ),
    drop: async () => {
      await doc.send(new DeleteTableCommand({ TableName: keysTable }));
      await doc.send(new DeleteTableCommand({ TableName: membershipsTable }));
      rmSync(pepperDir, { recursive: true, force: true });
    },
  };
}

export { manualClock } from './clock.ts';
