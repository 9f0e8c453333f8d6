import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DependencyError } from '#lib/errors';
import { transact } from '#lib/store/transactions';

const INPUT = { TransactItems: [] };
const conflict = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
  });

/** A client whose first `conflicts` transactions lose to another one on the same item. */
function conflictingClient(conflicts: number) {
  let calls = 0;
  const doc = {
    send: async () => {
      calls++;
      if (calls <= conflicts) throw conflict();
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { doc, calls: () => calls };
}

describe('a transaction that conflicts with concurrent ones', () => {
  it('is retried until it goes through, however many attempts that takes within the time', async () => {
    // More than the ten retries a count allowed before.
    const client = conflictingClient(11);
    expect(await transact(client.doc, INPUT, 10_000)).toEqual({ ok: true });
    expect(client.calls()).toBe(12);
  });

  it('gives up once the time is spent, with a DependencyError naming only the reason codes', async () => {
    const client = conflictingClient(Number.POSITIVE_INFINITY);
    const started = performance.now();
    const failed = await transact(client.doc, INPUT, 300).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(DependencyError);
    expect((failed as Error).message).toMatch(
      /^transaction kept conflicting for 300 ms, \d+ attempts \(reasons: TransactionConflict, None\)$/,
    );
    // No wait is begun that would end past the time, so it gives up about then (timers may run
    // late on a busy machine); the waits before the fifth attempt add up to at most 75 ms, so it
    // has made at least five.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(client.calls()).toBeGreaterThanOrEqual(5);
  });
});
