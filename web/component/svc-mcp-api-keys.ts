import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import {
  type CreateKeyRequest,
  createKeysClient,
  type KeyEvent,
  type KeyMetadata,
  type KeysClient,
  ProblemError,
  type Scope,
} from '../client/index.ts';

/** A workspace as the host dashboard knows it. */
export interface Workspace {
  id: string;
  name: string;
  /** Shown next to the name; the API decides what the role allows. */
  role?: string;
  /** False for a workspace the user has left (listed only to name it). @default true */
  member?: boolean;
}

/** Detail of `svc-mcp-reauthenticate`: call `resume()` once the user has signed in again. */
export interface ReauthenticateDetail {
  reason: 'reauthentication_required' | 'unauthorized';
  /** Seconds: how recent the login must be (RFC 9470 `max_age`), when the API said. */
  maxAge: number | undefined;
  resume: () => void;
  cancel: () => void;
}

const SCOPES = [
  { scope: 'svc.forms.read', label: 'Read', hint: 'List workspaces and forms, read drafts.' },
  { scope: 'svc.forms.write', label: 'Write', hint: 'Create forms and replace drafts (needs editor).' },
  { scope: 'svc.forms.generate', label: 'Generate', hint: 'AI-generated form previews (needs editor).' },
] as const satisfies readonly { scope: Scope; label: string; hint: string }[];
// Every scope of the API has a row above: a new scope in docs/openapi.json fails the typecheck here.
const _everyScope: Exclude<Scope, (typeof SCOPES)[number]['scope']> extends never ? true : never = true;

/** The environment variable the ready-made client configuration reads the key from. */
const ENV_VAR = 'SVC_MCP_API_KEY';

/**
 * The one modal open at a time. A new panel (e.g. a key's event history) is one more member
 * here, one `case` in `renderDialog`, and one button in `renderActions`.
 */
type Dialog =
  | { kind: 'create'; error?: ProblemError | string }
  | { kind: 'rotate' | 'revoke'; key: KeyMetadata; error?: ProblemError | string }
  // The key's history: the events of its whole lineage, newest first, a page at a time.
  | {
      kind: 'events';
      key: KeyMetadata;
      events: KeyEvent[];
      nextCursor: string | null;
      loading: boolean;
      error?: ProblemError | string;
    }
  // The secret lives only here, for as long as this dialog is open.
  | { kind: 'secret'; apiKey: string; key: KeyMetadata; rotated: boolean; copied?: string };

interface Reauth {
  error: ProblemError;
  waiting: boolean;
  unhandled: boolean;
  settle: (signedIn: boolean) => void;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const DAY_MS = 86_400_000;
/** Events per page of a key's history. */
const EVENTS_PAGE = 20;

/**
 * `<svc-mcp-api-keys>`: list, create, rotate and revoke the signed-in user's MCP API keys.
 * Set `getToken` (the user's login token) and `workspaces`; listen for `svc-mcp-reauthenticate`.
 */
export class SvcMcpApiKeys extends LitElement {
  static override properties = {
    baseUrl: { attribute: 'base-url' },
    mcpUrl: { attribute: 'mcp-url' },
    maxExpiryDays: { attribute: 'max-expiry-days', type: Number },
    defaultExpiryDays: { attribute: 'default-expiry-days', type: Number },
    getToken: { attribute: false },
    workspaces: { attribute: false },
    keys: { state: true },
    nextCursor: { state: true },
    showAll: { state: true },
    loading: { state: true },
    loadError: { state: true },
    busy: { state: true },
    dialog: { state: true },
    reauth: { state: true },
    announcement: { state: true },
  };

  /** The API's origin; '' (default) is the page's own. */
  declare baseUrl: string;
  /** The MCP endpoint shown in the client configuration. @default `${baseUrl or page origin}/mcp` */
  declare mcpUrl: string | undefined;
  /** The deployment's maximum key lifetime. @default 90 */
  declare maxExpiryDays: number;
  /** @default 30 */
  declare defaultExpiryDays: number;
  /** Returns the user's current login token; nothing loads until it is set. */
  declare getToken: (() => string | Promise<string>) | undefined;
  /** The user's workspaces: offered on create; a key's workspaces the user is not in are flagged. */
  declare workspaces: Workspace[] | undefined;

