import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  type KeysAndAttributes,
} from '@aws-sdk/client-dynamodb';
import type { BatchGetCommandInput, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
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
  let pending: Record<string, KeysAndAttributes> | undefined = marshalled(requestItems);
  for (let round = 0; pending && Object.keys(pending).length > 0; round++) {
    if (round === MAX_ROUNDS) throw new DependencyError('a batch read left unprocessed keys');
    if (round > 0) await new Promise((r) => setTimeout(r, (10 + Math.random() * 10) * 2 ** round));
    const out: BatchGetItemCommandOutput = await doc.send(new BatchGetItemCommand({ RequestItems: pending }));
    for (const [table, items] of Object.entries(out.Responses ?? {}))
      found[table] = [...(found[table] ?? []), ...items.map((item) => unmarshall(item))];
    pending = out.UnprocessedKeys;
  }
  return found;
}

/**
 * The request in DynamoDB's own attribute values. The batch is sent as the low-level command,
 * not the document client's: the keys are marshalled once here and the items unmarshalled once
 * as they arrive, where the document client walks every input and output again (measured on the
 * verifier's warm path: `bench/verify.ts`).
 */
function marshalled(requestItems: BatchRequestItems): Record<string, KeysAndAttributes> {
  return Object.fromEntries(
    Object.entries(requestItems).map(([table, { Keys, ...rest }]) => [
      table,
      { ...rest, Keys: (Keys ?? []).map((key) => marshall(key) as Record<string, AttributeValue>) },
    ]),
  );
}

/** `items` in slices of at most `size`. */
export function chunks<T>(items: readonly T[], size = BATCH_GET_LIMIT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
