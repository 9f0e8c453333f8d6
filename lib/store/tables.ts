import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * Table shapes, defined once. Tests and the local service create tables from these with
 * `createTableInput`; the CDK stateful stack builds its tables from the same objects.
 */
export interface TableDefinition {
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute?: string;
  globalIndexes: { indexName: string; partitionKey: string; sortKey: string }[];
}

export const KEYS_TABLE: TableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalIndexes: [{ indexName: 'byUser', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
};

/** Owned by the form service; this service only reads it (the local service also writes it). */
export const MEMBERSHIPS_TABLE: TableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [],
};

export function createTableInput(def: TableDefinition, tableName: string): CreateTableCommandInput {
  const attributes = new Set([def.partitionKey, def.sortKey]);
  for (const gsi of def.globalIndexes) {
    attributes.add(gsi.partitionKey);
    attributes.add(gsi.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: def.partitionKey, KeyType: 'HASH' },
      { AttributeName: def.sortKey, KeyType: 'RANGE' },
    ],
    ...(def.globalIndexes.length > 0 && {
      GlobalSecondaryIndexes: def.globalIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  };
}
