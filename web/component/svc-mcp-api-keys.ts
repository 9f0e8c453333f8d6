import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { createKeysClient, type KeyListItem, type KeyMetadata } from '../client/index.ts';
import { createUsageClient } from '../client/usage.ts';
import { newCreateKey, readCreateForm } from './dialogs/create-key.ts';
import { loadHistoryPage } from './dialogs/key-history.ts';
import { type KeyUsage, loadKeyUsage } from './dialogs/key-usage.ts';
import { type LowerLimits, loweredText, readLowerLimits } from './dialogs/lower-limits.ts';
import { copyWithNote, type ShownOnce, shownOnce } from './dialogs/shown-once.ts';
import { type KeyDialog, keyDialog } from './key-dialogs.ts';
import { keyList } from './key-list.ts';
import { chartStyles, daysFrom } from './shared/charts.ts';
import { ElementClient } from './shared/client.ts';
import { DialogController, dialogError, emit, type Workspace } from './shared/dialogs.ts';
import { describe, isApp } from './shared/format.ts';
import { LazyUsage } from './shared/lazy-usage.ts';
import { ReauthController } from './shared/reauth.ts';
import { keyPageStyles } from './shared/styles.ts';
import { listed, ToolCatalogue } from './shared/tools.ts';

export type { Workspace } from './shared/dialogs.ts';
export type {
  KeyCreatedDetail,
  KeyRevokedDetail,
  KeyRotatedDetail,
  SvcMcpApiKeysEventMap,
  SvcMcpWorkspaceKeysEventMap,
} from './shared/events.ts';
export type { ReauthenticateDetail } from './shared/reauth.ts';

/**
 * `<svc-mcp-api-keys>`: list, create, rotate and revoke the signed-in user's MCP API keys, and
 * list and revoke the apps they connected through OAuth (grants: never rotated), each with its
 * tools, its limits (lowered in a dialog), its 30-day sparkline and a Usage panel (calls per
 * day, refusals by reason, top tools, and restricting it to the tools it used).
 * Set `getToken` (the user's login token) and `workspaces`; listen for `svc-mcp-reauthenticate`.
 * Its events are typed in `SvcMcpApiKeysEventMap`.
 */
export class SvcMcpApiKeys extends LitElement {
  /** The element's shadow-root styles (Lit). */
  static override styles = css`${keyPageStyles}${chartStyles}`;

  /** The API's origin; '' (default) is the page's own. */
  @property({ attribute: 'base-url' }) accessor baseUrl = '';
  /** The MCP endpoint shown in the client configuration. @default `${baseUrl or page origin}/mcp` */
  @property({ attribute: 'mcp-url' }) accessor mcpUrl: string | undefined = undefined;
  /** The deployment's maximum key lifetime. @default 90 */
  @property({ attribute: 'max-expiry-days', type: Number }) accessor maxExpiryDays = 90;
  /** @default 30 */
  @property({ attribute: 'default-expiry-days', type: Number }) accessor defaultExpiryDays = 30;
  /** Returns the user's current login token; nothing loads until it is set. */
  @property({ attribute: false }) accessor getToken: (() => string | Promise<string>) | undefined = undefined;
  /** The user's workspaces: offered on create; a key's workspaces the user is not in are flagged. */
  @property({ attribute: false }) accessor workspaces: Workspace[] | undefined = undefined;

  @state() private accessor keys: KeyListItem[] = [];
  @state() private accessor nextCursor: string | null = null;
  @state() private accessor showAll = false;
  @state() private accessor loading = false;
  @state() private accessor loadError: string | undefined = undefined;
  @state() private accessor busy = false;
  @state() private accessor announcement = '';
  private readonly dialogs = new DialogController<KeyDialog>(this, '#create');
  private readonly reauth = new ReauthController(this);
  private readonly client = new ElementClient(this, this.reauth.ask, createKeysClient);
  /** Usage is read without a sign-in prompt (one per row would cancel each other): a failure shows. */
  private readonly usage = new ElementClient(this, undefined, createUsageClient);
  /** Each row's 30 days, loaded as the row comes into view. */
  private readonly rowUsage = new LazyUsage(this, (id) => this.usage.api.keyUsage(id, { from: daysFrom() }));
  /** The MCP server's tools, offered on create. */
  private readonly catalogue = new ToolCatalogue(this);

  /** Reloads the list from the first page. */
  async refresh(): Promise<void> {
    await this.load(false);
  }

