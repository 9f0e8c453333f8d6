import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsCommandOutput,
} from '@aws-sdk/client-eventbridge';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { EVENT_SOURCE, eventBridgeSink } from '#lib/events/eventbridge';
import type { KeyEvent } from '#lib/events/model';
import { publishEventsHandler } from '#lib/handlers/publish-events';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { fromEventItem } from '#lib/store/items';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { captureOutput } from '#test/support/logs';
import { streamReader } from '#test/support/stream';

/**
 * The stream consumer against the real stream of a DynamoDB Local table, with EventBridge mocked
 * at the SDK client (it cannot run here): each event published once, in order; refused entries
 * sent again; what cannot be delivered reported so the stream delivers it again.
 */
const BUS = 'svc-mcp-api-keys-test';
const eventBridge = mockClient(EventBridgeClient);
let tables: TestTables;
let rt: Runtime;
let stream: ReturnType<typeof streamReader>;
const output = captureOutput();
const handler = publishEventsHandler({
  sink: eventBridgeSink(new EventBridgeClient({ region: 'us-east-1' }), BUS, {
    sleep: async () => undefined,
  }),
});

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  stream = streamReader(tables.endpoint, tables.keysTable);
});
afterEach(() => eventBridge.reset());
afterAll(async () => {
  eventBridge.restore();
  output.restore();
  stream.close();
  await tables.drop();
});

/** EventBridge accepting everything except the entries `refuse` picks; accepted events in order. */
function eventBridgeAccepting(refuse: (event: KeyEvent, call: number) => boolean = () => false) {
  const acceptedEvents: KeyEvent[] = [];
  let call = 0;
  eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput): PutEventsCommandOutput => {
    call++;
    const entries = (input.Entries ?? []).map((entry) => {
      const event = JSON.parse(entry.Detail ?? '{}') as KeyEvent;
      if (refuse(event, call)) return { ErrorCode: 'InternalFailure', ErrorMessage: 'injected' };
      acceptedEvents.push(event);
      return { EventId: randomUUID() };
    });
    return { $metadata: {}, FailedEntryCount: entries.filter((e) => e.ErrorCode).length, Entries: entries };
  });
  return acceptedEvents;
}

/** The entries of every PutEvents call, per call. */
const calls = () => eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries ?? []);

const deliver = (records: _Record[]) =>
  handler({ Records: records } as unknown as DynamoDBStreamEvent, lambdaContext('publish-events'));

/** The event a stream record inserted, if any (read independently of the code under test). */
function eventIn(record: _Record): KeyEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image?.pk?.S?.startsWith('LINEAGE#')) return undefined;
  // The Streams SDK client reads an empty map as `{}` (Lambda's JSON keeps `{"M":{}}`).
  const fixed = JSON.parse(JSON.stringify(image).replaceAll('"details":{}', '"details":{"M":{}}'));
  return fromEventItem(unmarshall(fixed as Record<string, AttributeValue>));
}

/** `users` lifecycles (create, rotate, revoke: four events each) and the new stream records. */
async function lifecycles(users = 1) {
  for (let i = 0; i < users; i++) {
    const userId = `user-${randomUUID()}`;
    const workspaceId = randomUUID();
    await tables.setRole(userId, workspaceId, 'editor');
    const input = { userId, name: 'k', workspaceIds: [workspaceId], scopes: ['svc.forms.read' as const] };
    const a = await createKey(rt.service, input);
    const b = await rotateKey(rt.service, userId, a.metadata.id);
    await revokeKey(rt.service, userId, b.metadata.id);
  }
  const records = await stream.next();
  const withEvents = records.flatMap((record) => {
    const event = eventIn(record);
    return event ? [{ record, event }] : [];
  });
  return { records, events: withEvents.map((w) => w.event), withEvents };
}

const sortById = (events: KeyEvent[]) => [...events].sort((a, b) => a.id.localeCompare(b.id));

