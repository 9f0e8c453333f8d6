import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { StreamItem } from '#lib/events/publisher';
import { fromEventItem, LINEAGE_PREFIX } from './items.ts';
import { fromWorkspaceEventItem, isWorkspaceEvent } from './workspace-items.ts';

/**
 * A record of the keys table's stream, as Lambda delivers it and as DynamoDB Streams'
 * GetRecords returns it (both carry the same fields).
 */
export interface StreamRecord {
  eventName?: string | undefined;
  dynamodb?:
    | { SequenceNumber?: string | undefined; NewImage?: Record<string, unknown> | undefined }
    | undefined;
}

/**
 * DynamoDB Streams' SDK client reads an empty map attribute (`{"M":{}}`, e.g. the `details` of
 * `key.revoked`) as `{}`, which unmarshall refuses; Lambda's JSON keeps it. Restores it.
 */
function restoreEmptyMaps(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const attribute = value as { M?: Record<string, unknown>; L?: unknown[] };
  if (Object.keys(attribute).length === 0) return { M: {} };
  if (attribute.M) return { M: mapValues(attribute.M) };
  if (attribute.L) return { L: attribute.L.map(restoreEmptyMaps) };
  return value;
}

const mapValues = (image: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(image).map(([k, v]) => [k, restoreEmptyMaps(v)]));

/**
 * The stream's records as the publisher sees them: each with its position, and the event it
 * inserted when it inserted an event item. Event items are only ever inserted; key changes and
 * TTL deletions carry no event.
 */
export function streamItems(records: readonly StreamRecord[]): StreamItem[] {
  return records.map((record) => {
    const image = record.eventName === 'INSERT' ? record.dynamodb?.NewImage : undefined;
    // Only event items are unmarshalled: the rest is none of the publisher's business.
    const pk = (image?.pk as { S?: unknown } | undefined)?.S;
    const isEvent = typeof pk === 'string' && pk.startsWith(LINEAGE_PREFIX);
    const item =
      (isEvent || isWorkspaceEvent(image)) && image
        ? unmarshall(mapValues(image) as Record<string, AttributeValue>)
        : undefined;
    return {
      position: record.dynamodb?.SequenceNumber ?? '',
      event: isEvent ? fromEventItem(item) : fromWorkspaceEventItem(item),
    };
  });
}
