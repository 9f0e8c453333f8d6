import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventBridgeSink } from '#lib/events/eventbridge';
import { keyRevoked, userActor } from '#lib/events/model';
import { type EventSink, PublishError, type PublishedEvent } from '#lib/events/port';
import { publishInOrder } from '#lib/events/publisher';

/**
 * The EventBridge sink's retries and its report of what it could not deliver. EventBridge cannot
 * run here: it is stood in for at the SDK client, answering PutEvents as the service does (one
 * result entry per request entry, a refused one carrying an ErrorCode instead of an EventId).
 */
const eventBridge = mockClient(EventBridgeClient);
// The files of this tier share their workers' modules: the client's own `send` comes back after.
afterAll(() => eventBridge.restore());
const client = new EventBridgeClient({ region: 'us-east-1' });
const subject = { id: 'k', lineage_id: 'k', user_id: 'alice' };
const events = (n: number): PublishedEvent[] =>
  Array.from({ length: n }, (_, i) =>
    keyRevoked({ ...subject, id: `key-${i}` }, userActor('alice'), new Date()),
  );
const noSleep = async () => undefined;

beforeEach(() => eventBridge.reset());
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** EventBridge refusing, on every call, the entries whose key id `refuse` picks, with `code`. */
function refusing(refuse: (keyId: string) => boolean, code = 'InternalFailure') {
  eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
    const results: PutEventsResultEntry[] = (input.Entries ?? []).map((entry) =>
      refuse(JSON.parse(entry.Detail ?? '{}').key_id)
        ? { ErrorCode: code, ErrorMessage: 'injected' }
        : { EventId: `id-${entry.Detail?.length}` },
    );
    return { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results };
  });
}

async function publishError(sink: EventSink, toPublish: PublishedEvent[]): Promise<PublishError> {
  const error = await sink.publish(toPublish).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof PublishError)) throw new Error(`expected a PublishError, got ${String(error)}`);
  return error;
}

describe('when EventBridge keeps refusing entries', () => {
  it('gives up after the last attempt, naming how many were refused, why, and how many went before', async () => {
    refusing((id) => id === 'key-12' || id === 'key-14');
    const sink = eventBridgeSink(client, 'bus', { sleep: noSleep });
    const error = await publishError(sink, events(15));
    // The first batch of 10 went through; the second lost its 3rd event (index 12).
    expect(error.delivered).toBe(12);
    expect(error.name).toBe('PublishError');
    expect(error.message).toBe('EventBridge refused 2 of 5 events after 3 attempts (InternalFailure)');
    expect(eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries?.length)).toEqual([
      10, 5, 2, 2,
    ]);
  });

  it('names each distinct error code once', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 3,
      Entries: [
        { ErrorCode: 'ThrottlingException' },
        { EventId: 'ok' },
        { ErrorCode: 'InternalFailure' },
        { ErrorCode: 'ThrottlingException' },
      ],
    });
    const sink = eventBridgeSink(client, 'bus', { sleep: noSleep, attempts: 1 });
    const error = await publishError(sink, events(4));
    expect(error.message).toBe(
      'EventBridge refused 3 of 4 events after 1 attempts (ThrottlingException, InternalFailure)',
    );
  });

  it('when PutEvents itself fails, names the error and keeps it as the cause', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    eventBridge.on(PutEventsCommand).rejects(throttled);
    const error = await publishError(eventBridgeSink(client, 'bus', { sleep: noSleep }), events(2));
    expect(error.delivered).toBe(0);
    expect(error.message).toBe('EventBridge refused 2 of 2 events after 3 attempts (ThrottlingException)');
    expect(error.cause).toBe(throttled);
  });
});

describe('between attempts', () => {
  it('waits the backoff, doubled at each attempt, with a random part of at most half', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    refusing(() => true);
    const waits: number[] = [];
    const sink = eventBridgeSink(client, 'bus', {
      backoffMs: 40,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await publishError(sink, events(1));
    // 40 ms then 80 ms, each scaled by 0.5 + random / 2 = 0.75; none before the first attempt.
    expect(waits).toEqual([30, 60]);
  });

  it('waits 100 ms by default, on the clock, before sending refused entries again', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    refusing(() => true);
    const outcome = eventBridgeSink(client, 'bus')
      .publish(events(1))
      .catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(0);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(90);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(await outcome).toBeInstanceOf(PublishError);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(3);
  });
});

describe('publishing a stream batch', () => {
  it('does not call the sink when the batch holds no event', async () => {
    const published: (readonly PublishedEvent[])[] = [];
    const sink: EventSink = { publish: async (batch) => void published.push(batch) };
    const outcome = await publishInOrder(
      [
        { position: '1', event: undefined },
        { position: '2', event: undefined },
      ],
      sink,
    );
    expect(outcome).toEqual({ ok: true, published: 0 });
    expect(published).toEqual([]);
  });

  const item = (position: string, keyId?: string) => ({
    position,
    event:
      keyId === undefined ? undefined : keyRevoked({ ...subject, id: keyId }, userActor('alice'), new Date()),
  });

  it('publishes the events of a batch in order, skipping the other records', async () => {
    const published: (readonly PublishedEvent[])[] = [];
    const sink: EventSink = { publish: async (batch) => void published.push(batch) };
    const outcome = await publishInOrder([item('1', 'a'), item('2'), item('3', 'b')], sink);
    expect(outcome).toEqual({ ok: true, published: 2 });
    expect(published.map((batch) => batch.map((e) => e.key_id))).toEqual([['a', 'b']]);
  });

  it('resumes from the record of the first event not delivered', async () => {
    const failure = new PublishError(1, 'refused');
    const sink: EventSink = {
      publish: async () => {
        throw failure;
      },
    };
    const outcome = await publishInOrder([item('1', 'a'), item('2'), item('3', 'b'), item('4', 'c')], sink);
    expect(outcome).toEqual({ ok: false, published: 1, retryFrom: '3', error: failure });
  });

  it('resumes from the first event when the sink fails without saying what it delivered', async () => {
    const failure = new Error('socket hang up');
    const sink: EventSink = {
      publish: async () => {
        throw failure;
      },
    };
    const outcome = await publishInOrder([item('1'), item('2', 'a'), item('3', 'b')], sink);
    expect(outcome).toEqual({ ok: false, published: 0, retryFrom: '2', error: failure });
  });
});
