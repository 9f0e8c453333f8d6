import type { Notice, NoticeSubject } from './expiry.ts';
import type { KeyEvent, WorkspaceEvent } from './model.ts';

/** What is published: the key events and the workspace events (contract §10, §12). */
export type PublishedEvent = KeyEvent | WorkspaceEvent;

/**
 * What the expiry sweep and the publisher need from the outside world, owned by the domain.
 * `lib/store/` implements the sweep's store for DynamoDB; the publisher's sink is EventBridge
 * in a deployment and a file in local mode.
 */

/** One page of keys read from the index of due notices, with what reading it cost. */
export interface DuePage {
  keys: NoticeSubject[];
  /** Items DynamoDB read to produce the page. */
  itemsRead: number;
  /** Read capacity units the page consumed. */
  readUnits: number;
}

export interface ExpiryStore {
  /** Keys whose next notice is due at `now`, page by page, read through the index only. */
  dueKeys(now: Date): AsyncIterable<DuePage>;
  /**
   * Writes `event` and marks `notice` written on the key, in one transaction, on condition that
   * the key is not revoked and neither this notice nor a later one was written. The key moves
   * in the index to `nextAt`, or leaves it when there is no next notice. Returns whether it wrote.
   */
  recordNotice(
    key: NoticeSubject,
    notice: Notice,
    event: KeyEvent,
    nextAt: string | undefined,
  ): Promise<boolean>;
}

/** Where published events go. Throws when some could not be delivered after its retries. */
export interface EventSink {
  /** Delivers `events` in order; on failure, `PublishError.delivered` says how many made it. */
  publish(events: readonly PublishedEvent[]): Promise<void>;
}

/** Some events were not delivered; the first `delivered` were, in order. */
export class PublishError extends Error {
  constructor(
    readonly delivered: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PublishError';
  }
}
