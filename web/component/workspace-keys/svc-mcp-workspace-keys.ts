import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import {
  createWorkspaceClient,
  ProblemError,
  type WorkspaceEvent,
  type WorkspaceKey,
  type WorkspaceKeyStatus,
  type WorkspacePolicy,
} from '../../client/index.ts';
import { ElementClient } from '../shared/client.ts';
import { appOrigin, isApp, timeOrNever } from '../shared/format.ts';
import { ReauthController } from '../shared/reauth.ts';
import { ToolCatalogue } from '../shared/tools.ts';
import { describeWorkspaceEvent } from './history.ts';
import { policyForm, policyRequest } from './policy-form.ts';
import { styles } from './styles.ts';
import { WorkspaceUsageView } from './usage-view.ts';

const FILTERS: [WorkspaceKeyStatus | '', string][] = [
  ['', 'All'],
  ['active', 'Active'],
  ['removed', 'Cut off'],
  ['revoked', 'Revoked'],
  ['expired', 'Expired'],
];
/** The row's heading: a key's name and hint, or an app connected through OAuth (contract §15) and how verified it is. */
const credentialName = (key: WorkspaceKey) =>
  isApp(key)
    ? html`${key.name} <span class="hint">(connected app, ${appOrigin(key)})</span>`
    : html`${key.name} <code>${key.key_hint}</code>`;

/** Only a key that works and still reaches the workspace can be cut off: a revoked, expired or cut-off one offers no action. */
const cutOffable = (key: WorkspaceKey) =>
  key.status === 'active' && key.workspace_access === 'active' && Date.parse(key.expires_at) > Date.now();
const message = (error: unknown) =>
  error instanceof ProblemError ? error.detail : 'The service could not be reached; try again.';

/**
 * `<svc-mcp-workspace-keys workspace-id=…>`: for a workspace's administrators, the keys (and the
 * apps connected through OAuth) that reach the workspace (creator, status, last use, filter),
 * cutting one off after confirmation, their usage over the last 30 days (per key, client or tool,
 * with the revoked keys still presented and the write tools held but unused called out), the
 * workspace's policy (its tools among it), and its governance history. Set `getToken` (the
 * admin's login token); listen for `svc-mcp-reauthenticate`: cutting a key off or saving the
 * policy may ask the admin to sign in again (the policy needs a recent login).
 */
export class SvcMcpWorkspaceKeys extends LitElement {
  /** The element's shadow-root styles (Lit). */
  static override styles = styles;
  /** The workspace this element governs. */
  @property({ attribute: 'workspace-id' }) accessor workspaceId = '';
  /** Its name, for headings. @default "this workspace" */
  @property({ attribute: 'workspace-name' }) accessor workspaceName: string | undefined = undefined;
  /** The API's origin; '' (default) is the page's own. */
  @property({ attribute: 'base-url' }) accessor baseUrl = '';
  /** Returns the admin's current login token; nothing loads until it is set. */
  @property({ attribute: false }) accessor getToken: (() => string | Promise<string>) | undefined = undefined;

  @state() private accessor keys: WorkspaceKey[] = [];
  @state() private accessor nextCursor: string | null = null;
  @state() private accessor filter: WorkspaceKeyStatus | '' = '';
  @state() private accessor policy: WorkspacePolicy | undefined = undefined;
  @state() private accessor events: WorkspaceEvent[] = [];
  @state() private accessor error: string | undefined = undefined;
  /** The API's refusal of the last policy saved: the form shows its field messages at their fields. */
  @state() private accessor policyProblem: unknown = undefined;
  @state() private accessor confirming: WorkspaceKey | undefined = undefined;
  @state() private accessor announcement = '';
  /** An action that needs a (recent) login: the prompt, and `svc-mcp-reauthenticate` for the page. */
  private readonly reauth = new ReauthController(this);

  /** Loading asks for no sign-in (a prompt per parallel read would cancel each other): an error shows. */
  private readonly reads = new ElementClient(this, undefined, createWorkspaceClient);
  /** Cutting off and saving the policy prompt for a sign-in and continue once it is done. */
  private readonly actions = new ElementClient(this, this.reauth.ask, createWorkspaceClient);
  /** The last 30 days per key, client or tool, and the revoked keys still presented. */
  private readonly usage = new WorkspaceUsageView(this, { name: () => this.name, listed: () => this.keys });
  /** The MCP server's tools, offered in the policy form. */
  private readonly catalogue = new ToolCatalogue(this);

  private get name(): string {
    return this.workspaceName ?? 'this workspace';
  }

