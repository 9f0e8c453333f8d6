import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { type EventSink, PublishError, type PublishedEvent } from './port.ts';

/** `source` of every event the service publishes (contract §10). */
export const EVENT_SOURCE = 'svc.mcp-api-keys';
/** PutEvents takes at most 10 entries. */
export const PUT_EVENTS_BATCH = 10;

/** The EventBridge entry of an event: detail-type is the event type, detail the event itself. */
export function toEntry(event: PublishedEvent, busName: string): PutEventsRequestEntry {
  return {
    EventBusName: busName,
    Source: EVENT_SOURCE,
    DetailType: event.type,
    Detail: JSON.stringify(event),
    Time: new Date(event.occurred_at),
  };
}

export interface EventBridgeSinkOptions {
  /** PutEvents calls per batch before giving up on its failed entries. @default 3 */
  attempts?: number;
  /** First backoff between attempts, doubled each time, with jitter. @default 100 ms */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Publishes in batches of 10, in order. PutEvents can accept some entries of a batch and refuse
 * others (`FailedEntryCount`): only the refused entries are sent again. A batch that still has
 * refused entries after the last attempt stops the run with a PublishError naming how many
 * events before the first refused one were delivered.
 */
export function eventBridgeSink(
  client: EventBridgeClient,
  busName: string,
  options: EventBridgeSinkOptions = {},
): EventSink {
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 100;
  const sleep = options.sleep ?? pause;
  return {
    async publish(events) {
      // Stryker disable next-line EqualityOperator: one more pass over an empty batch sends nothing
      for (let start = 0; start < events.length; start += PUT_EVENTS_BATCH) {
        const batch = events.slice(start, start + PUT_EVENTS_BATCH);
        let pending = batch.map((_, i) => i);
        // Stryker disable next-line StringLiteral: every attempt sets it before it is read (attempts ≥ 1)
        let failure = '';
        let cause: unknown;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: pending empties only with the break below
        for (let attempt = 0; attempt < attempts && pending.length > 0; attempt++) {
          if (attempt > 0) await sleep(backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
          try {
            const out = await client.send(
              new PutEventsCommand({
                Entries: pending.map((i) => toEntry(batch[i] as PublishedEvent, busName)),
              }),
            );
            // Stryker disable next-line ConditionalExpression,BlockStatement: with no failure every entry has an EventId, so none is refused
            if (!out.FailedEntryCount) {
              pending = [];
              break;
            }
            // Result entries are in request order; a refused one carries an ErrorCode.
            // Stryker disable next-line OptionalChaining: PutEvents answers one result entry per request entry
            const refused = pending.filter((_, j) => out.Entries?.[j]?.EventId === undefined);
            // Stryker disable next-line OptionalChaining: PutEvents answers one result entry per request entry
            failure = [...new Set(out.Entries?.map((e) => e.ErrorCode).filter(Boolean))].join(', ');
            pending = refused;
          } catch (err) {
            cause = err;
            // Stryker disable next-line StringLiteral: the SDK client rejects with Errors only
            failure = err instanceof Error ? err.name : 'unknown error';
          }
        }
        const first = pending[0];
        if (first !== undefined) {
          throw new PublishError(
            start + first,
            `EventBridge refused ${pending.length} of ${batch.length} events after ${attempts} attempts (${failure})`,
            { cause },
          );
        }
      }
    },
  };
}
