import { html, nothing, type TemplateResult } from 'lit';
import { type CreateKeyRequest, ProblemError, type Scope } from '../../client/index.ts';
import { type DialogError, errorAlert, type Workspace } from '../shared/dialogs.ts';
import { limitFields, readLimits } from '../shared/limits.ts';
import { SCOPE_CHOICES } from '../shared/scopes.ts';
import { type Catalogue, toggled, toolChoices } from '../shared/tools.ts';

/** The create dialog: the scopes chosen (their tools are offered) and the tools unticked. */
export interface CreateKey {
  kind: 'create';
  scopes: readonly Scope[];
  unticked: ReadonlySet<string>;
  error?: DialogError;
}

/** The create dialog as it opens: the first scope chosen, every tool it allows ticked. */
export const newCreateKey = (): CreateKey => ({
  kind: 'create',
  scopes: SCOPE_CHOICES.slice(0, 1).map((s) => s.scope),
  unticked: new Set(),
});

export interface CreateKeyView {
  dialog: CreateKey;
  /** The MCP server's tools: those the chosen scopes allow are offered. */
  catalogue: Catalogue;
  /** The dialog with another choice of scopes or tools. */
  change: (dialog: CreateKey) => void;
  /** The user's workspaces as checkboxes; without them, a field for workspace ids. */
  workspaces: readonly Workspace[] | undefined;
  maxExpiryDays: number;
  defaultExpiryDays: number;
  busy: boolean;
  submit: (event: SubmitEvent) => void;
  cancel: () => void;
  closed: (event: Event) => void;
}

/** The create form: name, workspaces, scopes, tools, lifetime and limits, with the API's field errors marked. */
export function createKeyDialog(view: CreateKeyView): TemplateResult {
  const { workspaces, maxExpiryDays, dialog } = view;
  const { error } = dialog;
  const memberOf = (workspaces ?? []).filter((w) => w.member !== false);
  const fieldError = (prefix: string) =>
    error instanceof ProblemError &&
    error.errors.some((e) => e.path === prefix || e.path.startsWith(`${prefix}.`));
  return html`
    <dialog data-kind="create" aria-labelledby="create-title" @close=${view.closed}>
      <form @submit=${view.submit} novalidate>
        <h2 id="create-title">Create an MCP API key</h2>
        <label for="name">Name</label>
        <input id="name" name="name" maxlength="100" required autocomplete="off" autofocus
          aria-describedby="name-hint" aria-invalid=${fieldError('name')} />
        <p class="hint" id="name-hint">Where the key is used, e.g. “Claude Desktop (laptop)”.</p>
        ${
          workspaces
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
          ${SCOPE_CHOICES.map(
            (s, i) => html`<label class="check"><input type="checkbox" name="scope" value=${s.scope}
              .checked=${dialog.scopes.includes(s.scope)} aria-describedby=${`scope-${i}`}
              @change=${(e: Event) => {
                const scopes = toggled(
                  new Set(dialog.scopes),
                  s.scope,
                  (e.target as HTMLInputElement).checked,
                );
                view.change({
                  ...dialog,
                  scopes: SCOPE_CHOICES.map((c) => c.scope).filter((c) => scopes.has(c)),
                });
              }} /> ${s.label} <code>${s.scope}</code></label>
              <p class="hint indent" id=${`scope-${i}`}>${s.hint}</p>`,
          )}
        </fieldset>
        ${toolChoices({
          catalogue: view.catalogue,
          scopes: dialog.scopes,
          unticked: dialog.unticked,
          toggle: (tool, on) => view.change({ ...dialog, unticked: toggled(dialog.unticked, tool, !on) }),
          what: 'key',
          invalid: fieldError('tools'),
        })}
        <label for="expires">Expires after (days)</label>
        <input id="expires" name="expires_in_days" type="number" inputmode="numeric" min="1" max=${maxExpiryDays}
          .value=${String(Math.min(view.defaultExpiryDays, maxExpiryDays))} required aria-describedby="expires-hint"
          aria-invalid=${fieldError('expires_in_days')} />
        <p class="hint" id="expires-hint">From 1 to ${maxExpiryDays} days.</p>
        ${limitFields('key', error)}
        ${errorAlert(error, workspaces)}
        <div class="buttons">
          <button type="button" @click=${view.cancel}>Cancel</button>
          <button type="submit" class="primary" ?disabled=${view.busy}>Create key</button>
        </div>
      </form>
    </dialog>
  `;
}

/** Reads the submitted form: the request to send, or one sentence naming every field to fix. */
export function readCreateForm(
  form: HTMLFormElement,
  options: { workspaces: readonly Workspace[] | undefined; maxExpiryDays: number },
): { request: CreateKeyRequest } | { problems: string } {
  const data = new FormData(form);
  const workspaceIds = options.workspaces
    ? data.getAll('workspace').map(String)
    : String(data.get('workspace_ids') ?? '')
        .split(/[\s,]+/)
        .filter(Boolean);
  const scopes = data.getAll('scope').map(String) as Scope[];
  // The boxes are the tools the scopes allow: all ticked, none is sent (every tool they allow).
  const boxes = [...form.querySelectorAll<HTMLInputElement>('input[name="tool"]')];
  const tools = boxes.some((b) => !b.checked)
    ? boxes.filter((b) => b.checked).map((b) => b.value)
    : undefined;
  const days = Number(data.get('expires_in_days'));
  const max = options.maxExpiryDays;
  const name = String(data.get('name') ?? '').trim();
  const limits = readLimits(data);
  const problems = [
    ...(name ? [] : ['Name: enter a name.']),
    ...(workspaceIds.length ? [] : ['Workspaces: choose at least one.']),
    ...(scopes.length ? [] : ['Scopes: choose at least one.']),
    ...(tools?.length === 0 ? ['Tools: tick at least one.'] : []),
    ...(Number.isInteger(days) && days >= 1 && days <= max
      ? []
      : [`Expires after: enter a whole number of days from 1 to ${max}.`]),
    ...limits.problems,
  ];
  if (problems.length) return { problems: problems.join(' ') };
  // Limits are sent only when some are set: none is no limit of its own, as before.
  const set = Object.keys(limits.limits).length > 0;
  return {
    request: {
      name,
      workspace_ids: workspaceIds,
      scopes,
      expires_in_days: days,
      ...(tools && { tools }),
      ...(set && { limits: limits.limits }),
    },
  };
}
