import { html, nothing, type TemplateResult } from 'lit';
import { isRole, roleAllows } from '#lib/access/scopes';
import type { OAuthRequest, Scope } from '../../client/index.ts';
import type { Workspace } from '../shared/dialogs.ts';
import { timeFormat } from '../shared/format.ts';
import { limitFields } from '../shared/limits.ts';
import { SCOPE_CHOICES } from '../shared/scopes.ts';
import { type Catalogue, toolChoices } from '../shared/tools.ts';
import type { ConsentFailure } from './failure.ts';

export interface ConsentFormView {
  request: OAuthRequest;
  /** The person's workspaces as checkboxes; without them, a field for workspace ids. */
  workspaces: readonly Workspace[] | undefined;
  chosenWorkspaces: ReadonlySet<string>;
  chosenScopes: ReadonlySet<Scope>;
  /** The MCP server's tools: those the chosen scopes allow are offered, all ticked at first. */
  catalogue: Catalogue;
  untickedTools: ReadonlySet<string>;
  days: string;
  maxExpiryDays: number;
  /** What is being sent, if anything: both buttons wait. */
  busy: 'approve' | 'deny' | undefined;
  /** A sentence of the page's own (nothing chosen), or the API's refusal. */
  problem: string | undefined;
  failure: ConsentFailure | undefined;
  toggleWorkspace: (id: string, on: boolean) => void;
  toggleScope: (scope: Scope, on: boolean) => void;
  toggleTool: (tool: string, on: boolean) => void;
  setDays: (days: string) => void;
  /** The limits' section is open (it opens by itself to show the API's refusal of one). */
  limitsOpen: boolean;
  toggleLimits: (open: boolean) => void;
  approve: (event: SubmitEvent) => void;
  deny: () => void;
}

/** The app as the person must judge it: its name, and whether anything vouches for it. */
function appIdentity(client: OAuthRequest['client']): TemplateResult {
  return client.verified_domain
    ? html`<span class="badge verified">Verified: ${client.verified_domain}</span>
        <p class="note" id="identity-note">The app publishes its identity at ${client.verified_domain}.</p>`
    : html`<span class="badge unverified">Unverified</span>
        <p class="note" id="identity-note">The app gave itself this name when it registered; nothing confirms who
        made it. Approve only if you started connecting it yourself, just now.</p>`;
}

/** Hosts of the loopback interface, where a redirect reaches a program on the person's own computer (RFC 8252 §7.3). */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/** A private-use scheme as the API gives it for a redirect host (`cursor://`, `com.example.app:`). */
const PRIVATE_USE = /^([a-z][a-z0-9+.-]*):(\/\/)?$/i;

/**
 * Where the app returns the person, in words a non-technical person can judge: `localhost:45196`
 * alone says nothing, nor does `cursor://` (it opens the `cursor` app).
 */
function destination(host: string): TemplateResult {
  if (LOOPBACK_HOST.test(host)) return html`a program on this computer (<code>${host}</code>)`;
  const scheme = PRIVATE_USE.exec(host)?.[1];
  if (scheme) return html`the <code>${scheme}</code> app on this device`;
  return html`<code>${host}</code>`;
}

/** The request: app, where it returns, which MCP server, until when it can be answered. */
function requestFacts(request: OAuthRequest): TemplateResult {
  return html`
    <dl class="facts">
      <dt>App</dt>
      <dd>${request.client.name} ${appIdentity(request.client)}</dd>
      <dt>Returns you to</dt>
      <dd>${destination(request.redirect_host)}</dd>
      <dt>MCP server</dt>
      <dd><code class="wrap">${request.resource}</code></dd>
      <dt>Answer before</dt>
      <dd><time datetime=${request.expires_at}>${timeFormat.format(new Date(request.expires_at))}</time></dd>
    </dl>
  `;
}

/** The chosen scopes the person's role in `workspace` refuses (the API's scope/role table), if the page knows the role. */
function refusedByRole(workspace: Workspace, scopes: ReadonlySet<Scope>): Scope[] {
  const role = workspace.role;
  if (!isRole(role)) return [];
  return SCOPE_CHOICES.map((c) => c.scope).filter((s) => scopes.has(s) && !roleAllows(role, s));
}

const labelOf = (scope: Scope) => SCOPE_CHOICES.find((c) => c.scope === scope)?.label ?? scope;

/**
 * The workspaces to choose; `connected` (a sign-in again) are those the app reaches already:
 * ticked and fixed, and the others offered as additions, marked new when ticked.
 */