describe('publishing from the stream', () => {
  it('publishes each event once, in stream order, with source, detail-type and detail', async () => {
    const acceptedEvents = eventBridgeAccepting();
    const { records, events } = await lifecycles();
    expect(records.length).toBeGreaterThan(events.length); // key and slot changes are in the stream too
    expect(events.map((e) => e.type).sort()).toEqual([
      'key.created',
      'key.created',
      'key.revoked',
      'key.rotated',
    ]);
    expect(await deliver(records)).toEqual({ batchItemFailures: [] });
    expect(acceptedEvents).toEqual(events);
    const entries = calls().flat();
    expect(entries).toHaveLength(4);
    for (const [i, entry] of entries.entries()) {
      expect(entry).toMatchObject({ Source: EVENT_SOURCE, EventBusName: BUS, DetailType: events[i]?.type });
      expect(entry.Time?.toISOString()).toBe(events[i]?.occurred_at);
    }
    // The published detail is the event exactly as stored and as GET …/events shows it.
    const stored = (await tables.scanKeys()).map((i) => fromEventItem(i)).filter((e) => e !== undefined);
    expect(sortById(acceptedEvents)).toEqual(
      sortById(stored.filter((e) => events.some((x) => x.id === e.id))),
    );
    expect(JSON.stringify(entries)).not.toMatch(/digest|svc_mcp_v1_[0-9A-Za-z]{20}/);
  });

  it('sends at most 10 entries per PutEvents call', async () => {
    const acceptedEvents = eventBridgeAccepting();
    const { records, events } = await lifecycles(3);
    expect(events).toHaveLength(12);
    expect(await deliver(records)).toEqual({ batchItemFailures: [] });
    expect(calls().map((c) => c.length)).toEqual([10, 2]);
    expect(acceptedEvents).toEqual(events);
  });

  it('sends a refused entry again, alone, and publishes every event once', async () => {
    let refusedId: string | undefined;
    const acceptedEvents = eventBridgeAccepting((event, call) => {
      if (call !== 1 || event.type !== 'key.rotated') return false;
      refusedId = event.id;
      return true;
    });
    const { records, events } = await lifecycles();
    expect(await deliver(records)).toEqual({ batchItemFailures: [] });
    expect(calls().map((c) => c.length)).toEqual([4, 1]);
    expect(JSON.parse(calls()[1]?.[0]?.Detail ?? '{}').id).toBe(refusedId);
    expect(sortById(acceptedEvents)).toEqual(sortById(events));
  });
});

describe('when EventBridge keeps failing', () => {
  it('reports the first undelivered record, and a redelivery from it publishes the rest', async () => {
    const { records, withEvents } = await lifecycles();
    const stuck = withEvents[1];
    if (!stuck) throw new Error('expected four events');
    const acceptedEvents = eventBridgeAccepting((event) => event.id === stuck.event.id);
    const result = await deliver(records);
    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: stuck.record.dynamodb?.SequenceNumber }],
    });
    // One call, then the refused entry twice more: three attempts in all.
    expect(calls().map((c) => c.length)).toEqual([4, 1, 1]);
    expect(acceptedEvents.map((e) => e.id)).not.toContain(stuck.event.id);
    expect(output.text()).toContain('events not published');

    // Lambda checkpoints the records before the reported one and delivers it and the rest again.
    eventBridge.reset();
    const again = eventBridgeAccepting();
    const from = records.indexOf(stuck.record);
    expect(await deliver(records.slice(from))).toEqual({ batchItemFailures: [] });
    const delivered = [...acceptedEvents, ...again];
    for (const { event } of withEvents) expect(delivered.map((e) => e.id)).toContain(event.id);
    expect(delivered.filter((e) => e.id === withEvents[0]?.event.id)).toHaveLength(1);
  });

  it('reports the first event’s record when PutEvents itself fails', async () => {
    const { records, withEvents } = await lifecycles();
    eventBridge
      .on(PutEventsCommand)
      .rejects(Object.assign(new Error('Rate exceeded (injected)'), { name: 'ThrottlingException' }));
    const result = await deliver(records);
    expect(result).toEqual({
      batchItemFailures: [{ itemIdentifier: withEvents[0]?.record.dynamodb?.SequenceNumber }],
    });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(3);
  });

  it('a batch without event records publishes nothing', async () => {
    eventBridgeAccepting();
    const { records, withEvents } = await lifecycles();
    const others = records.filter((r) => !withEvents.some((w) => w.record === r));
    expect(others.length).toBeGreaterThan(0);
    expect(await deliver(others)).toEqual({ batchItemFailures: [] });
    expect(calls()).toEqual([]);
  });
});
