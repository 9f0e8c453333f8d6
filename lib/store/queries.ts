import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import { type KeyRecord, STATUS_RULES } from '#lib/keys/model';
import type { EventPage, EventQuery, ListPage, ListQuery } from '#lib/keys/port';
import { conditionParams, keyStatusIs } from './conditions.ts';
import {
  EVENT_PREFIX,
  eventSk,
  fromEventItem,
  fromKeyItem,
  KEY_SK,
  keyPk,
  lineagePk,
  userGsiPk,
  userGsiSk,
} from './items.ts';
import { BY_USER } from './tables.ts';

/**
 * The keys table's paged reads. Each reads until a page is full plus one item (a filter can
 * thin DynamoDB's pages), so it can say whether more items follow.
 */
async function readPage<T>(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  limit: number,
  map: (item: Record<string, unknown>) => T | undefined,
  minPageSize = 0,
): Promise<{ items: T[]; hasMore: boolean }> {
  const items: T[] = [];
  let startKey = input.ExclusiveStartKey;
  do {
    const wanted = limit + 1 - items.length;
    const out = await doc.send(
      new QueryCommand({ ...input, Limit: Math.max(wanted, minPageSize), ExclusiveStartKey: startKey }),
    );
    for (const item of out.Items ?? []) {
      const value = map(item);
      if (value !== undefined) items.push(value);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey && items.length <= limit);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** A user's keys through GSI `byUser`, newest first, optionally of one status. */
export function queryUserKeys(
  doc: DynamoDBDocumentClient,
  tableName: string,
  userId: string,
  { limit, after, status, now }: ListQuery,
): Promise<ListPage> {
  const filter = status && keyStatusIs(STATUS_RULES[status], now.toISOString());
  const values = { ':u': userGsiPk(userId) };
  return readPage<KeyRecord>(
    doc,
    {
      TableName: tableName,
      IndexName: BY_USER.indexName,
      KeyConditionExpression: 'gsi1pk = :u',
      ScanIndexForward: false,
      ExclusiveStartKey: after && {
        pk: keyPk(after.id),
        sk: KEY_SK,
        gsi1pk: userGsiPk(userId),
        gsi1sk: userGsiSk(after.created_at, after.id),
      },
      ...(filter
        ? conditionParams(filter, 'FilterExpression', { values })
        : { ExpressionAttributeValues: values }),
    },
    limit,
    fromKeyItem,
    filter ? 100 : 0,
  );
}

/**
 * A lineage's events: one partition, newest first, read consistently so the history shows the
 * change that was just made.
 */
export function queryLineageEvents(
  doc: DynamoDBDocumentClient,
  tableName: string,
  lineageId: string,
  { limit, after }: EventQuery,
): Promise<EventPage> {
  return readPage<KeyEvent>(
    doc,
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :events)',
      ExpressionAttributeValues: { ':pk': lineagePk(lineageId), ':events': EVENT_PREFIX },
      ScanIndexForward: false,
      ConsistentRead: true,
      ExclusiveStartKey: after && { pk: lineagePk(lineageId), sk: eventSk(after) },
    },
    limit,
    fromEventItem,
  );
}
