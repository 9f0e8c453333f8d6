import { html, type TemplateResult } from 'lit';
import type { WorkspacePolicy, WorkspacePolicyRequest } from '../../client/index.ts';
import { timeOrNever } from '../shared/format.ts';
import { fieldMessage, LIMIT_FIELDS, limitInput } from '../shared/limits.ts';
import { SCOPE_CHOICES } from '../shared/scopes.ts';
import { type Catalogue, toolLabel } from '../shared/tools.ts';

/** The policy's `oauth_clients` rule as the form offers it. */
const OAUTH_CLIENT_CHOICES = [
  ['any', 'Any app'],
  ['verified', 'Only verified apps (their identity published at their domain)'],
  ['domains', 'Only apps from the domains below'],
] as const;

/** The policy's `credential_kinds` rule as the form offers it: one box a kind. */
const KIND_CHOICES = [
  ['api_key', 'API keys'],
  ['oauth_grant', 'Apps people approve through OAuth'],
  ['enterprise_grant', 'Apps your organisation’s sign-in lets in'],
] as const;

/** The workspace's policy as the form shows it, and what saving it does. */
export interface PolicyFormView {
  policy: WorkspacePolicy;
  /** The workspace's name, as the element's headings say it. */
  name: string;
  /** The MCP server's tools, offered for `allowed_tools`. */
  catalogue: Catalogue;
  /** The API's refusal of the last save, whose field messages show at their fields. */
  problem: unknown;
  submit: (event: SubmitEvent) => void;
}

