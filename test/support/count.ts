import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Counts the DynamoDB commands a client sends, by command name. */
export function countCommands(doc: DynamoDBDocumentClient) {
  const counts = new Map<string, number>();
  const name = `count-${Math.random().toString(36).slice(2)}`;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.set(command, (counts.get(command) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    of: (command: string) => counts.get(command) ?? 0,
    reset: () => counts.clear(),
    snapshot: () => Object.fromEntries(counts),
    remove: () => doc.middlewareStack.remove(name),
  };
}
