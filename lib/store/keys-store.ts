import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AppError } from '#lib/errors';
import type { KeyRecord, KeyStatus } from '#lib/keys/model';
import { DependencyError } from './dependency.ts';
import { KEYS_TABLE } from './tables.ts';

const DAY_MS = 86_400_000;
const USE_RECORD_INTERVAL_MS = 60_000;
/** Attempts for transactions that lose to a concurrent writer on the per-user limit item. */
const MAX_ATTEMPTS = 8;

export const keyPk = (id: string): string => `KEY#${id}`;
export const KEY_SK = 'KEY';
export const userGsiPk = (userId: string): string => `USER#${userId}`;
export const userGsiSk = (createdAt: string, id: string): string => `${createdAt}#${id}`;
const limitPk = (userId: string): string => `USER#${userId}`;
const LIMIT_SK = 'ACTIVE_KEYS';

const INDEX = KEYS_TABLE.globalIndexes[0]?.indexName ?? 'byUser';

/** Position of the last item of a page; the next page starts after it. */
export interface ListPosition {
  created_at: string;
  id: string;
}

export interface ListOptions {
  limit: number;
  after?: ListPosition | undefined;
  status?: KeyStatus | undefined;
  now: Date;
}

interface LimitItem {
  /** lineage id -> expires_at of the lineage's active key */
  active: Record<string, string>;
  version: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jitter = (attempt: number) => sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));

function fromItem(item: Record<string, unknown>): KeyRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _gp, gsi1sk: _gs, ttl: _ttl, ...record } = item;
  return record as unknown as KeyRecord;
}

type Reason = { Code?: string; Item?: Record<string, unknown> };

function reasonsOf(err: TransactionCanceledException): Reason[] {
  return (err.CancellationReasons ?? []).map((r) => ({
    Code: r.Code,
    // The document client does not unmarshall items inside cancellation reasons.
    Item: r.Item ? unmarshall(r.Item as Parameters<typeof unmarshall>[0]) : undefined,
  }));
}

