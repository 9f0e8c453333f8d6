import { type EventSink, PublishError, type PublishedEvent } from './port.ts';

/**
 * Publishing from the table's stream (contract §10): the records of a batch, in stream order,
 * each an event item or something else. Events go to the sink in order; the outcome names the
 * first record that was not delivered so the stream is read again from there (at least once:
 * consumers dedupe by event id). The Lambda consumer and the local poller share this.
 */
export interface StreamItem {
  /** The record's sequence number: where a retry resumes. */
  position: string;
  /** The event the record inserted; undefined for any other change to the table. */
  event: PublishedEvent | undefined;
}

export type PublishOutcome =
  | { ok: true; published: number }
  /** Records from `retryFrom` on must be read again; `published` events before it were delivered. */
  | { ok: false; published: number; retryFrom: string; error: unknown };

export async function publishInOrder(items: readonly StreamItem[], sink: EventSink): Promise<PublishOutcome> {
  const withEvents = items.filter((i): i is StreamItem & { event: PublishedEvent } => i.event !== undefined);
  if (withEvents.length === 0) return { ok: true, published: 0 };
  try {
    await sink.publish(withEvents.map((i) => i.event));
    return { ok: true, published: withEvents.length };
  } catch (error) {
    const delivered = error instanceof PublishError ? error.delivered : 0;
    const first = withEvents[delivered] ?? withEvents[0];
    return { ok: false, published: delivered, retryFrom: (first as StreamItem).position, error };
  }
}