  /** Lit's hook after a render: reloads when the token or what the element shows has changed. */
  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('getToken') || changed.has('workspaceId')) this.usage.clear();
    if ((changed.has('getToken') || changed.has('workspaceId')) && this.getToken && this.workspaceId)
      void this.reload();
    const dialog = this.renderRoot.querySelector('dialog');
    if (dialog && !dialog.open) dialog.showModal();
  }

  /** Loads the first page of keys, the policy, the usage and the history again. */
  async reload(): Promise<void> {
    void this.usage.load();
    try {
      const [page, policy, history] = await Promise.all([
        this.reads.api.listKeys(this.workspaceId, { limit: 25, ...(this.filter && { status: this.filter }) }),
        this.reads.api.getPolicy(this.workspaceId),
        this.reads.api.events(this.workspaceId, { limit: 20 }),
      ]);
      this.keys = page.data;
      this.nextCursor = page.next_cursor;
      this.policy = policy;
      this.events = history.data;
      this.error = undefined;
    } catch (error) {
      this.error = message(error);
    }
  }

  private async more(): Promise<void> {
    if (!this.nextCursor) return;
    try {
      const page = await this.reads.api.listKeys(this.workspaceId, {
        limit: 25,
        cursor: this.nextCursor,
        ...(this.filter && { status: this.filter }),
      });
      this.keys = [...this.keys, ...page.data];
      this.nextCursor = page.next_cursor;
    } catch (error) {
      this.error = message(error);
    }
  }

  private async cutOff(key: WorkspaceKey): Promise<void> {
    this.confirming = undefined;
    try {
      await this.actions.api.cutOff(this.workspaceId, key.id);
      this.announcement = `“${key.name}” was cut off from ${this.name}.`;
      await this.reload();
    } catch (error) {
      this.error = message(error);
    }
  }

  private async savePolicy(event: SubmitEvent, policy: WorkspacePolicy): Promise<void> {
    event.preventDefault();
    const request = policyRequest(new FormData(event.currentTarget as HTMLFormElement), policy);
    try {
      const saved = await this.actions.api.putPolicy(this.workspaceId, request);
      this.policyProblem = undefined;
      this.announcement = `Policy saved. ${saved.affected_keys} key${saved.affected_keys === 1 ? '' : 's'} will lose access to ${this.name} within a minute.`;
      await this.reload();
    } catch (error) {
      this.error = message(error);
      this.policyProblem = error;
    }
  }

  /** Lit's render: the element's content for its current state. */
  override render(): TemplateResult {
    if (!this.getToken) return html`<p>Sign in to govern ${this.name}.</p>`;
    return html`
      <section aria-labelledby="title">
        <h2 id="title">MCP keys that reach ${this.name}</h2>
        <p class="intro">You see this because you administer ${this.name}: every MCP key and connected
          app that reaches it is listed here, and you can cut one off or set the workspace’s policy.</p>
        <p class=${this.announcement ? 'notice' : 'visually-hidden'} role="status">${this.announcement}</p>
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
        <div class="bar">
          <label>Show
            <select @change=${(e: Event) => {
              this.filter = (e.target as HTMLSelectElement).value as WorkspaceKeyStatus | '';
              void this.reload();
            }}>
              ${FILTERS.map(([value, label]) => html`<option value=${value} ?selected=${this.filter === value}>${label}</option>`)}
            </select>
          </label>
        </div>
        ${this.renderKeys()}
        ${this.usage.render()}
        ${this.renderPolicy()}
        ${this.renderHistory()}
        ${this.confirming ? this.renderConfirm(this.confirming) : nothing}
      </section>
      ${this.reauth.render()}
    `;
  }

  private renderPolicy(): TemplateResult | typeof nothing {
    const policy = this.policy;
    if (!policy) return nothing;
    const submit = (e: SubmitEvent) => this.savePolicy(e, policy);
    const catalogue = this.catalogue.current;
    return policyForm({ policy, name: this.name, catalogue, problem: this.policyProblem, submit });
  }

  private renderKeys(): TemplateResult {
    if (this.keys.length === 0) return html`<p>No key matches.</p>`;
    return html`
      <table>
        <caption class="visually-hidden">Keys of ${this.name}</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Creator</th><th scope="col">Scopes</th>
          <th scope="col">Status</th><th scope="col">Last used</th><th scope="col">Action</th></tr></thead>
        <tbody>
          ${this.keys.map(
            (key) => html`<tr>
              <th scope="row">${credentialName(key)}</th>
              <td>${key.user_id}</td>
              <td>${key.scopes.join(', ')}</td>
              <td><span class="status ${key.status}">${key.status === 'removed' ? 'Cut off' : key.status}</span></td>
              <td>${timeOrNever(key.last_used_at)}</td>
              <td>${
                cutOffable(key)
                  ? html`<button class="danger" @click=${() => {
                      this.confirming = key;
                    }}>Cut off<span class="visually-hidden"> ${key.name}</span></button>`
                  : nothing
              }</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${this.nextCursor ? html`<button @click=${() => this.more()}>Load more keys</button>` : nothing}
    `;
  }

  private renderConfirm(key: WorkspaceKey): TemplateResult {
    return html`<dialog aria-labelledby="confirm-title" @cancel=${() => {
      this.confirming = undefined;
    }}>
      <h3 id="confirm-title">Cut “${key.name}” off from ${this.name}?</h3>
      <p>Its next MCP call will no longer reach ${this.name}. Its creator (${key.user_id}) sees that an administrator removed it. If it reaches no other workspace, it is revoked.</p>
      <div class="bar">
        <button class="danger" @click=${() => this.cutOff(key)}>Cut off</button>
        <button @click=${() => {
          this.confirming = undefined;
        }}>Cancel</button>
      </div>
    </dialog>`;
  }

  private renderHistory(): TemplateResult {
    return html`
      <h3 id="history-title">Governance history</h3>
      ${
        this.events.length === 0
          ? html`<p>Nothing yet.</p>`
          : html`<ul aria-labelledby="history-title">
              ${this.events.map((e) => html`<li>${timeOrNever(e.occurred_at)}: ${describeWorkspaceEvent(e)}</li>`)}
            </ul>`
      }
    `;
  }
}

if (!customElements.get('svc-mcp-workspace-keys'))
  customElements.define('svc-mcp-workspace-keys', SvcMcpWorkspaceKeys);