  declare private keys: KeyMetadata[];
  declare private nextCursor: string | null;
  declare private showAll: boolean;
  declare private loading: boolean;
  declare private loadError: string | undefined;
  declare private busy: boolean;
  declare private dialog: Dialog | undefined;
  declare private reauth: Reauth | undefined;
  declare private announcement: string;
  private returnFocus: HTMLElement | undefined;
  private client: { baseUrl: string; client: KeysClient } | undefined;

  constructor() {
    super();
    this.baseUrl = '';
    this.mcpUrl = undefined;
    this.maxExpiryDays = 90;
    this.defaultExpiryDays = 30;
    this.getToken = undefined;
    this.workspaces = undefined;
    this.keys = [];
    this.nextCursor = null;
    this.showAll = false;
    this.loading = false;
    this.loadError = undefined;
    this.busy = false;
    this.dialog = undefined;
    this.reauth = undefined;
    this.announcement = '';
  }

  /** Reloads the list from the first page. */
  async refresh(): Promise<void> {
    await this.load(false);
  }

  private api(): KeysClient {
    if (this.client?.baseUrl !== this.baseUrl) {
      const client = createKeysClient({
        baseUrl: this.baseUrl,
        token: async () => {
          if (!this.getToken) throw new Error('not signed in');
          return this.getToken();
        },
        onReauthenticationRequired: (error) => this.askToSignIn(error),
      });
      this.client = { baseUrl: this.baseUrl, client };
    }
    return this.client.client;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if ((changed.has('getToken') || changed.has('baseUrl')) && this.getToken) void this.load(false);
    if (!this.getToken && changed.has('getToken')) {
      this.keys = [];
      this.dialog = undefined;
    }
    // Each <dialog> opens as a modal as soon as it is rendered: focus moves into it and the
    // rest of the page is inert until it closes.
    for (const dialog of this.renderRoot.querySelectorAll('dialog')) {
      if (!dialog.open) dialog.showModal();
    }
  }

  private async load(more: boolean): Promise<void> {
    this.loading = true;
    this.loadError = undefined;
    try {
      const page = await this.api().list({
        limit: 50,
        ...(this.showAll ? {} : { status: 'active' as const }),
        ...(more && this.nextCursor ? { cursor: this.nextCursor } : {}),
      });
      this.keys = more ? [...this.keys, ...page.data] : page.data;
      this.nextCursor = page.next_cursor;
    } catch (err) {
      this.loadError = describe(err, 'Couldn’t load your keys');
    } finally {
      this.loading = false;
    }
  }

  // --- dialogs ---------------------------------------------------------------------------

  private open(dialog: Dialog, event: Event): void {
    this.returnFocus = event.currentTarget instanceof HTMLElement ? event.currentTarget : undefined;
    this.dialog = dialog;
  }

  /** Closing drops the dialog's state: a shown key is gone from memory and from the DOM. */
  private onDialogClosed(event: Event): void {
    // A dialog replaced by the next one (create, then its secret) is not the one to close.
    if ((event.target as HTMLElement).dataset.kind !== this.dialog?.kind) return;
    this.dialog = undefined;
    const target = this.returnFocus;
    this.returnFocus = undefined;
    void this.updateComplete.then(() => {
      const fallback = this.renderRoot.querySelector<HTMLElement>('#create');
      (target?.isConnected ? target : fallback)?.focus();
    });
  }

  private closeDialog(): void {
    this.renderRoot.querySelector<HTMLDialogElement>('dialog[data-kind]')?.close();
  }

  private openHistory(key: KeyMetadata, event: Event): void {
    this.open({ kind: 'events', key, events: [], nextCursor: null, loading: true }, event);
    void this.loadEvents(key, null);
  }

  /** Loads a page of the open history dialog's events; a dialog closed meanwhile is left alone. */
  private async loadEvents(key: KeyMetadata, cursor: string | null): Promise<void> {
    const current = () =>
      this.dialog?.kind === 'events' && this.dialog.key.id === key.id ? this.dialog : undefined;
    const before = current();
    if (!before) return;
    this.dialog = { ...before, loading: true, error: undefined };
    try {
      const page = await this.api().events(key.id, { limit: EVENTS_PAGE, ...(cursor ? { cursor } : {}) });
      const dialog = current();
      if (!dialog) return;
      this.dialog = {
        ...dialog,
        events: cursor ? [...dialog.events, ...page.data] : page.data,
        nextCursor: page.next_cursor,
        loading: false,
      };
      if (cursor && !page.next_cursor) {
        // The "Load more" button is gone: keep focus in the dialog, on its last row.
        await this.updateComplete;
        this.renderRoot.querySelector<HTMLElement>('dialog[data-kind="events"] tbody tr:last-child')?.focus();
      }
    } catch (err) {
      const dialog = current();
      if (dialog) {
        this.dialog = {
          ...dialog,
          loading: false,
          error: err instanceof ProblemError ? err : describe(err, 'Couldn’t load the history'),
        };
      }
    }
  }

