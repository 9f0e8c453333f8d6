import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Consumed {
  CapacityUnits?: number;
}

/**
 * Sums the capacity DynamoDB reports for every item command a client sends (asking for it with
 * `ReturnConsumedCapacity: TOTAL` where the command did not), as read and write request units.
 * DynamoDB Local reports what AWS would bill.
 */
export function countCapacity(doc: DynamoDBDocumentClient) {
  let reads = 0;
  let writes = 0;
  const name = `capacity-${Math.random().toString(36).slice(2)}`;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as { ReturnConsumedCapacity?: string };
      const counted = READS.has(command) || WRITES.has(command);
      const out = await next(
        counted && !input.ReturnConsumedCapacity
          ? { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } }
          : args,
      );
      if (counted) {
        const consumed = (out.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
        const units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
        if (READS.has(command)) reads += units;
        else writes += units;
      }
      return out;
    },
    { step: 'initialize', name },
  );
  return {
    reads: () => reads,
    writes: () => writes,
    reset: () => {
      reads = 0;
      writes = 0;
    },
    remove: () => doc.middlewareStack.remove(name),
  };
}
