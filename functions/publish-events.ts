import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { parsePublisherConfig } from '#lib/config';
import { eventBridgeSink } from '#lib/events/eventbridge';
import { publishEventsHandler } from '#lib/handlers/publish-events';
import { serviceClient } from '#lib/store/client';

const config = parsePublisherConfig();
const client = serviceClient(EventBridgeClient, { region: config.region, maxAttempts: 3 });

/** Lambda entry point; see lib/handlers/publish-events.ts. */
export const handler = publishEventsHandler({ sink: eventBridgeSink(client, config.eventBusName) });
