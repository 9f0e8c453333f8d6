import { html, type LitElement, nothing, type ReactiveController, type TemplateResult } from 'lit';
import { ProblemError } from '../../client/index.ts';
import type { SvcMcpEventMap } from './events.ts';
import { describe } from './format.ts';

/** A workspace as the host dashboard knows it. */
export interface Workspace {
  /** The workspace's id, as the API names it in `workspace_ids`. */
  id: string;
  /** Its name, as the user knows it. */
  name: string;
  /** Shown next to the name; the API decides what the role allows. */
  role?: string;
  /** False for a workspace the user has left (listed only to name it). @default true */
  member?: boolean;
}

/** What went wrong in a dialog: the API's problem, or a sentence of the page's own. */
export type DialogError = ProblemError | string;

/** A failure as a dialog shows it: the API's problem as it is, anything else as a sentence. */
export const dialogError = (err: unknown, what: string): DialogError =>
  err instanceof ProblemError ? err : describe(err, what);

/**
 * The one modal an element has open at a time, rendered as `<dialog data-kind=…>` with
 * `@close=${dialogs.closed}`. Each `<dialog>` the element renders opens as a modal at once: focus
 * moves into it and the rest of the page is inert until it closes. Closing drops the dialog's
 * state (a shown key is gone from memory and from the DOM) and returns focus to the control that
 * opened it, or to `fallbackFocus` when that control is gone.
 */
export class DialogController<D extends { kind: string }> implements ReactiveController {
  readonly #host: LitElement;
  readonly #fallbackFocus: string;
  #current: D | undefined;
  #returnFocus: HTMLElement | undefined;

  constructor(host: LitElement, fallbackFocus: string) {
    this.#host = host;
    this.#fallbackFocus = fallbackFocus;
    host.addController(this);
  }

  get current(): D | undefined {
    return this.#current;
  }

  /** Replaces the open dialog's state (or clears it) without moving focus. */
  set current(dialog: D | undefined) {
    this.#current = dialog;
    this.#host.requestUpdate();
  }

  /** Opens a dialog from a control; focus returns there when it closes. */
  open(dialog: D, event: Event): void {
    this.#returnFocus = event.currentTarget instanceof HTMLElement ? event.currentTarget : undefined;
    this.current = dialog;
  }

  /** Closes the open dialog as Escape would. */
  readonly close = (): void => {
    this.#host.renderRoot.querySelector<HTMLDialogElement>('dialog[data-kind]')?.close();
  };

  /** Closes it with focus on the fallback: the control that opened it is about to go. */
  closeForgettingOpener(): void {
    this.#returnFocus = undefined;
    this.close();
  }

  /** The `close` listener of every `<dialog data-kind>`. */
  readonly closed = (event: Event): void => {
    // A dialog replaced by the next one (create, then its secret) is not the one to close.
    if ((event.target as HTMLElement).dataset.kind !== this.#current?.kind) return;
    this.current = undefined;
    const target = this.#returnFocus;
    this.#returnFocus = undefined;
    void this.#host.updateComplete.then(() => {
      const fallback = this.#host.renderRoot.querySelector<HTMLElement>(this.#fallbackFocus);
      (target?.isConnected ? target : fallback)?.focus();
    });
  };

  hostUpdated(): void {
    for (const dialog of this.#host.renderRoot.querySelectorAll('dialog')) {
      if (!dialog.open) dialog.showModal();
    }
  }
}

export interface ConfirmView {
  /** The dialog's `data-kind`. */
  kind: string;
  title: string;
  text: string;
  /** The red button's label. */
  action: string;
  busy: boolean;
  error: TemplateResult | typeof nothing;
  confirm: () => void;
  cancel: () => void;
  closed: (event: Event) => void;
}

/** A question before an action that can't be undone: Cancel has the focus, the action is red. */
export function confirmDialog(view: ConfirmView): TemplateResult {
  return html`
    <dialog data-kind=${view.kind} role="alertdialog" aria-labelledby="confirm-title"
      aria-describedby="confirm-text" @close=${view.closed}>
      <h2 id="confirm-title">${view.title}</h2>
      <p id="confirm-text">${view.text}</p>
      ${view.error}
      <div class="buttons">
        <button autofocus @click=${view.cancel}>Cancel</button>
        <button class="danger" ?disabled=${view.busy} @click=${view.confirm}>${view.action}</button>
      </div>
    </dialog>
  `;
}

/** A dialog's error as an alert, with workspace ids in the API's sentences named. */
export function errorAlert(
  error: DialogError | undefined,
  workspaces: readonly Workspace[] | undefined,
): TemplateResult | typeof nothing {
  if (!error) return nothing;
  if (typeof error === 'string') return html`<div class="error" role="alert">${error}</div>`;
  const names = new Map((workspaces ?? []).map((w) => [w.id, w.name]));
  const named = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, (id) => names.get(id) ?? id);
  return html`
    <div class="error" role="alert">
      <p>${named(error.detail || error.title)}</p>
      ${error.errors.length ? html`<ul>${error.errors.map((e) => html`<li>${named(e.message)}</li>`)}</ul>` : nothing}
    </div>
  `;
}

/**
 * Tells the host page what happened: an event that crosses the shadow root, with the detail its
 * element's event map declares. False if cancelled.
 */
export function emit<K extends keyof SvcMcpEventMap>(
  host: HTMLElement,
  type: K,
  detail: SvcMcpEventMap[K]['detail'],
  cancelable = false,
): boolean {
  return host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable }));
}
