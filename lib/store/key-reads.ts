import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateWriter } from '#lib/keys/limiter';
import { rateCountsOf } from '#lib/keys/limits';
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
export class DynamoKeyReads implements KeyReader, RateWriter {
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

  /**
   * Adds a limited credential's counted calls to its counters (contract §19) and removes the
   * counters of windows that ended, answering each counter's total after the add: one update,
   * on condition the item exists (a key TTL removed is not made again; nothing is counted then).
   */
  async addRates(
    id: string,
    adds: Record<string, number>,
    removes: readonly string[],
  ): Promise<Record<string, number>> {
    const added = Object.keys(adds);
    const names = Object.fromEntries([...added, ...removes].map((name, i) => [`#c${i}`, name]));
    const remove = removes.map((_, i) => `#c${added.length + i}`);
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          ...this.key(id),
          UpdateExpression: `ADD ${added.map((_, i) => `#c${i} :n${i}`).join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: Object.fromEntries(added.map((name, i) => [`:n${i}`, adds[name]])),
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return rateCountsOf(out.Attributes);
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return {};
      throw err;
    }
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
    // Stryker disable next-line ArrayDeclaration: equivalent, DynamoDB answers every table asked for in `Responses`, empty when it found nothing
    for (const item of byTable[tableName] ?? []) {
      const record = fromKeyItem(item);
      found.set(record.id, record);
    }
  }
  return found;
}
