import type { LitElement, ReactiveController } from 'lit';
import type { CredentialUsage } from '../../client/usage.ts';

/** A row's usage: loading, its day buckets, or a failure (the row then says so). */
export type RowUsage =
  | { state: 'loading' }
  | { state: 'loaded'; usage: CredentialUsage }
  | { state: 'failed' };

/** Requests at a time: a long list loads a few rows at once, never 50. */
const AT_ONCE = 3;

/**
 * The day usage of each row an element shows, loaded once the row scrolls into view: every element
 * of the render root with `data-usage=<credential id>` is watched, and `of(id)` is its usage. A
 * row Lit reuses for another credential is watched again for it. Without IntersectionObserver,
 * every row loads at once.
 */
export class LazyUsage implements ReactiveController {
  readonly #host: LitElement;
  readonly #load: (id: string) => Promise<CredentialUsage>;
  readonly #rows = new Map<string, RowUsage>();
  readonly #waiting: string[] = [];
  #running = 0;
  #observer: IntersectionObserver | undefined;
  /** Bumped by `clear`: a load started before it is dropped. */
  #generation = 0;

  constructor(host: LitElement, load: (id: string) => Promise<CredentialUsage>) {
    this.#host = host;
    this.#load = load;
    host.addController(this);
  }

  /** The credential's usage, or undefined while its row has not been seen. */
  of(id: string): RowUsage | undefined {
    return this.#rows.get(id);
  }

  /** Forgets every row's usage (another user, or a reload): rows in view load again. */
  clear(): void {
    this.#generation++;
    this.#rows.clear();
    this.#waiting.length = 0;
    this.#host.requestUpdate();
  }

  hostConnected(): void {
    if (typeof IntersectionObserver === 'undefined') return;
    this.#observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        this.#observer?.unobserve(entry.target);
        const id = (entry.target as HTMLElement).dataset.usage;
        if (id) this.#want(id);
      }
    });
  }

  hostUpdated(): void {
    for (const row of this.#host.renderRoot.querySelectorAll<HTMLElement>('[data-usage]')) {
      const id = row.dataset.usage;
      if (!id || this.#rows.has(id)) continue;
      if (this.#observer) this.#observer.observe(row);
      else this.#want(id);
    }
  }

  hostDisconnected(): void {
    this.#observer?.disconnect();
    this.#observer = undefined;
  }

  #want(id: string): void {
    if (this.#rows.has(id)) return;
    this.#rows.set(id, { state: 'loading' });
    this.#waiting.push(id);
    this.#next();
  }

  #next(): void {
    while (this.#running < AT_ONCE && this.#waiting.length > 0) {
      const id = this.#waiting.shift() as string;
      const generation = this.#generation;
      this.#running++;
      this.#load(id)
        .then(
          (usage): RowUsage => ({ state: 'loaded', usage }),
          (): RowUsage => ({ state: 'failed' }),
        )
        .then((row) => {
          this.#running--;
          if (generation === this.#generation) {
            this.#rows.set(id, row);
            this.#host.requestUpdate();
          }
          this.#next();
        });
    }
  }
}
