import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE, type TableDefinition } from '#lib/store/tables';

export const KEYS_TABLE_NAME = 'svc-mcp-api-keys';
export const MEMBERSHIPS_TABLE_NAME = 'svc-workspace-memberships';

/**
 * Brings a table kept in a data directory from an earlier version up to its definition: the
 * indexes and the stream it lacks are added (DynamoDB Local builds a new index at once).
 */
async function upgradeTable(doc: DynamoDBDocumentClient, def: TableDefinition, name: string): Promise<void> {
  const { Table: table } = await doc.send(new DescribeTableCommand({ TableName: name }));
  const wanted = createTableInput(def, name);
  const existing = new Set((table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  for (const index of wanted.GlobalSecondaryIndexes ?? []) {
    if (existing.has(index.IndexName)) continue;
    await doc.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: wanted.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [
          {
            Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection },
          },
        ],
      }),
    );
  }
  if (wanted.StreamSpecification && !table?.StreamSpecification?.StreamEnabled) {
    await doc.send(
      new UpdateTableCommand({ TableName: name, StreamSpecification: wanted.StreamSpecification }),
    );
  }
}

/** Creates the service's tables from the shared definitions, or upgrades those that exist. */
export async function ensureTables(doc: DynamoDBDocumentClient): Promise<void> {
  const existing = new Set((await doc.send(new ListTablesCommand({}))).TableNames ?? []);
  const wanted: [TableDefinition, string][] = [
    [KEYS_TABLE, KEYS_TABLE_NAME],
    [MEMBERSHIPS_TABLE, MEMBERSHIPS_TABLE_NAME],
  ];
  for (const [def, name] of wanted) {
    if (existing.has(name)) {
      await upgradeTable(doc, def, name);
      continue;
    }
    await doc.send(new CreateTableCommand(createTableInput(def, name)));
    if (def.timeToLiveAttribute) {
      await doc.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: def.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  }
}

/** Deletes the service's tables, best effort (a throwaway run's, from a DynamoDB Local it shares). */
export async function dropTables(doc: DynamoDBDocumentClient): Promise<void> {
  await Promise.allSettled(
    [KEYS_TABLE_NAME, MEMBERSHIPS_TABLE_NAME].map((TableName) =>
      doc.send(new DeleteTableCommand({ TableName })),
    ),
  );
}
