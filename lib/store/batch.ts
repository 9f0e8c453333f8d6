import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '#lib/errors';

export type BatchRequestItems = NonNullable<BatchGetCommandInput['RequestItems']>;
export type StoredItem = Record<string, unknown>;

/** Keys one BatchGetItem may carry, across all its tables. */
export const BATCH_GET_LIMIT = 100;
const MAX_ROUNDS = 5;

/**
 * One BatchGetItem, retrying whatever DynamoDB left in `UnprocessedKeys` (with backoff) until
 * every key was read: an unprocessed key is never taken for a missing item. Returns the items by
 * table; a failing or persistently throttled read throws.
 */
export async function batchGet(
  doc: DynamoDBDocumentClient,
  requestItems: BatchRequestItems,
): Promise<Record<string, StoredItem[]>> {
  const found: Record<string, StoredItem[]> = {};
  let pending: BatchRequestItems | undefined = requestItems;
  for (let round = 0; pending && Object.keys(pending).length > 0; round++) {
    if (round === MAX_ROUNDS) throw new DependencyError('a batch read left unprocessed keys');
    if (round > 0) await new Promise((r) => setTimeout(r, (10 + Math.random() * 10) * 2 ** round));
    const out: BatchGetCommandOutput = await doc.send(new BatchGetCommand({ RequestItems: pending }));
    for (const [table, items] of Object.entries(out.Responses ?? {}))
      found[table] = [...(found[table] ?? []), ...items];
    pending = out.UnprocessedKeys;
  }
  return found;
}

/** `items` in slices of at most `size`. */
export function chunks<T>(items: readonly T[], size = BATCH_GET_LIMIT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