  /** Lit's hook after a render: reloads when the token or what the element shows has changed. */
  protected override updated(changed: PropertyValues<this>): void {
    if ((changed.has('getToken') || changed.has('baseUrl')) && this.getToken) void this.load(false);
    if (!this.getToken && changed.has('getToken')) {
      this.keys = [];
      this.rowUsage.clear();
      this.dialogs.current = undefined;
    }
  }

  private async load(more: boolean): Promise<void> {
    this.loading = true;
    this.loadError = undefined;
    try {
      const page = await this.client.api.list({
        limit: 50,
        ...(this.showAll ? {} : { status: 'active' as const }),
        ...(more && this.nextCursor ? { cursor: this.nextCursor } : {}),
      });
      if (!more) this.rowUsage.clear();
      this.keys = more ? [...this.keys, ...page.data] : page.data;
      this.nextCursor = page.next_cursor;
    } catch (err) {
      this.loadError = describe(err, 'Couldn’t load your keys');
    } finally {
      this.loading = false;
    }
  }

  // --- actions ---------------------------------------------------------------------------

  private openHistory(key: KeyMetadata, event: Event): void {
    this.dialogs.open({ kind: 'events', key, events: [], nextCursor: null, loading: true }, event);
    void this.loadEvents(key, null);
  }

  /** Loads a page of the open history dialog's events; a dialog closed meanwhile is left alone. */
  private async loadEvents(key: KeyMetadata, cursor: string | null): Promise<void> {
    const lastPageAdded = await loadHistoryPage(this.client.api, key, cursor, {
      get: () => {
        const dialog = this.dialogs.current;
        return dialog?.kind === 'events' && dialog.key.id === key.id ? dialog : undefined;
      },
      set: (dialog) => {
        this.dialogs.current = dialog;
      },
    });
    if (lastPageAdded) {
      // The "Load more" button is gone: keep focus in the dialog, on its last row.
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('dialog[data-kind="events"] tbody tr:last-child')?.focus();
    }
  }

  /** Opens a key's usage panel and loads its 30 days; a panel closed meanwhile is left alone. */
  private openUsage(key: KeyMetadata, event?: Event): void {
    if (event) this.dialogs.open({ kind: 'usage', key, loading: true }, event);
    void loadKeyUsage(this.usage.api, key, {
      get: () => {
        const dialog = this.dialogs.current;
        return dialog?.kind === 'usage' && dialog.key.id === key.id ? dialog : undefined;
      },
      set: (dialog) => {
        this.dialogs.current = dialog;
      },
    });
  }

  private async onCreate(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const read = readCreateForm(event.currentTarget as HTMLFormElement, this);
    const dialog = this.dialogs.current;
    if ('problems' in read) {
      if (dialog?.kind === 'create') this.dialogs.current = { ...dialog, error: read.problems };
      return;
    }
    await this.run(async () => {
      const created = await this.client.api.create(read.request);
      this.dialogs.current = shownOnce(created, false);
      emit(this, 'svc-mcp-key-created', { metadata: created.metadata });
      this.announcement = `Key “${created.metadata.name}” created.`;
    });
  }

  private async onRotate(key: KeyMetadata): Promise<void> {
    await this.run(async () => {
      const rotated = await this.client.api.rotate(key.id);
      this.dialogs.current = shownOnce(rotated, true);
      emit(this, 'svc-mcp-key-rotated', { metadata: rotated.metadata, revoked: rotated.revoked_key });
      this.announcement = `Key “${key.name}” rotated; the old value no longer works.`;
    });
  }

  private async onRevoke(key: KeyMetadata): Promise<void> {
    await this.run(async () => {
      const revoked = await this.client.api.revoke(key.id);
      this.dialogs.closeForgettingOpener(); // its row is about to go
      emit(this, 'svc-mcp-key-revoked', { metadata: revoked.metadata });
      this.announcement = isApp(key) ? `Access of “${key.name}” revoked.` : `Key “${key.name}” revoked.`;
    });
  }

  /** Narrows the credential to the tools it used; its panel then reads its usage (and tools) again. */
  private async onRestrict(dialog: KeyUsage, tools: string[]): Promise<void> {
    await this.run(async () => {
      const { metadata } = await this.client.api.update(dialog.key.id, { tools });
      if (this.dialogs.current === dialog)
        this.dialogs.current = { ...dialog, key: metadata, restricted: tools };
      this.openUsage(metadata);
      this.announcement = `“${metadata.name}” may now call only ${listed(tools)}.`;
      // The button is gone: focus stays in the panel, on what happened.
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('#restricted')?.focus();
    });
  }

