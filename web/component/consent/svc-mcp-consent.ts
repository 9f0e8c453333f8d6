import { css, html, LitElement, type PropertyValues, type TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import { createConsentClient, type OAuthRequest, ProblemError, type Scope } from '../../client/index.ts';
import { ElementClient } from '../shared/client.ts';
import { emit, type Workspace } from '../shared/dialogs.ts';
import { describe } from '../shared/format.ts';
import { readLimits } from '../shared/limits.ts';
import { ReauthController } from '../shared/reauth.ts';
import { keyPageStyles } from '../shared/styles.ts';
import { chosenTools, ToolCatalogue, toggled } from '../shared/tools.ts';
import { consentForm, decidedView, unusableView } from './consent-view.ts';
import { type ConsentFailure, failureOf } from './failure.ts';

export type { ConsentDecidedDetail, SvcMcpConsentEventMap } from '../shared/events.ts';

/** Where the element is: nothing to show yet, the request, or why there is none. */
type Phase =
  | { kind: 'waiting' }
  | { kind: 'loading' }
  | { kind: 'unusable'; reason: 'not_found' | 'no_request' }
  | { kind: 'failed'; message: string }
  | { kind: 'ready'; request: OAuthRequest }
  | { kind: 'decided'; request: OAuthRequest; decision: 'approved' | 'denied' };

const consentStyles = css`
  .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.4rem 1rem; margin: 1rem 0; }
  .facts dt { font-weight: 600; }
  .facts dd { margin: 0; }
  .facts .note { margin: 0.25rem 0 0; }
  .badge { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; font-weight: 600; }
  .badge.verified { background: #e3f3e8; color: #0b5a26; }
  .badge.unverified { background: #fdeee6; color: #8a2a00; }
  details { margin-top: 0.75rem; }
  summary { cursor: pointer; font-weight: 600; }
  ul.field-error { list-style: none; margin-left: 1.6rem; padding: 0; }
  .hint.warn { color: #8a2a00; }
  h2[tabindex]:focus { outline: none; }
`;

/**
 * `<svc-mcp-consent request-id=…>`: the consent page of the OAuth flow (contract §15). It reads
 * the app's sign-in request with the person's login token and asks which of their workspaces the
 * app may reach, with which scopes, tools and limits (contract §19) and for how long; Approve or Deny
 * answers the app through the browser (`svc-mcp-consent-decided`, cancelable, whose default is
 * `location.assign`). Set `getToken` and `workspaces` as on `<svc-mcp-api-keys>`; listen for
 * `svc-mcp-reauthenticate`: approving needs a recent login, as creating a key does.
 */
export class SvcMcpConsent extends LitElement {
  /** The element's shadow-root styles (Lit). */
  static override styles = [keyPageStyles, consentStyles];

  /** The sign-in request to answer: the `request` parameter of the page's URL. */
  @property({ attribute: 'request-id' }) accessor requestId = '';
  /** The API's origin; '' (default) is the page's own. */
  @property({ attribute: 'base-url' }) accessor baseUrl = '';
  /** The deployment's maximum lifetime of a key or grant. @default 90 */
  @property({ attribute: 'max-expiry-days', type: Number }) accessor maxExpiryDays = 90;
  /** @default 30 */
  @property({ attribute: 'default-expiry-days', type: Number }) accessor defaultExpiryDays = 30;
  /** Returns the person's current login token; nothing loads until it is set (the first reader owns a request). */
  @property({ attribute: false }) accessor getToken: (() => string | Promise<string>) | undefined = undefined;
  /** The person's workspaces (with their role, to explain a scope it refuses): offered as choices. */
  @property({ attribute: false }) accessor workspaces: Workspace[] | undefined = undefined;

  @state() private accessor phase: Phase = { kind: 'waiting' };
  @state() private accessor chosenWorkspaces: ReadonlySet<string> = new Set();
  @state() private accessor chosenScopes: ReadonlySet<Scope> = new Set();
  /** The tools the person unticked among those the chosen scopes allow. */
  @state() private accessor untickedTools: ReadonlySet<string> = new Set();
  @state() private accessor days = '';
  @state() private accessor limitsOpen = false;
  @state() private accessor busy: 'approve' | 'deny' | undefined = undefined;
  @state() private accessor problem: string | undefined = undefined;
  @state() private accessor failure: ConsentFailure | undefined = undefined;
  /** Focus goes here after the next render: the heading of a new state, or the error. */
  #focusNext: string | undefined;
  private readonly reauth = new ReauthController(this);
  private readonly client = new ElementClient(this, this.reauth.ask, createConsentClient);
  /** The MCP server's tools, offered for the scopes chosen. */
  private readonly catalogue = new ToolCatalogue(this);

  /** Lit's hook after a render: reloads when the token or what the element shows has changed. */
  protected override updated(changed: PropertyValues<this>): void {
    const reload = changed.has('getToken') || changed.has('requestId') || changed.has('baseUrl');
    if (reload && this.getToken) void this.load();
    if (reload && !this.getToken) this.phase = { kind: 'waiting' };
    // The sign-in-again prompt is this element's only dialog: modal while it is there.
    const prompt = this.renderRoot.querySelector('dialog');
    if (prompt && !prompt.open) prompt.showModal();
    if (this.#focusNext) {
      this.renderRoot.querySelector<HTMLElement>(this.#focusNext)?.focus();
      this.#focusNext = undefined;
    }
  }

  /** Reads the request again (after "Try again"). */
  async load(): Promise<void> {
    const id = this.requestId.trim();
    if (!id) {
      this.phase = { kind: 'unusable', reason: 'no_request' };
      return;
    }
    this.phase = { kind: 'loading' };
    try {
      const request = await this.client.api.get(id);
      const members = (this.workspaces ?? []).filter((w) => w.member !== false);
      const only = members.length === 1 && members[0] ? [members[0].id] : [];
      this.chosenWorkspaces = new Set(request.grant?.workspace_ids ?? only);
      this.chosenScopes = new Set(request.requested_scopes);
      this.untickedTools = new Set();
      this.limitsOpen = false;
      this.days = String(Math.min(this.defaultExpiryDays, this.maxExpiryDays));
      this.problem = undefined;
      this.failure = undefined;
      this.phase = { kind: 'ready', request };
    } catch (err) {
      this.phase = isGone(err)
        ? { kind: 'unusable', reason: 'not_found' }
        : { kind: 'failed', message: describe(err, 'Couldn’t load the app’s request') };
    }
  }

  // --- answering ---------------------------------------------------------------------------

  private async approve(event: SubmitEvent, request: OAuthRequest): Promise<void> {
    event.preventDefault();
    if (this.busy) return;
    if (request.grant) return this.widen(request, request.grant);
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const workspaceIds = this.workspaces
      ? this.workspaces.filter((w) => this.chosenWorkspaces.has(w.id)).map((w) => w.id)
      : String(form.get('workspace_ids') ?? '')
          .split(/[\s,]+/)
          .filter(Boolean);
    const scopes = [...this.chosenScopes];
    const tools = chosenTools(this.catalogue.current, scopes, this.untickedTools);
    const days = Number(this.days);
    const max = this.maxExpiryDays;
    const limits = readLimits(form);
    const problems = [
      ...(workspaceIds.length ? [] : ['Workspaces: choose at least one.']),
      ...(scopes.length ? [] : ['Scopes: choose at least one.']),
      ...(tools?.length === 0 ? ['Tools: tick at least one.'] : []),
      ...(Number.isInteger(days) && days >= 1 && days <= max
        ? []
        : [`Access expires after: enter a whole number of days from 1 to ${max}.`]),
      ...limits.problems,
    ];
    this.failure = undefined;
    this.problem = problems.length ? problems.join(' ') : undefined;
    if (this.problem) {
      this.#focusNext = '#consent-error';
      return;
    }
    await this.answer(
      'approve',
      request,
      () =>
        this.client.api.approve(request.id, {
          workspace_ids: workspaceIds,
          scopes,
          expires_in_days: days,
          ...(tools && { tools }),
          ...(Object.keys(limits.limits).length > 0 && { limits: limits.limits }),
        }),
      workspaceIds,
    );
  }

  /** Approves a step-up: the grant's workspaces and those added, its scopes and the added ones chosen. */
  private async widen(request: OAuthRequest, grant: NonNullable<OAuthRequest['grant']>): Promise<void> {
    const scopes = [...new Set([...grant.scopes, ...this.chosenScopes])];
    const ids = [...new Set([...grant.workspace_ids, ...this.chosenWorkspaces])];
    this.problem = undefined;
    this.failure = undefined;
    const send = () => this.client.api.approve(request.id, { workspace_ids: ids, scopes });
    await this.answer('approve', request, send, ids);
  }

  private async deny(request: OAuthRequest): Promise<void> {
    if (this.busy) return;
    this.problem = undefined;
    this.failure = undefined;
    await this.answer('deny', request, () => this.client.api.deny(request.id), []);
  }

  /** Sends a decision; on success the browser goes to the app, else the refusal is shown where it applies. */
  private async answer(
    what: 'approve' | 'deny',
    request: OAuthRequest,
    send: () => Promise<{ redirect_to: string }>,
    workspaceIds: readonly string[],
  ): Promise<void> {
    this.busy = what;
    try {
      const { redirect_to } = await send();
      const decision = what === 'approve' ? 'approved' : 'denied';
      this.phase = { kind: 'decided', request, decision };
      this.#focusNext = '#consent-title';
      if (emit(this, 'svc-mcp-consent-decided', { decision, redirect_to }, true))
        location.assign(redirect_to);
    } catch (err) {
      if (isGone(err)) {
        this.phase = { kind: 'unusable', reason: 'not_found' };
        this.#focusNext = '#consent-title';
      } else {
        this.failure = failureOf(err, workspaceIds, this.workspaces);
        if (this.failure.limits) this.limitsOpen = true;
        this.#focusNext = '#consent-error';
      }
    } finally {
      this.busy = undefined;
    }
  }

  // --- rendering --------------------------------------------------------------------------

  /** Lit's render: the element's content for its current state. */
  protected override render(): TemplateResult {
    return html`
      <section aria-labelledby="consent-title">${this.renderPhase(this.phase)}</section>
      ${this.reauth.render()}
    `;
  }

  private renderPhase(phase: Phase): TemplateResult {
    switch (phase.kind) {
      case 'waiting':
        return html`<h2 id="consent-title">Connect an app</h2><p>Sign in to answer the app’s request.</p>`;
      case 'loading':
        return html`<h2 id="consent-title">Connect an app</h2><p role="status" aria-busy="true">Loading the app’s request…</p>`;
      case 'unusable':
        return unusableView(phase.reason);
      case 'failed':
        return html`<h2 id="consent-title">Connect an app</h2>
          <div class="error" role="alert">${phase.message} <button @click=${() => this.load()}>Try again</button></div>`;
      case 'decided':
        return decidedView(phase.request, phase.decision);
      case 'ready':
        return consentForm({
          request: phase.request,
          workspaces: this.workspaces,
          chosenWorkspaces: this.chosenWorkspaces,
          chosenScopes: this.chosenScopes,
          catalogue: this.catalogue.current,
          untickedTools: this.untickedTools,
          days: this.days,
          maxExpiryDays: this.maxExpiryDays,
          busy: this.busy,
          problem: this.problem,
          failure: this.failure,
          toggleWorkspace: (id, on) => {
            this.chosenWorkspaces = toggled(this.chosenWorkspaces, id, on);
          },
          toggleScope: (scope, on) => {
            this.chosenScopes = toggled(this.chosenScopes, scope, on);
          },
          toggleTool: (tool, on) => {
            this.untickedTools = toggled(this.untickedTools, tool, !on);
          },
          setDays: (days) => {
            this.days = days;
          },
          limitsOpen: this.limitsOpen,
          toggleLimits: (open) => {
            this.limitsOpen = open;
          },
          approve: (e) => this.approve(e, phase.request),
          deny: () => this.deny(phase.request),
        });
    }
  }
}

/** 404 `request_not_found`: expired, already answered, or someone else's. */
const isGone = (err: unknown) => err instanceof ProblemError && err.code === 'request_not_found';

if (!customElements.get('svc-mcp-consent')) customElements.define('svc-mcp-consent', SvcMcpConsent);