function throwIfThrottled(reasons: Reason[], err: unknown): void {
  if (reasons.some((r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded')) {
    throw new DependencyError('DynamoDB throttled a transaction', { cause: err });
  }
}

/**
 * The keys table. Every condition failure becomes a domain error here, so callers never see
 * a DynamoDB exception for an expected outcome.
 */
export class KeysStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly retentionDays: number,
  ) {}

  private ttlAfter(iso: string): number {
    return Math.floor((Date.parse(iso) + this.retentionDays * DAY_MS) / 1000);
  }

  /** The stored item of a key record (key attributes, GSI attributes and TTL added). */
  toItem(record: KeyRecord): Record<string, unknown> {
    return {
      ...record,
      pk: keyPk(record.id),
      sk: KEY_SK,
      gsi1pk: userGsiPk(record.user_id),
      gsi1sk: userGsiSk(record.created_at, record.id),
      ttl: this.ttlAfter(record.revoked_at ?? record.expires_at),
    };
  }

  /** Strongly consistent read by id. */
  async get(id: string): Promise<KeyRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: keyPk(id), sk: KEY_SK }, ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : undefined;
  }

  /**
   * Inserts a new key and counts its lineage against the user's active-key cap in one
   * transaction. The per-user limit item is updated optimistically (version check) so that
   * concurrent creates can never exceed the cap.
   */
  async create(record: KeyRecord, maxActive: number, now: Date): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const limit = await this.getLimit(record.user_id);
      const active = Object.fromEntries(
        Object.entries(limit?.active ?? {}).filter(([, expiresAt]) => Date.parse(expiresAt) > now.getTime()),
      );
      if (Object.keys(active).length >= maxActive) {
        throw new AppError('key_limit_reached', `At most ${maxActive} active API keys are allowed per user.`);
      }
      active[record.lineage_id] = record.expires_at;
      const input: TransactWriteCommandInput = {
        TransactItems: [
          {
            Put: {
              TableName: this.tableName,
              Item: this.toItem(record),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: { pk: limitPk(record.user_id), sk: LIMIT_SK, active, version: (limit?.version ?? 0) + 1 },
              ...(limit
                ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': limit.version } }
                : { ConditionExpression: 'attribute_not_exists(pk)' }),
            },
          },
        ],
      };
      try {
        await this.doc.send(new TransactWriteCommand(input));
        return;
      } catch (err) {
        if (!(err instanceof TransactionCanceledException)) throw err;
        throwIfThrottled(reasonsOf(err), err);
        await jitter(attempt);
      }
    }
    throw new AppError('conflict', 'Too many concurrent changes to this user’s keys; retry the request.');
  }

  private async getLimit(userId: string): Promise<LimitItem | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: limitPk(userId), sk: LIMIT_SK },
        ConsistentRead: true,
      }),
    );
    return out.Item as LimitItem | undefined;
  }

  /**
   * Marks a key revoked and releases its lineage's slot under the cap, atomically. Revoking an
   * already revoked key returns it unchanged (revoke is idempotent).
   */
  async revoke(record: KeyRecord, now: Date): Promise<KeyRecord> {
    const revokedAt = now.toISOString();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.tableName,
                  Key: { pk: keyPk(record.id), sk: KEY_SK },
                  UpdateExpression: 'SET revoked_at = :now, #ttl = :ttl',
                  ConditionExpression:
                    'attribute_exists(pk) AND user_id = :uid AND attribute_not_exists(revoked_at)',
                  ExpressionAttributeNames: { '#ttl': 'ttl' },
                  ExpressionAttributeValues: {
                    ':now': revokedAt,
                    ':ttl': this.ttlAfter(revokedAt),
                    ':uid': record.user_id,
                  },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              {
                Update: {
                  TableName: this.tableName,
                  Key: { pk: limitPk(record.user_id), sk: LIMIT_SK },
                  UpdateExpression: 'REMOVE active.#lineage SET version = version + :one',
                  ConditionExpression: 'attribute_exists(active)',
                  ExpressionAttributeNames: { '#lineage': record.lineage_id },
                  ExpressionAttributeValues: { ':one': 1 },
                },
              },
            ],
          }),
        );
        return { ...record, revoked_at: revokedAt };
      } catch (err) {
        if (!(err instanceof TransactionCanceledException)) throw err;
        const reasons = reasonsOf(err);
        throwIfThrottled(reasons, err);
        const keyReason = reasons[0];
        if (keyReason?.Code === 'ConditionalCheckFailed') {
          const current = keyReason.Item;
          if (!current || current.user_id !== record.user_id)
            throw new AppError('not_found', 'API key not found.');
          if (current.revoked_at) return fromItem(current);
          throw new Error('revoke failed its condition for an unrevoked key');
        }
        if (reasons[1]?.Code === 'ConditionalCheckFailed') {
          throw new Error(`limit item missing for a user with keys (key ${record.id})`);
        }
        await jitter(attempt);
      }
    }
    throw new AppError('conflict', 'The key was modified concurrently; retry the request.');
  }

  /**
   * Revokes `old` and inserts `next` in ONE transaction (contract §5). The lineage keeps its
   * slot under the cap, so the limit item is not touched.
   */
  async rotate(old: KeyRecord, next: KeyRecord, now: Date): Promise<KeyRecord> {
    const revokedAt = now.toISOString();
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: { pk: keyPk(old.id), sk: KEY_SK },
                UpdateExpression: 'SET revoked_at = :now, replaced_by = :next, #ttl = :ttl',
                ConditionExpression:
                  'attribute_exists(pk) AND user_id = :uid AND attribute_not_exists(revoked_at) AND expires_at > :now',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: {
                  ':now': revokedAt,
                  ':next': next.id,
                  ':uid': old.user_id,
                  ':ttl': this.ttlAfter(revokedAt),
                },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: this.toItem(next),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { ...old, revoked_at: revokedAt, replaced_by: next.id };
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = reasonsOf(err);
      throwIfThrottled(reasons, err);
      const keyReason = reasons[0];
      if (keyReason?.Code === 'ConditionalCheckFailed') {
        const current = keyReason.Item;
        if (!current || current.user_id !== old.user_id)
          throw new AppError('not_found', 'API key not found.');
        if (current.revoked_at) {
          throw new AppError('conflict', 'The key was rotated or revoked by a concurrent request.');
        }
        throw new AppError('key_expired', 'The key has expired and cannot be rotated; create a new key.');
      }
      throw new AppError('conflict', 'The key was modified concurrently; retry the request.', { cause: err });
    }
  }

  /**
   * Records a use at most once a minute per key: the condition makes concurrent callers write
   * once. Returns whether this call wrote.
   */
  async recordUse(id: string, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: keyPk(id), sk: KEY_SK },
          UpdateExpression: 'SET last_used_at = :now',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at <= :threshold)',
          ExpressionAttributeValues: {
            ':now': now.toISOString(),
            ':threshold': new Date(now.getTime() - USE_RECORD_INTERVAL_MS).toISOString(),
          },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /** Whether a key last used at `lastUsedAt` is due for a new last-use record at `now`. */
  static useIsDue(lastUsedAt: string | undefined, now: Date): boolean {
    return !lastUsedAt || now.getTime() - Date.parse(lastUsedAt) >= USE_RECORD_INTERVAL_MS;
  }

  /**
   * A user's keys, newest first, through GSI `byUser`. Reads until a page is full (status
   * filters can thin DynamoDB pages) and reports whether more items follow.
   */
  async listByUser(userId: string, options: ListOptions): Promise<{ items: KeyRecord[]; hasMore: boolean }> {
    const { limit, after, status, now } = options;
    const filter = statusFilter(status, now.toISOString());
    const items: KeyRecord[] = [];
    let startKey: Record<string, unknown> | undefined = after && {
      pk: keyPk(after.id),
      sk: KEY_SK,
      gsi1pk: userGsiPk(userId),
      gsi1sk: userGsiSk(after.created_at, after.id),
    };
    do {
      const wanted = limit + 1 - items.length;
      const input: QueryCommandInput = {
        TableName: this.tableName,
        IndexName: INDEX,
        KeyConditionExpression: 'gsi1pk = :u',
        ExpressionAttributeValues: { ':u': userGsiPk(userId), ...filter?.values },
        ScanIndexForward: false,
        Limit: filter ? Math.max(wanted, 100) : wanted,
        ExclusiveStartKey: startKey,
        ...(filter && { FilterExpression: filter.expression }),
      };
      const out = await this.doc.send(new QueryCommand(input));
      for (const item of out.Items ?? []) items.push(fromItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey && items.length <= limit);
    return { items: items.slice(0, limit), hasMore: items.length > limit };
  }
}

function statusFilter(
  status: KeyStatus | undefined,
  nowIso: string,
): { expression: string; values: Record<string, unknown> } | undefined {
  switch (status) {
    case undefined:
      return undefined;
    case 'revoked':
      return { expression: 'attribute_exists(revoked_at)', values: {} };
    case 'active':
      return {
        expression: 'attribute_not_exists(revoked_at) AND expires_at > :now',
        values: { ':now': nowIso },
      };
    case 'expired':
      return {
        expression: 'attribute_not_exists(revoked_at) AND expires_at <= :now',
        values: { ':now': nowIso },
      };
  }
}
