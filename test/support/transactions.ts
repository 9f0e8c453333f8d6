import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Records the number of actions of every TransactWriteItems a client sends, in order. */
export function recordTransactionSizes(doc: DynamoDBDocumentClient) {
  const sizes: number[] = [];
  const name = `transactions-${Math.random().toString(36).slice(2)}`;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (
        context.commandName === 'TransactWriteCommand' ||
        context.commandName === 'TransactWriteItemsCommand'
      ) {
        sizes.push((args.input as { TransactItems?: unknown[] }).TransactItems?.length ?? 0);
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    sizes: () => [...sizes],
    reset: () => {
      sizes.length = 0;
    },
    remove: () => doc.middlewareStack.remove(name),
  };
}
