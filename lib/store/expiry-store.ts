import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { markersFrom, type Notice, type NoticeSubject } from '#lib/events/expiry';
import type { KeyEvent } from '#lib/events/model';
import type { DuePage, ExpiryStore } from '#lib/events/port';
import { conditionParams, itemIsNew, noticesNotWritten } from './conditions.ts';
import { EXPIRY_SHARDS, eventItem, expiryShardKey, KEY_SK, keyPk } from './items.ts';
import { BY_EXPIRY } from './tables.ts';
import { failedCondition, transact } from './transactions.ts';

const PAGE_SIZE = 100;

/**
 * The expiry sweep's adapter. Keys with a notice still to come sit in the sparse GSI `byExpiry`
 * under the time it falls due; the sweep reads each shard up to now, so it reads the due keys
 * and nothing else. Writing a notice moves the key to its next one, or out of the index.
 */
export class DynamoExpiryStore implements ExpiryStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly retentionDays: number,
  ) {}

  async *dueKeys(now: Date): AsyncIterable<DuePage> {
    for (let shard = 0; shard < EXPIRY_SHARDS; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: BY_EXPIRY.indexName,
            KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
            ExpressionAttributeValues: { ':shard': expiryShardKey(shard), ':now': now.toISOString() },
            Limit: PAGE_SIZE,
            ExclusiveStartKey: startKey,
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        startKey = out.LastEvaluatedKey;
        yield {
          keys: (out.Items ?? []).map((item) => ({
            id: String(item.id),
            user_id: String(item.user_id),
            lineage_id: String(item.lineage_id),
            expires_at: String(item.expires_at),
          })),
          itemsRead: out.ScannedCount ?? 0,
          readUnits: out.ConsumedCapacity?.CapacityUnits ?? 0,
        };
      } while (startKey);
    }
  }

  async recordNotice(
    key: NoticeSubject,
    notice: Notice,
    event: KeyEvent,
    nextAt: string | undefined,
  ): Promise<boolean> {
    const outcome = await transact(this.doc, {
      TransactItems: [
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: keyPk(key.id), sk: KEY_SK },
            UpdateExpression: nextAt
              ? 'SET #marker = :at, gsi2sk = :next'
              : 'SET #marker = :at REMOVE gsi2pk, gsi2sk',
            ...conditionParams(noticesNotWritten(markersFrom(notice)), 'ConditionExpression', {
              names: { '#marker': notice.marker },
              values: { ':at': event.occurred_at, ...(nextAt && { ':next': nextAt }) },
            }),
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: eventItem(event, key.expires_at, this.retentionDays),
            ...conditionParams(itemIsNew),
          },
        },
      ],
    });
    if (outcome.ok) return true;
    if (failedCondition(outcome.reasons[0])) return false;
    throw new Error(
      `notice transaction cancelled (reasons: ${outcome.reasons.map((r) => r.code).join(', ')})`,
    );
  }
}
