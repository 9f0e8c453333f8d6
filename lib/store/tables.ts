import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * Table shapes, defined once. Tests and the local service create tables from these with
 * `createTableInput`; the CDK stateful stack builds its tables from the same objects.
 */
export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  /** Non-key attributes the index carries; all attributes when unset. @default all */
  include?: string[];
}

export interface TableDefinition {
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute?: string;
  globalIndexes: IndexDefinition[];
  /** The table's change stream, when it has one. @default none */
  stream?: 'NEW_IMAGE';
}

/** GSI of a user's keys, newest first (the list). */
export const BY_USER: IndexDefinition = { indexName: 'byUser', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' };

/**
 * Sparse GSI of keys by the time their next expiry notice is due (the sweep). Only keys with a
 * notice still to come are in it, and only what an event needs is projected.
 */
export const BY_EXPIRY: IndexDefinition = {
  indexName: 'byExpiry',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
  include: ['id', 'user_id', 'lineage_id', 'expires_at'],
};

/** Keys, the per-user slot items and the audit events; the stream publishes the events. */
export const KEYS_TABLE: TableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalIndexes: [BY_USER, BY_EXPIRY],
  stream: 'NEW_IMAGE',
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
        Projection: gsi.include
          ? { ProjectionType: 'INCLUDE', NonKeyAttributes: gsi.include }
          : { ProjectionType: 'ALL' },
      })),
    }),
    ...(def.stream && { StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } }),
  };
}