function workspaceChoices(view: ConsentFormView, connected?: readonly string[]): TemplateResult {
  const { failure } = view;
  if (!view.workspaces) {
    return html`
      <label for="workspace_ids">Workspace IDs</label>
      <textarea id="workspace_ids" name="workspace_ids" rows="2" aria-describedby="ws-hint"
        aria-invalid=${Boolean(failure?.workspaces)}></textarea>
      <p class="hint" id="ws-hint">One or more workspace IDs, separated by spaces or commas.</p>
    `;
  }
  const memberOf = view.workspaces.filter((w) => w.member !== false || connected?.includes(w.id));
  const state = (id: string) =>
    connected?.includes(id) ? ' (connected)' : connected && view.chosenWorkspaces.has(id) ? ' (new)' : '';
  return html`
    <fieldset>
      <legend>${connected ? 'Workspaces it reaches, and any you add' : 'Workspaces it may reach'}</legend>
      ${memberOf.length ? nothing : html`<p class="hint">You are not a member of any workspace, so there is nothing to connect.</p>`}
      ${memberOf.map((w, i) => {
        const errors = failure?.byWorkspace.get(w.id) ?? [];
        const refused = view.chosenWorkspaces.has(w.id) ? refusedByRole(w, view.chosenScopes) : [];
        const described = [refused.length ? `ws-role-${i}` : '', errors.length ? `ws-error-${i}` : '']
          .filter(Boolean)
          .join(' ');
        return html`
          <label class="check"><input type="checkbox" name="workspace" value=${w.id}
            .checked=${view.chosenWorkspaces.has(w.id)} aria-invalid=${errors.length > 0}
            ?disabled=${connected?.includes(w.id) ?? false} aria-describedby=${described || nothing}
            @change=${(e: Event) => view.toggleWorkspace(w.id, (e.target as HTMLInputElement).checked)} />
            ${w.name}${w.role ? html` <span class="hint">(${w.role})</span>` : nothing}<strong>${state(w.id)}</strong></label>
          ${
            refused.length
              ? html`<p class="hint indent warn" id=${`ws-role-${i}`}>Your role here (${w.role}) doesn’t allow
                ${refused.map(labelOf).join(' or ')}, so approving would be refused.</p>`
              : nothing
          }
          ${
            errors.length
              ? html`<ul class="field-error indent" id=${`ws-error-${i}`}>${errors.map((m) => html`<li>${m}</li>`)}</ul>`
              : nothing
          }
        `;
      })}
    </fieldset>
  `;
}

function scopeChoices(view: ConsentFormView): TemplateResult {
  const requested = new Set(view.request.requested_scopes);
  return html`
    <fieldset>
      <legend>What it may do</legend>
      ${SCOPE_CHOICES.map(
        (s, i) => html`<label class="check"><input type="checkbox" name="scope" value=${s.scope}
          .checked=${view.chosenScopes.has(s.scope)} aria-describedby=${`scope-${i}`}
          @change=${(e: Event) => view.toggleScope(s.scope, (e.target as HTMLInputElement).checked)} />
          ${s.label} <code>${s.scope}</code></label>
          <p class="hint indent" id=${`scope-${i}`}>${s.hint}
            ${requested.has(s.scope) ? html`<strong>Requested by the app.</strong>` : 'Not requested by the app.'}</p>`,
      )}
    </fieldset>
  `;
}

function failureAlert(view: ConsentFormView): TemplateResult | typeof nothing {
  const { problem, failure } = view;
  if (!problem && !failure) return nothing;
  return html`
    <div class="error" id="consent-error" role="alert" tabindex="-1">
      <p>${problem ?? failure?.summary}</p>
      ${failure?.other.length ? html`<ul>${failure.other.map((m) => html`<li>${m}</li>`)}</ul>` : nothing}
    </div>
  `;
}

/** The buttons of both questions. */
const answerButtons = (busy: ConsentFormView['busy'], deny: () => void) => html`
  <div class="buttons">
    <button type="button" ?disabled=${busy !== undefined} @click=${deny}>
      ${busy === 'deny' ? 'Denying…' : 'Deny'}</button>
    <button type="submit" class="primary" ?disabled=${busy !== undefined}>
      ${busy === 'approve' ? 'Approving…' : 'Approve'}</button>
  </div>
`;

/**
 * The question when the app signs in again while its grant is live (step-up): what it has, what
 * it adds (only that is chosen here), the person's workspaces to add, and that its expiry stays.
 */
