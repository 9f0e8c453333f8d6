import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { parsePublisherConfig } from '#lib/config';
import { eventBridgeSink } from '#lib/events/eventbridge';
import { publishEventsHandler } from '#lib/handlers/publish-events';
import { Sha256 } from '#lib/store/sha256';

const config = parsePublisherConfig();
const client = new EventBridgeClient({ region: config.region, maxAttempts: 3, sha256: Sha256 });

/** Lambda entry point; see lib/handlers/publish-events.ts. */
export const handler = publishEventsHandler({ sink: eventBridgeSink(client, config.eventBusName) });