  /** Adds or lowers the credential's own limits; the list, reloaded, shows them. */
  private async onLowerLimits(event: SubmitEvent, dialog: LowerLimits): Promise<void> {
    event.preventDefault();
    const read = readLowerLimits(event.currentTarget as HTMLFormElement, dialog.key);
    if ('problems' in read) {
      this.dialogs.current = { ...dialog, error: read.problems };
      return;
    }
    await this.run(async () => {
      const { metadata } = await this.client.api.update(dialog.key.id, { limits: read.limits });
      this.dialogs.close();
      this.announcement = loweredText(metadata);
    });
  }

  /** Runs a dialog's action: busy while it runs, the list reloaded after, the error kept in the dialog. */
  private async run(action: () => Promise<void>): Promise<void> {
    const dialog = this.dialogs.current;
    this.busy = true;
    try {
      await action();
      void this.load(false);
    } catch (err) {
      if (dialog && this.dialogs.current === dialog && dialog.kind !== 'secret') {
        this.dialogs.current = { ...dialog, error: dialogError(err, 'That failed') };
      }
    } finally {
      this.busy = false;
    }
  }

  /** Copies from the shown-once dialog; the note is dropped if that dialog has gone meanwhile. */
  private async copy(shown: ShownOnce, what: string, text: string): Promise<void> {
    const note = await copyWithNote(what, text, this.renderRoot.querySelector<HTMLInputElement>('#secret'));
    const dialog = this.dialogs.current;
    if (dialog?.kind === 'secret' && dialog.apiKey === shown.apiKey) {
      this.dialogs.current = { ...dialog, copied: note };
    }
  }

  // --- rendering --------------------------------------------------------------------------

  /** Lit's render: the element's content for its current state. */
  protected override render(): TemplateResult {
    return html`
      ${keyList({
        signedIn: Boolean(this.getToken),
        keys: this.keys,
        loading: this.loading,
        loadError: this.loadError,
        nextCursor: this.nextCursor,
        showAll: this.showAll,
        announcement: this.announcement,
        workspaces: this.workspaces,
        load: (more) => this.load(more),
        filter: (showAll) => {
          this.showAll = showAll;
          void this.load(false);
        },
        create: (e) => this.dialogs.open(newCreateKey(), e),
        usageOf: (id) => this.rowUsage.of(id),
        history: (key, e) => this.openHistory(key, e),
        usage: (key, e) => this.openUsage(key, e),
        rotate: (key, e) => this.dialogs.open({ kind: 'rotate', key }, e),
        revoke: (key, e) => this.dialogs.open({ kind: 'revoke', key }, e),
        lowerLimits: (key, e) => this.dialogs.open({ kind: 'limits', key }, e),
      })}
      ${this.dialogs.current ? this.renderDialog(this.dialogs.current) : nothing}
      ${this.reauth.render()}
    `;
  }

  private renderDialog(dialog: KeyDialog): TemplateResult {
    return keyDialog(dialog, {
      workspaces: this.workspaces,
      maxExpiryDays: this.maxExpiryDays,
      defaultExpiryDays: this.defaultExpiryDays,
      mcpUrl: this.mcpUrl ?? `${this.baseUrl.replace(/\/+$/, '') || location.origin}/mcp`,
      catalogue: this.catalogue.current,
      busy: this.busy,
      hintOf: (id) => this.keys.find((k) => k.id === id)?.key_hint,
      set: (next) => {
        this.dialogs.current = next;
      },
      create: (e) => this.onCreate(e),
      rotate: (key) => this.onRotate(key),
      revoke: (key) => this.onRevoke(key),
      copy: (shown, what, text) => this.copy(shown, what, text),
      loadEvents: (key, cursor) => this.loadEvents(key, cursor),
      loadUsage: (key) => this.openUsage(key),
      restrict: (usage, tools) => this.onRestrict(usage, tools),
      lowerLimits: (dialog, e) => this.onLowerLimits(e, dialog),
      close: this.dialogs.close,
      closed: this.dialogs.closed,
    });
  }
}

if (!customElements.get('svc-mcp-api-keys')) customElements.define('svc-mcp-api-keys', SvcMcpApiKeys);
