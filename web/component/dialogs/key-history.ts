import { html, nothing, type TemplateResult } from 'lit';
import type { KeyEvent, KeyMetadata, KeysClient } from '../../client/index.ts';
import { type DialogError, dialogError } from '../shared/dialogs.ts';
import { describeActor, describeEvent, plural, timeFormat } from '../shared/format.ts';

/** Events per page of a key's history. */
export const EVENTS_PAGE = 20;

/** A key's history: the events of its whole lineage, newest first, a page at a time. */
export interface KeyHistory {
  kind: 'events';
  key: KeyMetadata;
  events: KeyEvent[];
  nextCursor: string | null;
  loading: boolean;
  error?: DialogError;
}

/**
 * Loads a page of a key's history into its dialog: the first page for `cursor` null, else the page
 * after it. `dialog.get()` is the dialog while it is still open on this key; one closed meanwhile
 * is left alone. True when the last page was added to the earlier ones.
 */
export async function loadHistoryPage(
  client: KeysClient,
  key: KeyMetadata,
  cursor: string | null,
  dialog: { get: () => KeyHistory | undefined; set: (next: KeyHistory) => void },
): Promise<boolean> {
  const before = dialog.get();
  if (!before) return false;
  dialog.set({ ...before, loading: true, error: undefined });
  try {
    const page = await client.events(key.id, { limit: EVENTS_PAGE, ...(cursor ? { cursor } : {}) });
    const open = dialog.get();
    if (!open) return false;
    const events = cursor ? [...open.events, ...page.data] : page.data;
    dialog.set({ ...open, events, nextCursor: page.next_cursor, loading: false });
    return Boolean(cursor && !page.next_cursor);
  } catch (err) {
    const open = dialog.get();
    if (open) dialog.set({ ...open, loading: false, error: dialogError(err, 'Couldn’t load the history') });
    return false;
  }
}

export interface KeyHistoryView {
  dialog: KeyHistory;
  /** The hint of a key the page lists, to name the keys of the lineage. */
  hintOf: (keyId: string) => string | undefined;
  /** The name of a workspace the page knows. */
  nameOf?: (workspaceId: string) => string | undefined;
  error: TemplateResult | typeof nothing;
  /** Loads the page after `cursor`, or the first page again for `null`. */
  load: (cursor: string | null) => void;
  close: () => void;
  closed: (event: Event) => void;
}

export function keyHistoryDialog(view: KeyHistoryView): TemplateResult {
  const { dialog } = view;
  const { events, loading, nextCursor } = dialog;
  const status = loading
    ? 'Loading the history…'
    : dialog.error
      ? ''
      : `${plural(events.length, 'event')}${nextCursor ? ', more to load' : ''}.`;
  return html`
    <dialog data-kind="events" aria-labelledby="events-title" aria-describedby="events-intro" @close=${view.closed}>
      <h2 id="events-title">History of “${dialog.key.name}”</h2>
      <p id="events-intro" class="hint">Newest first, including the keys it was rotated from or into. Times are local, each with its exact UTC time.</p>
      ${
        events.length
          ? html`<div class="scroll"><table aria-busy=${loading}>
            <caption class="visually-hidden">Events of “${dialog.key.name}”</caption>
            <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th></tr></thead>
            <tbody>${events.map((event) => eventRow(event, view))}</tbody>
          </table></div>`
          : loading || dialog.error
            ? nothing
            : html`<p>No events yet.</p>`
      }
      <p role="status" class="hint">${status}</p>
      ${view.error}
      <div class="buttons">
        ${nextCursor ? html`<button ?disabled=${loading} @click=${() => view.load(nextCursor)}>Load more</button>` : nothing}
        ${dialog.error && !events.length ? html`<button @click=${() => view.load(null)}>Try again</button>` : nothing}
        <button class="primary" autofocus @click=${view.close}>Close</button>
      </div>
    </dialog>
  `;
}

function eventRow(event: KeyEvent, view: Pick<KeyHistoryView, 'hintOf' | 'nameOf'>): TemplateResult {
  return html`
    <tr tabindex="-1">
      <td><time datetime=${event.occurred_at}>${timeFormat.format(new Date(event.occurred_at))}</time>
        <div class="note"><code>${event.occurred_at}</code></div></td>
      <td>${describeEvent(event, view.hintOf, view.nameOf)}</td>
      <td>${describeActor(event)}</td>
    </tr>
  `;
}