/** The `oauth_clients` rule the policy form asks for (always sent: leaving it out means `any`). */
function oauthClientsRule(form: FormData): WorkspacePolicy['oauth_clients'] {
  const choice = form.get('oauth_clients');
  if (choice === 'verified') return 'verified';
  if (choice !== 'domains') return 'any';
  return String(form.get('oauth_domains') ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((domain) => domain.toLowerCase());
}

/**
 * The `allowed_tools` rule the policy form asks for: null (every tool) or the tools ticked; the
 * policy's own when the catalogue could not be read (the form then offers no choice).
 */
function allowedToolsRule(form: FormData, policy: WorkspacePolicy): string[] | null {
  const choice = form.get('tools_choice');
  if (choice === null) return policy.allowed_tools ?? null;
  return choice === 'some' ? form.getAll('allowed_tool').map(String) : null;
}

/** A cap on each credential's calls: null (none) when empty; the API refuses anything but a whole number from 1. */
function capRule(form: FormData, name: string): number | null {
  const raw = String(form.get(name) ?? '').trim();
  return raw === '' ? null : Number(raw);
}

/** The policy the submitted form asks for, as `putPolicy` takes it. */
export function policyRequest(form: FormData, policy: WorkspacePolicy): WorkspacePolicyRequest {
  const days = String(form.get('max_expiry_days') ?? '').trim();
  return {
    mcp_access: form.get('mcp_access') === 'on' ? 'enabled' : 'disabled',
    allowed_scopes: SCOPE_CHOICES.map(({ scope }) => scope).filter((scope) => form.get(scope) === 'on'),
    max_expiry_days: days === '' ? null : Number(days),
    oauth_clients: oauthClientsRule(form),
    credential_kinds: KIND_CHOICES.map(([kind]) => kind).filter((kind) => form.get(`kind_${kind}`) === 'on'),
    allowed_tools: allowedToolsRule(form, policy),
    max_calls_per_minute: capRule(form, 'max_calls_per_minute'),
    max_calls_per_day: capRule(form, 'max_calls_per_day'),
  };
}

/** "Only the tools ticked" makes the boxes choosable; "All tools" sets them aside. */
function chooseTools(event: Event): void {
  const input = event.target as HTMLInputElement;
  if (input.name !== 'tools_choice') return;
  const boxes = (event.currentTarget as HTMLElement).querySelectorAll<HTMLInputElement>(
    'input[name="allowed_tool"]',
  );
  for (const box of boxes) box.disabled = input.value === 'all';
}

/**
 * The tools AI clients may call in the workspace (`allowed_tools`): all, or those ticked. It
 * narrows what each credential may call there, never refuses one.
 */
function toolsFieldset(p: WorkspacePolicy, name: string, catalogue: Catalogue): TemplateResult {
  if (catalogue.state !== 'loaded')
    return html`<p class="hint">${catalogue.state === 'loading' ? 'Loading the tools…' : 'The tools could not be loaded: saving keeps the tools this policy allows.'}</p>`;
  const all = (p.allowed_tools ?? null) === null;
  return html`
    <fieldset @change=${chooseTools} aria-describedby="tools-policy-hint">
      <legend>Tools AI clients may call here</legend>
      <label class="check"><input type="radio" name="tools_choice" value="all" ?checked=${all} /> All tools</label>
      <label class="check"><input type="radio" name="tools_choice" value="some" ?checked=${!all} /> Only the tools ticked below</label>
      <div class="indent">
        ${catalogue.tools.map(
          (t) => html`<label class="check"><input type="checkbox" name="allowed_tool" value=${t.name}
            ?checked=${p.allowed_tools?.includes(t.name) ?? true} ?disabled=${all} />
            ${toolLabel(t)}</label>`,
        )}
      </div>
      <p class="hint" id="tools-policy-hint">A key or app reaching ${name} may call here only those of its own tools
        that this allows, within a minute of saving; it keeps the others in its other workspaces.</p>
    </fieldset>
  `;
}

/** How often each key or app reaching the workspace may call: a cap per UTC minute and day, empty for none. */
function capInputs(p: WorkspacePolicy, name: string, problem: unknown): TemplateResult[] {
  return LIMIT_FIELDS.map(({ field, label, window }) => {
    const rule = `max_calls_${field}` as const;
    return limitInput({
      id: `cap-${field}`,
      name: rule,
      label: `${label} for each credential`,
      value: p[rule] ?? null,
      hint: `Empty: no cap. Each key or app reaching ${name} may make at most this many calls in a UTC ${window}, counted over all its workspaces; its own limit applies where lower.`,
      error: fieldMessage(problem, rule),
    });
  });
}

/**
 * The policy form: MCP access, the kinds of credential, the scopes a key may hold, the tools AI
 * clients may call, the longest lifetime, how often each credential may call, the apps that may connect.
 */
export function policyForm({ policy: p, name, catalogue, problem, submit }: PolicyFormView): TemplateResult {
  return html`
      <h3 id="policy-title">Policy</h3>
      <form aria-labelledby="policy-title" @submit=${submit} novalidate>
        <label class="check"><input type="checkbox" name="mcp_access" ?checked=${p.mcp_access === 'enabled'} /> Allow MCP keys to reach ${name}</label>
        <fieldset>
          <legend>Credentials that may reach ${name}</legend>
          ${KIND_CHOICES.map(
            ([kind, label]) =>
              html`<label class="check"><input type="checkbox" name=${`kind_${kind}`} ?checked=${p.credential_kinds?.includes(kind) ?? true} /> ${label}</label>`,
          )}
        </fieldset>
        <fieldset>
          <legend>Scopes a key may hold</legend>
          ${SCOPE_CHOICES.map(
            ({ scope, label }) =>
              html`<label class="check"><input type="checkbox" name=${scope} ?checked=${p.allowed_scopes.includes(scope)} /> ${label} <code>${scope}</code></label>`,
          )}
        </fieldset>
        ${toolsFieldset(p, name, catalogue)}
        <label for="max-expiry">Longest key lifetime (days)</label>
        <input id="max-expiry" name="max_expiry_days" type="number" inputmode="numeric" min="1" aria-describedby="max-expiry-hint"
          .value=${p.max_expiry_days === null ? '' : String(p.max_expiry_days)} />
        <p class="hint" id="max-expiry-hint">Empty: the service’s maximum.</p>
        ${capInputs(p, name, problem)}
        <label for="oauth-clients">Apps that may connect through OAuth</label>
        <select id="oauth-clients" name="oauth_clients">
          ${OAUTH_CLIENT_CHOICES.map(
            ([value, label]) =>
              html`<option value=${value} ?selected=${(Array.isArray(p.oauth_clients) ? 'domains' : p.oauth_clients) === value}>${label}</option>`,
          )}
        </select>
        <label for="oauth-domains">App domains, for the last choice</label>
        <input id="oauth-domains" name="oauth_domains" aria-describedby="oauth-domains-hint"
          .value=${Array.isArray(p.oauth_clients) ? p.oauth_clients.join(', ') : ''} />
        <p class="hint" id="oauth-domains-hint">Separated by spaces or commas.</p>
        <p class="hint">${p.updated_at ? html`Last changed ${timeOrNever(p.updated_at)} by ${p.updated_by}.` : 'The default policy applies.'}
          Keys and apps the new policy refuses lose access within a minute.</p>
        <div class="buttons"><button class="primary" type="submit">Save policy</button></div>
      </form>
    `;
}
