import { readFile, writeFile } from 'node:fs/promises';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
  ListStreamsCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { EventSink } from '#lib/events/port';
import { publishInOrder } from '#lib/events/publisher';
import { localEndpoint } from '#lib/store/client';
import { type StreamRecord, streamItems } from '#lib/store/stream';

export interface StreamPollerOptions {
  /** DynamoDB Local's address. */
  endpoint: string;
  tableName: string;
  sink: EventSink;
  /** Keeps each shard's last published position across restarts. @default none (start from the oldest record) */
  checkpointFile?: string;
  /** Pause between polls when a poll found nothing. @default 200 ms */
  intervalMs?: number;
  log?: (line: string) => void;
}

export interface StreamPoller {
  /** Stops polling after the poll in progress, if any. */
  stop(): Promise<void>;
}

/** Where each shard is read from next. */
interface ShardState {
  iterator: string | undefined;
  /** The last record delivered (resume after it), or the first one to deliver again (at it). */
  resume: { type: 'AFTER_SEQUENCE_NUMBER' | 'AT_SEQUENCE_NUMBER'; sequence: string } | undefined;
  /** The position was found trimmed once already: the next time, read from the oldest record. */
  trimmed: boolean;
  closed: boolean;
}

interface Checkpoint {
  streamArn: string;
  /** Shard id -> sequence number of its last delivered record. */
  shards: Record<string, string>;
}

async function loadCheckpoint(file: string | undefined): Promise<Checkpoint | undefined> {
  if (!file) return undefined;
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Checkpoint;
  } catch {
    return undefined;
  }
}

/**
 * Local mode's stream consumer: reads the keys table's stream from DynamoDB Local as Lambda's
 * event source mapping reads it in a deployment, and publishes through the same code
 * (`streamItems` + `publishInOrder`). A record that could not be delivered is read again from
 * its position on the next poll.
 */
export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const log = options.log ?? (() => undefined);
  const interval = options.intervalMs ?? 200;
  // The service's database opens only to its own access key id, carried in the endpoint.
  const client = new DynamoDBStreamsClient({
    region: 'us-east-1',
    ...localEndpoint(options.endpoint),
    maxAttempts: 1,
  });
  const shards = new Map<string, ShardState>();
  let streamArn: string | undefined;
  let checkpoint: Checkpoint | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();

  async function discover(): Promise<void> {
    if (!streamArn) {
      checkpoint ??= await loadCheckpoint(options.checkpointFile);
      const streams = await client.send(new ListStreamsCommand({ TableName: options.tableName }));
      streamArn = streams.Streams?.[0]?.StreamArn;
      if (!streamArn) return;
      if (checkpoint?.streamArn !== streamArn) checkpoint = { streamArn, shards: {} };
    }
    const described = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of described.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id || shards.has(id)) continue;
      const last = checkpoint?.shards[id];
      shards.set(id, {
        iterator: undefined,
        resume: last ? { type: 'AFTER_SEQUENCE_NUMBER', sequence: last } : undefined,
        trimmed: false,
        closed: false,
      });
    }
  }

  async function save(shardId: string, sequence: string): Promise<void> {
    if (!checkpoint) return;
    checkpoint.shards[shardId] = sequence;
    if (options.checkpointFile) await writeFile(options.checkpointFile, JSON.stringify(checkpoint));
  }

  /** Reads one batch of a shard and publishes it; returns whether it found records. */
  async function pollShard(shardId: string, state: ShardState): Promise<boolean> {
    let out: GetRecordsCommandOutput;
    try {
      if (!state.iterator) {
        const input: GetShardIteratorCommandInput = state.resume
          ? {
              StreamArn: streamArn,
              ShardId: shardId,
              ShardIteratorType: state.resume.type,
              SequenceNumber: state.resume.sequence,
            }
          : { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' };
        state.iterator = (await client.send(new GetShardIteratorCommand(input))).ShardIterator;
        if (!state.iterator) return false;
      }
      out = await client.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 100 }));
    } catch (err) {
      // The position is older than the shard's oldest record (DynamoDB Local also says so for an
      // iterator taken on an empty shard): take a new iterator at the last position delivered, and
      // if that is gone too, read from the oldest record there is.
      if (!(err instanceof TrimmedDataAccessException)) throw err;
      state.iterator = undefined;
      if (state.trimmed || !state.resume) state.resume = undefined;
      state.trimmed = !state.trimmed;
      return true;
    }
    state.trimmed = false;
    const records = (out.Records ?? []) as StreamRecord[];
    if (records.length === 0) {
      state.iterator = out.NextShardIterator;
      state.closed = !out.NextShardIterator;
      return false;
    }
    const outcome = await publishInOrder(streamItems(records), options.sink);
    if (outcome.ok) {
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      if (last) {
        state.resume = { type: 'AFTER_SEQUENCE_NUMBER', sequence: last };
        await save(shardId, last);
      }
      state.iterator = out.NextShardIterator;
      state.closed = !out.NextShardIterator;
      return true;
    }
    log(`events not published, retrying from ${outcome.retryFrom}: ${(outcome.error as Error)?.message}`);
    state.iterator = undefined;
    state.resume = { type: 'AT_SEQUENCE_NUMBER', sequence: outcome.retryFrom };
    return false;
  }

  async function poll(): Promise<boolean> {
    if ([...shards.values()].every((s) => s.closed)) await discover();
    let found = false;
    for (const [id, state] of shards) {
      if (stopped) break;
      if (!state.closed && (await pollShard(id, state))) found = true;
    }
    return found;
  }

  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      polling = poll().then(
        (found) => schedule(found ? 0 : interval),
        (err: unknown) => {
          // An expired iterator or a restart of DynamoDB Local: read each shard again from its position.
          for (const state of shards.values()) state.iterator = undefined;
          if (!stopped) log(`stream poll failed: ${(err as Error)?.name ?? err} ${(err as Error)?.message}`);
          schedule(interval * 5);
        },
      );
    }, delay);
    timer.unref();
  };
  schedule(0);

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await polling;
      client.destroy();
    },
  };
}
