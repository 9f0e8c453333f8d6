import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyRecord } from '#lib/keys/model';
import type { KeyReader } from '#lib/keys/port';
import { useThreshold } from '#lib/keys/rules';
import { batchGet, chunks } from './batch.ts';
import { conditionParams, useIsStale } from './conditions.ts';
import { fromKeyItem, KEY_SK, keyPk } from './key-item.ts';

/**
 * What the key verifier reads and writes of a key item (the `KeyReader` port): the consistent read
 * by id and the throttled `last_used_at` write. `DynamoKeyStore` answers the same two calls with
 * this class, so the verifier's import graph holds none of the lifecycle's writes.
 */
export class DynamoKeyReads implements KeyReader {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private key(id: string) {
    return { TableName: this.tableName, Key: { pk: keyPk(id), sk: KEY_SK } };
  }

  async get(id: string): Promise<KeyRecord | undefined> {
    const out = await this.doc.send(new GetCommand({ ...this.key(id), ConsistentRead: true }));
    return out.Item ? fromKeyItem(out.Item) : undefined;
  }

  async recordUse(id: string, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          ...this.key(id),
          UpdateExpression: 'SET last_used_at = :now',
          ...conditionParams(useIsStale(useThreshold(now)), 'ConditionExpression', {
            values: { ':now': now.toISOString() },
          }),
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }
}

/**
 * Strongly consistent reads of many keys: BatchGetItem, 100 ids a call (DynamoDB's limit), the
 * calls run together; ids are read once whatever their repetitions, and `UnprocessedKeys` are
 * retried (`batchGet`). An id without a key is absent from the map.
 */
export async function readKeys(
  doc: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
): Promise<Map<string, KeyRecord>> {
  const found = new Map<string, KeyRecord>();
  const reads = chunks([...new Set(ids)]).map((slice) =>
    batchGet(doc, {
      [tableName]: { Keys: slice.map((id) => ({ pk: keyPk(id), sk: KEY_SK })), ConsistentRead: true },
    }),
  );
  for (const byTable of await Promise.all(reads)) {
    for (const item of byTable[tableName] ?? []) {
      const record = fromKeyItem(item);
      found.set(record.id, record);
    }
  }
  return found;
}
