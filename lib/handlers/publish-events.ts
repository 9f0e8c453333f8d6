import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { EventSink } from '#lib/events/port';
import { publishInOrder } from '#lib/events/publisher';
import { countMetric, describeError, logger } from '#lib/observability';
import { streamItems } from '#lib/store/stream';
import { observed } from './observed.ts';

/**
 * The keys table's stream consumer (contract §10): publishes each new event to the sink, in
 * stream order. When some cannot be delivered after the sink's retries, it reports the first
 * undelivered record as the batch item failure, so Lambda checkpoints everything before it and
 * delivers it and the rest again (at least once; consumers dedupe by event id). After the event
 * source mapping's own retries the batch goes to the dead-letter queue.
 */
export function publishEventsHandler({ sink }: { sink: EventSink }) {
  return observed<DynamoDBStreamEvent, DynamoDBBatchResponse>().handler(async (event) => {
    const outcome = await publishInOrder(streamItems(event.Records), sink);
    countMetric('EventsPublished', {}, outcome.published);
    if (outcome.ok) return { batchItemFailures: [] };
    logger.error('events not published; the stream delivers them again', {
      published: outcome.published,
      retry_from: outcome.retryFrom,
      error: describeError(outcome.error),
    });
    countMetric('EventPublishFailures', {}, 1);
    return { batchItemFailures: [{ itemIdentifier: outcome.retryFrom }] };
  });
}