function wideningForm(view: ConsentFormView, grant: NonNullable<OAuthRequest['grant']>): TemplateResult {
  const { request, busy } = view;
  const name = request.client.name;
  const nameOf = (id: string) => view.workspaces?.find((w) => w.id === id)?.name ?? id;
  const added = SCOPE_CHOICES.filter((c) => request.requested_scopes.includes(c.scope));
  return html`
    <h2 id="consent-title" tabindex="-1">Allow “${name}” to do more?</h2>
    <p class="intro">
      “${name}” is already connected to ${grant.workspace_ids.map(nameOf).join(', ')}, where it may
      ${grant.scopes.map(labelOf).join(', ').toLowerCase()}.
      ${added.length ? 'It asks to do more.' : 'It asks for nothing new: approving signs it in again.'}
      ${view.workspaces ? 'You may also connect it to more of your workspaces.' : nothing}
    </p>
    ${requestFacts(request)}
    <form @submit=${view.approve} novalidate aria-busy=${busy !== undefined}>
      ${view.workspaces ? workspaceChoices(view, grant.workspace_ids) : nothing}
      ${
        added.length
          ? html`<fieldset>
              <legend>What it may also do</legend>
              ${added.map(
                (s, i) => html`<label class="check"><input type="checkbox" name="scope" value=${s.scope}
                  .checked=${view.chosenScopes.has(s.scope)} aria-describedby=${`added-${i}`}
                  @change=${(e: Event) => view.toggleScope(s.scope, (e.target as HTMLInputElement).checked)} />
                  ${s.label} <code>${s.scope}</code></label>
                  <p class="hint indent" id=${`added-${i}`}>${s.hint}</p>`,
              )}
            </fieldset>`
          : nothing
      }
      <p class="hint">It keeps the workspaces it reaches and what it may do there, and its access still expires on
        <time datetime=${grant.expires_at}>${timeFormat.format(new Date(grant.expires_at))}</time>.</p>
      ${failureAlert(view)}
      ${answerButtons(busy, view.deny)}
    </form>
  `;
}

/** The question: the request, then workspaces, scopes, tools, lifetime and limits, then Deny or Approve. */
export function consentForm(view: ConsentFormView): TemplateResult {
  if (view.request.grant) return wideningForm(view, view.request.grant);
  const { request, busy, maxExpiryDays } = view;
  const name = request.client.name;
  return html`
    <h2 id="consent-title" tabindex="-1">Connect “${name}” to your workspaces?</h2>
    <p class="intro">
      The app asks to use an MCP server as you. It reaches only the workspaces and does only what you
      choose here, until the access expires or you revoke it on your key page.
    </p>
    ${requestFacts(request)}
    <form @submit=${view.approve} novalidate aria-busy=${busy !== undefined}>
      ${workspaceChoices(view)}
      ${scopeChoices(view)}
      ${toolChoices({
        catalogue: view.catalogue,
        scopes: SCOPE_CHOICES.map((c) => c.scope).filter((s) => view.chosenScopes.has(s)),
        unticked: view.untickedTools,
        toggle: view.toggleTool,
        what: 'app',
        invalid: view.failure?.tools ?? false,
      })}
      <label for="expires">Access expires after (days)</label>
      <input id="expires" name="expires_in_days" type="number" inputmode="numeric" min="1" max=${maxExpiryDays}
        .value=${view.days} required aria-describedby="expires-hint" aria-invalid=${Boolean(view.failure?.lifetime)}
        @input=${(e: Event) => view.setDays((e.target as HTMLInputElement).value)} />
      <p class="hint" id="expires-hint">From 1 to ${maxExpiryDays} days; a workspace’s policy may allow fewer. The app
        renews its own tokens until then.</p>
      <details ?open=${view.limitsOpen}
        @toggle=${(e: Event) => view.toggleLimits((e.target as HTMLDetailsElement).open)}>
        <summary>Limit how often it may call</summary>
        ${limitFields('app', view.failure?.error)}
      </details>
      ${failureAlert(view)}
      ${answerButtons(busy, view.deny)}
    </form>
  `;
}

/** After the answer: where the browser is going (an app's own scheme may leave this page open). */
export function decidedView(request: OAuthRequest, decision: 'approved' | 'denied'): TemplateResult {
  const name = request.client.name;
  return html`
    <h2 id="consent-title" tabindex="-1">${decision === 'approved' ? `“${name}” is connected` : `“${name}” was not connected`}</h2>
    <p role="status">Returning you to ${destination(request.redirect_host)}… If nothing happens, go back to the
      app; you can close this page.</p>
    ${decision === 'approved' ? html`<p class="note">Your key page lists it under Connected apps, where you can revoke it.</p>` : nothing}
  `;
}

/** A request that cannot be answered (any more): what happened and what to do. */
export function unusableView(reason: 'not_found' | 'no_request'): TemplateResult {
  return html`
    <h2 id="consent-title" tabindex="-1">This sign-in request can’t be used</h2>
    <p role="alert">${
      reason === 'no_request'
        ? 'This page was opened without a sign-in request. Start connecting from the app.'
        : 'It has expired (a request lasts 10 minutes), was already answered, or was opened by someone else. Go back to the app and connect again.'
    }</p>
  `;
}
