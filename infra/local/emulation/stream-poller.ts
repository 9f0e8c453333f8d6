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
  const reader = new StreamReader(options, log);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();

  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      polling = reader
        .poll(() => stopped)
        .then(
          (found) => schedule(found ? 0 : interval),
          (err: unknown) => {
            // An expired iterator or a restart of DynamoDB Local: read each shard again from its position.
            reader.forgetIterators();
            if (!stopped)
              log(`stream poll failed: ${(err as Error)?.name ?? err} ${(err as Error)?.message}`);
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
      reader.destroy();
    },
  };
}

/** The stream of one table, read shard by shard from each shard's position, with the checkpoint kept. */
class StreamReader {
  private readonly client: DynamoDBStreamsClient;
  private readonly shards = new Map<string, ShardState>();
  private streamArn: string | undefined;
  private checkpoint: Checkpoint | undefined;

  constructor(
    private readonly options: StreamPollerOptions,
    private readonly log: (line: string) => void,
  ) {
    // The service's database opens only to its own access key id, carried in the endpoint.
    this.client = new DynamoDBStreamsClient({
      region: 'us-east-1',
      ...localEndpoint(options.endpoint),
      maxAttempts: 1,
    });
  }

  /** Polls every open shard once (finding the stream's shards when all are closed); whether any had records. */
  async poll(stopped: () => boolean): Promise<boolean> {
    if ([...this.shards.values()].every((s) => s.closed)) await this.discover();
    let found = false;
    for (const [id, state] of this.shards) {
      if (stopped()) break;
      if (!state.closed && (await this.pollShard(id, state))) found = true;
    }
    return found;
  }

  /** Each shard is read again from its position with a new iterator. */
  forgetIterators(): void {
    for (const state of this.shards.values()) state.iterator = undefined;
  }

  destroy(): void {
    this.client.destroy();
  }

  /** The stream (and the checkpoint, if it is this stream's), and any shard not known yet. */
  private async discover(): Promise<void> {
    if (!this.streamArn) {
      this.checkpoint ??= await loadCheckpoint(this.options.checkpointFile);
      const streams = await this.client.send(new ListStreamsCommand({ TableName: this.options.tableName }));
      this.streamArn = streams.Streams?.[0]?.StreamArn;
      if (!this.streamArn) return;
      if (this.checkpoint?.streamArn !== this.streamArn)
        this.checkpoint = { streamArn: this.streamArn, shards: {} };
    }
    const described = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    for (const shard of described.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id || this.shards.has(id)) continue;
      const last = this.checkpoint?.shards[id];
      this.shards.set(id, {
        iterator: undefined,
        resume: last ? { type: 'AFTER_SEQUENCE_NUMBER', sequence: last } : undefined,
        trimmed: false,
        closed: false,
      });
    }
  }

  private async save(shardId: string, sequence: string): Promise<void> {
    if (!this.checkpoint) return;
    this.checkpoint.shards[shardId] = sequence;
    if (this.options.checkpointFile)
      await writeFile(this.options.checkpointFile, JSON.stringify(this.checkpoint));
  }

  /** Reads one batch of a shard and publishes it; returns whether it found records. */
  private async pollShard(shardId: string, state: ShardState): Promise<boolean> {
    const out = await this.readBatch(shardId, state);
    if (out === 'trimmed') return true;
    if (!out) return false;
    state.trimmed = false;
    const records = (out.Records ?? []) as StreamRecord[];
    if (records.length === 0) {
      state.iterator = out.NextShardIterator;
      state.closed = !out.NextShardIterator;
      return false;
    }
    return this.deliver(shardId, state, records, out.NextShardIterator);
  }

  /** One batch of a shard from its iterator (taken at its position first if it has none). */
  private async readBatch(
    shardId: string,
    state: ShardState,
  ): Promise<GetRecordsCommandOutput | 'trimmed' | undefined> {
    try {
      if (!state.iterator) {
        const input: GetShardIteratorCommandInput = state.resume
          ? {
              StreamArn: this.streamArn,
              ShardId: shardId,
              ShardIteratorType: state.resume.type,
              SequenceNumber: state.resume.sequence,
            }
          : { StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' };
        state.iterator = (await this.client.send(new GetShardIteratorCommand(input))).ShardIterator;
        if (!state.iterator) return undefined;
      }
      return await this.client.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 100 }));
    } catch (err) {
      // The position is older than the shard's oldest record (DynamoDB Local also says so for an
      // iterator taken on an empty shard): take a new iterator at the last position delivered, and
      // if that is gone too, read from the oldest record there is.
      if (!(err instanceof TrimmedDataAccessException)) throw err;
      state.iterator = undefined;
      if (state.trimmed || !state.resume) state.resume = undefined;
      state.trimmed = !state.trimmed;
      return 'trimmed';
    }
  }

  /** Publishes a batch: past it when it is delivered, else back to the first record not delivered. */
  private async deliver(
    shardId: string,
    state: ShardState,
    records: StreamRecord[],
    next: string | undefined,
  ): Promise<boolean> {
    const outcome = await publishInOrder(streamItems(records), this.options.sink);
    if (outcome.ok) {
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      if (last) {
        state.resume = { type: 'AFTER_SEQUENCE_NUMBER', sequence: last };
        await this.save(shardId, last);
      }
      state.iterator = next;
      state.closed = !next;
      return true;
    }
    this.log(
      `events not published, retrying from ${outcome.retryFrom}: ${(outcome.error as Error)?.message}`,
    );
    state.iterator = undefined;
    state.resume = { type: 'AT_SEQUENCE_NUMBER', sequence: outcome.retryFrom };
    return false;
  }
}
