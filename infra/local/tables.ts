import { CreateTableCommand, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE, type TableDefinition } from '#lib/store/tables';

export const KEYS_TABLE_NAME = 'svc-mcp-api-keys';
export const MEMBERSHIPS_TABLE_NAME = 'svc-workspace-memberships';

/** Creates the service's tables from the shared definitions, unless they exist. */
export async function ensureTables(doc: DynamoDBDocumentClient): Promise<void> {
  const existing = new Set((await doc.send(new ListTablesCommand({}))).TableNames ?? []);
  const wanted: [TableDefinition, string][] = [
    [KEYS_TABLE, KEYS_TABLE_NAME],
    [MEMBERSHIPS_TABLE, MEMBERSHIPS_TABLE_NAME],
  ];
  for (const [def, name] of wanted) {
    if (existing.has(name)) continue;
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
