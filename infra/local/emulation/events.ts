import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventSink, PublishedEvent } from '#lib/events/port';
import { runExpirySweep, type SweepSummary } from '#lib/events/sweep';
import type { Runtime } from '#lib/runtime';
import { applyWorkspacePolicy } from '#lib/workspaces/policy';
import { startStreamPoller } from './stream-poller.ts';
import { KEYS_TABLE_NAME } from './tables.ts';

const HOUR_MS = 3_600_000;

/** Local mode's EventBridge: each published event appended as one JSON line. */
export function ndjsonSink(file: string): EventSink {
  return {
    async publish(events) {
      if (events.length === 0) return;
      await appendFile(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
    },
  };
}

/**
 * Local mode's stream consumers: publishes like EventBridge, then applies each changed workspace
 * policy (the deployment's fan-out function). A failure of either is retried from that record.
 */
export function localStreamSink(file: string, runtime: Runtime): EventSink {
  const published = ndjsonSink(file);
  return {
    async publish(events) {
      await published.publish(events);
      for (const event of events)
        if (event.type === 'workspace.policy_changed')
          await applyWorkspacePolicy(runtime.governance, event.details.workspace_id);
    },
  };
}

/** The events appended so far, in the order they were published. */
export async function readPublished(file: string): Promise<PublishedEvent[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PublishedEvent);
}

export interface LocalEvents {
  /** What `GET /_dev/events` returns. */
  published(): Promise<PublishedEvent[]>;
  /** Runs the expiry sweep at `now` (default: the service's clock). */
  sweep(now?: Date): Promise<SweepSummary>;
  close(): Promise<void>;
}

/**
 * Events in local mode (contract §10): the stream poller publishes each new event to
 * `DATA_DIR/events.ndjson`, and the expiry sweep runs at start, every hour, and on demand.
 */
export function startLocalEvents(options: {
  endpoint: string;
  dataDir: string;
  runtime: Runtime;
  log: (line: string) => void;
}): LocalEvents {
  const file = join(options.dataDir, 'events.ndjson');
  const poller = startStreamPoller({
    endpoint: options.endpoint,
    tableName: KEYS_TABLE_NAME,
    sink: localStreamSink(file, options.runtime),
    checkpointFile: join(options.dataDir, 'events.checkpoint.json'),
    log: options.log,
  });
  const running = new Set<Promise<unknown>>();
  const sweep = (now: Date = options.runtime.service.now()) => {
    const run = runExpirySweep(options.runtime, now);
    running.add(run);
    void run.finally(() => running.delete(run)).catch(() => undefined);
    return run;
  };
  const scheduled = () =>
    sweep().catch((err: unknown) => options.log(`expiry sweep failed: ${(err as Error)?.name ?? err}`));
  void scheduled();
  const timer = setInterval(scheduled, HOUR_MS);
  timer.unref();
  return {
    published: () => readPublished(file),
    sweep,
    close: async () => {
      clearInterval(timer);
      await Promise.allSettled(running);
      await poller.stop();
    },
  };
}