  private async onCreate(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const workspaceIds = this.workspaces
      ? data.getAll('workspace').map(String)
      : String(data.get('workspace_ids') ?? '')
          .split(/[\s,]+/)
          .filter(Boolean);
    const scopes = data.getAll('scope').map(String) as Scope[];
    const days = Number(data.get('expires_in_days'));
    const problems = [
      ...(String(data.get('name') ?? '').trim() ? [] : ['Name: enter a name.']),
      ...(workspaceIds.length ? [] : ['Workspaces: choose at least one.']),
      ...(scopes.length ? [] : ['Scopes: choose at least one.']),
      ...(Number.isInteger(days) && days >= 1 && days <= this.maxExpiryDays
        ? []
        : [`Expires after: enter a whole number of days from 1 to ${this.maxExpiryDays}.`]),
    ];
    if (problems.length) {
      this.dialog = { kind: 'create', error: problems.join(' ') };
      return;
    }
    const body: CreateKeyRequest = {
      name: String(data.get('name')).trim(),
      workspace_ids: workspaceIds,
      scopes,
      expires_in_days: days,
    };
    await this.run(async () => {
      const created = await this.api().create(body);
      this.dialog = { kind: 'secret', apiKey: created.api_key, key: created.metadata, rotated: false };
      this.emit('svc-mcp-key-created', { metadata: created.metadata });
      this.announcement = `Key “${created.metadata.name}” created.`;
    });
  }

  private async onRotate(key: KeyMetadata): Promise<void> {
    await this.run(async () => {
      const rotated = await this.api().rotate(key.id);
      this.dialog = { kind: 'secret', apiKey: rotated.api_key, key: rotated.metadata, rotated: true };
      this.emit('svc-mcp-key-rotated', { metadata: rotated.metadata, revoked: rotated.revoked_key });
      this.announcement = `Key “${key.name}” rotated; the old value no longer works.`;
    });
  }

  private async onRevoke(key: KeyMetadata): Promise<void> {
    await this.run(async () => {
      const revoked = await this.api().revoke(key.id);
      this.returnFocus = undefined; // its row is about to go
      this.closeDialog();
      this.emit('svc-mcp-key-revoked', { metadata: revoked.metadata });
      this.announcement = `Key “${key.name}” revoked.`;
    });
  }

  /** Runs a dialog's action: busy while it runs, the list reloaded after, the error kept in the dialog. */
  private async run(action: () => Promise<void>): Promise<void> {
    const dialog = this.dialog;
    this.busy = true;
    try {
      await action();
      void this.load(false);
    } catch (err) {
      if (dialog && this.dialog === dialog && dialog.kind !== 'secret') {
        this.dialog = { ...dialog, error: err instanceof ProblemError ? err : describe(err, 'That failed') };
      }
    } finally {
      this.busy = false;
    }
  }

  /** The client's hook: ask the person to sign in again; the request is retried when they have. */
  private askToSignIn(error: ProblemError): Promise<boolean> {
    this.reauth?.settle(false);
    return new Promise<boolean>((resolve) => {
      const settle = (signedIn: boolean) => {
        if (this.reauth?.settle !== settle) return;
        this.reauth = undefined;
        resolve(signedIn);
      };
      this.reauth = { error, waiting: false, unhandled: false, settle };
    });
  }

  private signInAgain(): void {
    const reauth = this.reauth;
    if (!reauth) return;
    const detail: ReauthenticateDetail = {
      reason:
        reauth.error.code === 'reauthentication_required' ? 'reauthentication_required' : 'unauthorized',
      maxAge: reauth.error.challenge?.maxAge,
      resume: () => reauth.settle(true),
      cancel: () => reauth.settle(false),
    };
    const handled = !this.emit('svc-mcp-reauthenticate', detail, true);
    if (this.reauth === reauth) this.reauth = { ...reauth, waiting: handled, unhandled: !handled };
  }

