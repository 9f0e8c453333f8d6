import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DependencyError } from '#lib/errors';

/** Why one item of a cancelled transaction failed, with the stored item when it was returned. */
export interface CancellationReason {
  code: string;
  item: Record<string, unknown> | undefined;
}

export type TransactionOutcome = { ok: true } | { ok: false; reasons: CancellationReason[] };

const THROTTLED = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);
/** Transactions that lost to another transaction on the same item; retrying is right. */
const RETRYABLE = new Set(['TransactionConflict']);
/**
 * How long conflicts with concurrent transactions on the same item are retried before the call
 * answers 503. A time, not a count: how many attempts a burst of transactions on one item needs
 * depends on how fast each one runs (a count that held on an idle machine ran out on a busy one,
 * where 70 concurrent creates of one user each took longer); every caller has 10 s, and on
 * DynamoDB itself a conflict clears in milliseconds.
 */
export const CONFLICT_RETRY_MS = 8000;
/** The longest wait between two attempts: a burst that keeps colliding spreads out. */
const CONFLICT_BACKOFF_CAP_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a transaction and turns a cancellation into its per-item reasons: the one place that
 * reads `CancellationReasons`. Conflicts with concurrent transactions are retried with jitter
 * for up to `retryForMs`, then become a DependencyError, as throttling does; either carries the
 * reason codes only, never the items (they hold digests) nor the SDK error.
 */
export async function transact(
  doc: DynamoDBDocumentClient,
  input: TransactWriteCommandInput,
  retryForMs = CONFLICT_RETRY_MS,
): Promise<TransactionOutcome> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await doc.send(new TransactWriteCommand(input));
      return { ok: true };
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = (err.CancellationReasons ?? []).map((r) => ({
        code: r.Code ?? 'None',
        // The document client does not unmarshall items inside cancellation reasons.
        item: r.Item ? unmarshall(r.Item as Parameters<typeof unmarshall>[0]) : undefined,
      }));
      const codes = reasons.map((r) => r.code);
      if (codes.some((c) => THROTTLED.has(c))) {
        throw new DependencyError(`DynamoDB throttled a transaction (reasons: ${codes.join(', ')})`);
      }
      if (codes.some((c) => RETRYABLE.has(c)) && !codes.includes('ConditionalCheckFailed')) {
        const delay = Math.random() * Math.min(CONFLICT_BACKOFF_CAP_MS, 5 * 2 ** attempt);
        if (performance.now() - started + delay > retryForMs) {
          throw new DependencyError(
            `transaction kept conflicting for ${retryForMs} ms, ${attempt + 1} attempts (reasons: ${codes.join(', ')})`,
          );
        }
        await sleep(delay);
        continue;
      }
      return { ok: false, reasons };
    }
  }
}

export const failedCondition = (reason: CancellationReason | undefined): boolean =>
  reason?.code === 'ConditionalCheckFailed';

/** A cancellation an adapter did not expect: a bug or a schema drift, never a domain outcome. */
export function unexpected(operation: string, reasons: CancellationReason[]): Error {
  return new Error(
    `${operation} transaction cancelled unexpectedly (reasons: ${reasons.map((r) => r.code).join(', ')})`,
  );
}