  private emit(type: string, detail: unknown, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable }));
  }

  // --- rendering --------------------------------------------------------------------------

  protected override render(): TemplateResult {
    return html`
      <section aria-labelledby="title">
        <div class="bar">
          <h2 id="title">MCP API keys</h2>
          <button id="create" class="primary" ?disabled=${!this.getToken}
            @click=${(e: Event) => this.open({ kind: 'create' }, e)}>Create key</button>
        </div>
        <p class="intro">
          A key lets an AI client that speaks MCP reach the workspaces you choose, with the scopes you
          choose. Treat it like a password: one key per device, kept in an environment variable.
        </p>
        <label class="filter">
          <input type="checkbox" .checked=${this.showAll}
            @change=${(e: Event) => {
              this.showAll = (e.target as HTMLInputElement).checked;
              void this.load(false);
            }} />
          Show revoked and expired keys
        </label>
        <p class="visually-hidden" role="status">${this.announcement}</p>
        ${
          this.loadError
            ? html`<div class="error" role="alert">${this.loadError}
            <button @click=${() => this.load(false)}>Try again</button></div>`
            : nothing
        }
        ${this.renderTable()}
      </section>
      ${this.dialog ? this.renderDialog(this.dialog) : nothing}
      ${this.reauth ? this.renderReauth(this.reauth) : nothing}
    `;
  }

  private renderTable(): TemplateResult {
    if (!this.getToken) return html`<p>Sign in to manage your keys.</p>`;
    if (!this.keys.length) {
      return html`<p aria-busy=${this.loading}>${this.loading ? 'Loading your keys…' : 'No keys yet. Create one to connect an MCP client.'}</p>`;
    }
    return html`
      <div class="scroll">
        <table aria-busy=${this.loading}>
          <caption class="visually-hidden">Your MCP API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th>
              <th scope="col">Workspaces</th><th scope="col">Status</th><th scope="col">Expires</th>
              <th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>${this.keys.map((key) => this.renderRow(key))}</tbody>
        </table>
      </div>
      ${this.nextCursor ? html`<button ?disabled=${this.loading} @click=${() => this.load(true)}>Load more</button>` : nothing}
    `;
  }

  private renderRow(key: KeyMetadata): TemplateResult {
    const known = this.workspaces ? new Map(this.workspaces.map((w) => [w.id, w])) : undefined;
    const isMember = (id: string) => !known || (known.get(id)?.member !== false && known.has(id));
    const reachable = key.workspace_ids.filter(isMember);
    const noAccess = key.status === 'active' && reachable.length === 0;
    const daysLeft = Math.ceil((Date.parse(key.expires_at) - Date.now()) / DAY_MS);
    return html`
      <tr>
        <th scope="row">${key.name}</th>
        <td><code>${key.key_hint}</code></td>
        <td><ul class="plain">${key.scopes.map((s) => html`<li>${s}</li>`)}</ul></td>
        <td>
          <ul class="plain">
            ${key.workspace_ids.map((id) => {
              const name = known?.get(id)?.name ?? shortId(id);
              return isMember(id)
                ? html`<li>${name}</li>`
                : html`<li class="warn">${name} (you left this workspace)</li>`;
            })}
            ${(key.removed_workspace_ids ?? []).map(
              (id) =>
                html`<li class="warn">Removed from ${known?.get(id)?.name ?? shortId(id)} by an administrator</li>`,
            )}
          </ul>
        </td>
        <td>
          <span class="status ${noAccess ? 'no-access' : key.status}">${noAccess ? 'No access' : capitalize(key.status)}</span>
          ${noAccess ? html`<div class="note">You are no longer in any of its workspaces, so it grants nothing.</div>` : nothing}
        </td>
        <td><time datetime=${key.expires_at}>${dateFormat.format(new Date(key.expires_at))}</time>
          ${key.status === 'active' && daysLeft <= 7 ? html`<div class="note">in ${daysLeft} day${daysLeft === 1 ? '' : 's'}</div>` : nothing}</td>
        <td>${key.last_used_at ? html`<time datetime=${key.last_used_at}>${dateTimeFormat.format(new Date(key.last_used_at))}</time>` : 'Never'}</td>
        <td class="actions">${this.renderActions(key)}</td>
      </tr>
    `;
  }

  private renderActions(key: KeyMetadata): TemplateResult {
    const history = html`<button @click=${(e: Event) => this.openHistory(key, e)}>History<span class="visually-hidden"> of ${key.name}</span></button>`;
    if (key.status !== 'active') return history;
    return html`
      ${history}
      <button @click=${(e: Event) => this.open({ kind: 'rotate', key }, e)}>Rotate<span class="visually-hidden"> ${key.name}</span></button>
      <button class="danger" @click=${(e: Event) => this.open({ kind: 'revoke', key }, e)}>Revoke<span class="visually-hidden"> ${key.name}</span></button>
    `;
  }

  private renderDialog(dialog: Dialog): TemplateResult {
    switch (dialog.kind) {
      case 'create':
        return this.renderCreate(dialog.error);
      case 'rotate':
        return this.renderConfirm(
          dialog,
          `Rotate “${dialog.key.name}”?`,
          'The current key stops working at once. You get a replacement to paste into your MCP client.',
          'Rotate key',
          () => this.onRotate(dialog.key),
        );
      case 'revoke':
        return this.renderConfirm(
          dialog,
          `Revoke “${dialog.key.name}”?`,
          'Any MCP client using this key stops working at once. This can’t be undone.',
          'Revoke key',
          () => this.onRevoke(dialog.key),
        );
      case 'secret':
        return this.renderSecret(dialog);
      case 'events':
        return this.renderEvents(dialog);
    }
  }

  private renderEvents(dialog: Extract<Dialog, { kind: 'events' }>): TemplateResult {
    const { events, loading, nextCursor } = dialog;
    const status = loading
      ? 'Loading the history…'
      : dialog.error
        ? ''
        : `${events.length} event${events.length === 1 ? '' : 's'}${nextCursor ? ', more to load' : ''}.`;
    return html`
      <dialog data-kind="events" aria-labelledby="events-title" aria-describedby="events-intro" @close=${this.onDialogClosed}>
        <h2 id="events-title">History of “${dialog.key.name}”</h2>
        <p id="events-intro" class="hint">Newest first, including the keys it was rotated from or into. Times are local, each with its exact UTC time.</p>
        ${
          events.length
            ? html`<div class="scroll"><table aria-busy=${loading}>
              <caption class="visually-hidden">Events of “${dialog.key.name}”</caption>
              <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th></tr></thead>
              <tbody>${events.map((event) => this.renderEvent(event))}</tbody>
            </table></div>`
            : loading || dialog.error
              ? nothing
              : html`<p>No events yet.</p>`
        }
        <p role="status" class="hint">${status}</p>
        ${this.renderError(dialog.error)}
        <div class="buttons">
          ${
            nextCursor
              ? html`<button ?disabled=${loading} @click=${() => this.loadEvents(dialog.key, nextCursor)}>Load more</button>`
              : nothing
          }
          ${
            dialog.error && !events.length
              ? html`<button @click=${() => this.loadEvents(dialog.key, null)}>Try again</button>`
              : nothing
          }
          <button class="primary" autofocus @click=${this.closeDialog}>Close</button>
        </div>
      </dialog>
    `;
  }

  private renderEvent(event: KeyEvent): TemplateResult {
    const when = new Date(event.occurred_at);
    return html`
      <tr tabindex="-1">
        <td><time datetime=${event.occurred_at}>${timeFormat.format(when)}</time>
          <div class="note"><code>${event.occurred_at}</code></div></td>
        <td>${this.describeEvent(event)}</td>
        <td>${describeActor(event)}</td>
      </tr>
    `;
  }

  /** A readable line per event type; every type of the API has a case (a new one fails the typecheck). */
  private describeEvent(event: KeyEvent): TemplateResult | string {
    const hint = (id: string | null) => {
      const known = id ? this.keys.find((k) => k.id === id) : undefined;
      return known ? html` (<code>${known.key_hint}</code>)` : nothing;
    };
    switch (event.type) {
      case 'key.created': {
        const d = event.details;
        const label = d.rotated_from ? html`Created by rotating the previous key` : html`Created “${d.name}”`;
        return html`${label}${hint(event.key_id)}
          <div class="note">${d.scopes.join(', ')}; expires ${dateFormat.format(new Date(d.expires_at))}</div>`;
      }
      case 'key.rotated':
        return html`Rotated into a new key${hint(event.details.replaced_by)}; this one stopped working`;
      case 'key.revoked':
        return html`Revoked${hint(event.key_id)}`;
      case 'key.leak_revoked': {
        const by =
          event.actor.type === 'github_secret_scanning'
            ? ' (GitHub secret scanning)'
            : event.actor.type === 'public_report'
              ? ' (reported publicly)'
              : '';
        return html`Revoked as leaked${by}${hint(event.key_id)}
          ${event.details.source ? html`<div class="note">Found at <code class="wrap">${event.details.source}</code></div>` : nothing}`;
      }
      case 'key.expiring': {
        const days = event.details.days_left;
        return html`Expires in ${days} day${days === 1 ? '' : 's'}
          <div class="note">on ${dateTimeFormat.format(new Date(event.details.expires_at))}</div>`;
      }
      case 'key.expired':
        return html`Expired${hint(event.key_id)}`;
      case 'key.workspace_removed': {
        const name = this.workspaces?.find((w) => w.id === event.details.workspace_id)?.name;
        const by = event.details.reason === 'admin' ? 'an administrator' : 'the workspace’s policy';
        return html`Removed from ${name ?? shortId(event.details.workspace_id)} by ${by}${hint(event.key_id)}`;
      }
    }
  }

  private renderCreate(error: ProblemError | string | undefined): TemplateResult {
    const memberOf = (this.workspaces ?? []).filter((w) => w.member !== false);
    const fieldError = (prefix: string) =>
      error instanceof ProblemError &&
      error.errors.some((e) => e.path === prefix || e.path.startsWith(`${prefix}.`));
    return html`
      <dialog data-kind="create" aria-labelledby="create-title" @close=${this.onDialogClosed}>
        <form @submit=${this.onCreate} novalidate>
          <h2 id="create-title">Create an MCP API key</h2>
          <label for="name">Name</label>
          <input id="name" name="name" maxlength="100" required autocomplete="off" autofocus
            aria-describedby="name-hint" aria-invalid=${fieldError('name')} />
          <p class="hint" id="name-hint">Where the key is used, e.g. “Claude Desktop (laptop)”.</p>
          ${
            this.workspaces
              ? html`<fieldset aria-invalid=${fieldError('workspace_ids')}>
                <legend>Workspaces</legend>
                ${memberOf.length ? nothing : html`<p class="hint">You are not a member of any workspace.</p>`}
                ${memberOf.map(
                  (w) => html`<label class="check"><input type="checkbox" name="workspace" value=${w.id} />
                  ${w.name}${w.role ? html` <span class="hint">(${w.role})</span>` : nothing}</label>`,
                )}
              </fieldset>`
              : html`<label for="workspace_ids">Workspace IDs</label>
              <textarea id="workspace_ids" name="workspace_ids" rows="2" aria-describedby="ws-hint"
                aria-invalid=${fieldError('workspace_ids')}></textarea>
              <p class="hint" id="ws-hint">One or more workspace IDs, separated by spaces or commas.</p>`
          }
          <fieldset aria-invalid=${fieldError('scopes')}>
            <legend>Scopes</legend>
            ${SCOPES.map(
              (
                s,
                i,
              ) => html`<label class="check"><input type="checkbox" name="scope" value=${s.scope} ?checked=${i === 0}
                aria-describedby=${`scope-${i}`} /> ${s.label} <code>${s.scope}</code></label>
                <p class="hint indent" id=${`scope-${i}`}>${s.hint}</p>`,
            )}
          </fieldset>
          <label for="expires">Expires after (days)</label>
          <input id="expires" name="expires_in_days" type="number" inputmode="numeric" min="1" max=${this.maxExpiryDays}
            .value=${String(Math.min(this.defaultExpiryDays, this.maxExpiryDays))} required aria-describedby="expires-hint"
            aria-invalid=${fieldError('expires_in_days')} />
          <p class="hint" id="expires-hint">From 1 to ${this.maxExpiryDays} days.</p>
          ${this.renderError(error)}
          <div class="buttons">
            <button type="button" @click=${this.closeDialog}>Cancel</button>
            <button type="submit" class="primary" ?disabled=${this.busy}>Create key</button>
          </div>
        </form>
      </dialog>
    `;
  }

  private renderConfirm(
    dialog: { kind: string; error?: ProblemError | string },
    title: string,
    text: string,
    action: string,
    confirm: () => void,
  ): TemplateResult {
    return html`
      <dialog data-kind=${dialog.kind} role="alertdialog" aria-labelledby="confirm-title"
        aria-describedby="confirm-text" @close=${this.onDialogClosed}>
        <h2 id="confirm-title">${title}</h2>
        <p id="confirm-text">${text}</p>
        ${this.renderError(dialog.error)}
        <div class="buttons">
          <button autofocus @click=${this.closeDialog}>Cancel</button>
          <button class="danger" ?disabled=${this.busy} @click=${confirm}>${action}</button>
        </div>
      </dialog>
    `;
  }

  private renderSecret(dialog: Extract<Dialog, { kind: 'secret' }>): TemplateResult {
    const mcpUrl = this.mcpUrl ?? `${this.baseUrl.replace(/\/+$/, '') || location.origin}/mcp`;
    const config = JSON.stringify(
      {
        mcpServers: {
          svc: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer \${${ENV_VAR}}` } },
        },
      },
      null,
      2,
    );
    const copy = async (what: string, text: string) => {
      const copied = await copyText(text, this.renderRoot.querySelector<HTMLInputElement>('#secret'));
      if (this.dialog?.kind === 'secret' && this.dialog.apiKey === dialog.apiKey) {
        this.dialog = {
          ...this.dialog,
          copied: copied ? `${what} copied.` : `Couldn’t copy; select the ${what.toLowerCase()} and copy it.`,
        };
      }
    };
    return html`
      <dialog data-kind="secret" aria-labelledby="secret-title" aria-describedby="secret-once" @close=${this.onDialogClosed}>
        <h2 id="secret-title">${dialog.rotated ? 'Copy your replacement key' : 'Copy your new key'}</h2>
        <p id="secret-once" class="once">This is the only time the key is shown. Copy it now into a password manager or an environment variable: it can’t be shown again.</p>
        ${dialog.rotated ? html`<p>The previous key no longer works. Update <code>${ENV_VAR}</code> wherever you used it and restart the client.</p>` : nothing}
        <label for="secret">MCP API key “${dialog.key.name}”</label>
        <div class="secret-row">
          <input id="secret" readonly .value=${dialog.apiKey} autocomplete="off" spellcheck="false" @focus=${(e: Event) => (e.target as HTMLInputElement).select()} />
          <button class="primary" autofocus @click=${() => copy('Key', dialog.apiKey)}>Copy key</button>
        </div>
        <p role="status" class="hint">${dialog.copied ?? ''}</p>
        <h3 id="config-title">Use it from an MCP client</h3>
        <p>Set the environment variable <code>${ENV_VAR}</code> to the key, then add this to your client’s MCP configuration (it reads the key from the variable):</p>
        <pre role="group" aria-labelledby="config-title" tabindex="0"><code>${config}</code></pre>
        <div class="buttons">
          <button @click=${() => copy('Configuration', config)}>Copy configuration</button>
          <button class="primary" @click=${this.closeDialog}>Done</button>
        </div>
      </dialog>
    `;
  }

  private renderReauth(reauth: Reauth): TemplateResult {
    const minutes = reauth.error.challenge?.maxAge
      ? Math.round(reauth.error.challenge.maxAge / 60)
      : undefined;
    const why =
      reauth.error.code === 'reauthentication_required'
        ? `For your security, creating or rotating a key needs a sign-in from the last ${minutes ?? 15} minutes.`
        : 'Your session has ended.';
    return html`
      <dialog data-reauth role="alertdialog" aria-labelledby="reauth-title" aria-describedby="reauth-text"
        @close=${() => reauth.settle(false)}>
        <h2 id="reauth-title">Sign in again to continue</h2>
        <p id="reauth-text">${why} Sign in again and the action continues where it left off.</p>
        ${reauth.unhandled ? html`<p class="error" role="alert">This page can’t sign you in here. Reload it and sign in, then try again.</p>` : nothing}
        <div class="buttons">
          <button @click=${() => reauth.settle(false)}>Cancel</button>
          <button class="primary" autofocus ?disabled=${reauth.waiting} @click=${this.signInAgain}>
            ${reauth.waiting ? 'Waiting for sign-in…' : 'Sign in again'}</button>
        </div>
      </dialog>
    `;
  }

  private renderError(error: ProblemError | string | undefined): TemplateResult | typeof nothing {
    if (!error) return nothing;
    if (typeof error === 'string') return html`<div class="error" role="alert">${error}</div>`;
    const names = new Map((this.workspaces ?? []).map((w) => [w.id, w.name]));
    const named = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, (id) => names.get(id) ?? id);
    return html`
      <div class="error" role="alert">
        <p>${named(error.detail || error.title)}</p>
        ${error.errors.length ? html`<ul>${error.errors.map((e) => html`<li>${named(e.message)}</li>`)}</ul>` : nothing}
      </div>
    `;
  }

  static override styles = css`
    :host { display: block; font: 15px/1.45 system-ui, sans-serif; color: #1b1b1f; }
    .bar { display: flex; align-items: center; justify-content: space-between; gap: 1rem; }
    h2 { font-size: 1.3rem; margin: 0.5rem 0; }
    h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }
    .intro, .hint, .note { color: #4a4a55; }
    .hint, .note { font-size: 0.85rem; margin: 0.15rem 0 0.6rem; }
    .indent { margin-left: 1.6rem; }
    .scroll { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; margin: 0.75rem 0; }
    th, td { text-align: left; vertical-align: top; padding: 0.5rem; border-bottom: 1px solid #d5d5dc; }
    thead th { font-size: 0.85rem; color: #4a4a55; }
    .plain { list-style: none; margin: 0; padding: 0; }
    .status { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; }
    .status.active { background: #e3f3e8; color: #0b5a26; }
    .status.revoked, .status.expired { background: #ececf0; color: #3c3c44; }
    .status.no-access, .warn { color: #8a2a00; }
    .status.no-access { background: #fdeee6; }
    .actions, td code { white-space: nowrap; }
    td code.wrap { white-space: normal; overflow-wrap: anywhere; }
    tr[tabindex]:focus-visible { outline-offset: -3px; }
    button { font: inherit; padding: 0.35rem 0.8rem; border-radius: 6px; border: 1px solid #8c8c99;
      background: #fff; color: #1b1b1f; cursor: pointer; }
    button.primary { background: #1f4fd1; border-color: #1f4fd1; color: #fff; }
    button.danger { color: #a3140b; border-color: #a3140b; }
    button:disabled { opacity: 0.6; cursor: default; }
    :focus-visible { outline: 3px solid #1f4fd1; outline-offset: 2px; }
    dialog { max-width: min(40rem, calc(100vw - 2rem)); border: 1px solid #8c8c99; border-radius: 10px; padding: 1.25rem; color: #1b1b1f; }
    dialog::backdrop { background: rgb(0 0 0 / 0.45); }
    label { display: block; font-weight: 600; margin-top: 0.75rem; }
    label.check, label.filter { font-weight: normal; margin-top: 0.35rem; }
    fieldset { margin: 0.75rem 0 0; border: 1px solid #d5d5dc; border-radius: 6px; }
    legend { font-weight: 600; }
    input:not([type="checkbox"]), textarea { font: inherit; padding: 0.35rem; width: 100%; box-sizing: border-box;
      border: 1px solid #8c8c99; border-radius: 6px; }
    [aria-invalid="true"] { border-color: #a3140b; }
    .secret-row { display: flex; gap: 0.5rem; }
    .secret-row button { flex: none; white-space: nowrap; }
    #secret { font-family: ui-monospace, monospace; font-size: 0.85rem; }
    .once { font-weight: 600; }
    pre { background: #f4f4f7; padding: 0.75rem; border-radius: 6px; overflow-x: auto; font-size: 0.85rem; }
    .buttons { display: flex; justify-content: flex-end; gap: 0.5rem; margin-top: 1rem; }
    .error { background: #fdecea; color: #7a1008; border-radius: 6px; padding: 0.5rem 0.75rem; margin-top: 0.75rem; }
    .error p, .error ul { margin: 0.2rem 0; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  `;
}

/** A message for a failure that is not the API's own answer (network, CORS, not signed in). */
function describe(err: unknown, what: string): string {
  if (err instanceof ProblemError) return `${what}: ${err.detail || err.title}`;
  return `${what}: the service could not be reached. Check your connection and try again.`;
}

async function copyText(text: string, fallbackField: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!fallbackField || fallbackField.value !== text) return false;
    fallbackField.select();
    return document.execCommand('copy');
  }
}

/** Who did it: the person, a leak report, GitHub, or the service itself (expiry). */
function describeActor(event: KeyEvent): string {
  switch (event.actor.type) {
    case 'user':
      return !event.actor.id || event.actor.id === event.user_id ? 'You' : `User ${event.actor.id}`;
    case 'public_report':
      return 'A public leak report';
    case 'github_secret_scanning':
      return 'GitHub secret scanning';
    case 'workspace_admin':
      return 'A workspace administrator';
    case 'system':
      return 'The service (automatic)';
  }
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const shortId = (id: string) => `Workspace ${id.slice(0, 8)}`;

if (!customElements.get('svc-mcp-api-keys')) customElements.define('svc-mcp-api-keys', SvcMcpApiKeys);

declare global {
  interface HTMLElementTagNameMap {
    'svc-mcp-api-keys': SvcMcpApiKeys;
  }
}
