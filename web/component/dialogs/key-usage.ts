import { html, nothing, type TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import type { CredentialUsage, UsageClient } from '../../client/usage.ts';
import {
  countList,
  dayBars,
  daysFrom,
  REFUSAL_WORDS,
  type Refusals,
  refusedCount,
} from '../shared/charts.ts';
import { type DialogError, dialogError } from '../shared/dialogs.ts';
import { isApp, plural } from '../shared/format.ts';
import {
  callsByTool,
  lastUseNotCounted,
  noToolHint,
  notCountedYet,
  toolName,
} from '../shared/usage-figures.ts';
import { leastPrivilege } from './least-privilege.ts';

/** A key's (or connected app's) usage panel: calls per day over 30 days, refusals by reason, top tools. */
export interface KeyUsage {
  kind: 'usage';
  key: KeyMetadata;
  usage?: CredentialUsage;
  loading: boolean;
  error?: DialogError;
  /** The tools it was just restricted to, said once the PATCH succeeded. */
  restricted?: readonly string[];
}

/**
 * Loads the key's day usage into its panel; `dialog.get()` is the panel while it is still open on
 * this key (one closed meanwhile is left alone).
 */
export async function loadKeyUsage(
  client: UsageClient,
  key: KeyMetadata,
  dialog: { get: () => KeyUsage | undefined; set: (next: KeyUsage) => void },
): Promise<void> {
  const before = dialog.get();
  if (!before) return;
  dialog.set({ ...before, loading: true, error: undefined });
  try {
    const usage = await client.keyUsage(key.id, { from: daysFrom(), granularity: 'day' });
    const open = dialog.get();
    if (open) dialog.set({ ...open, usage, loading: false });
  } catch (err) {
    const open = dialog.get();
    if (open) dialog.set({ ...open, loading: false, error: dialogError(err, 'Couldn’t load the usage') });
  }
}

export interface KeyUsageView {
  dialog: KeyUsage;
  /** A restriction is being sent. */
  busy: boolean;
  error: TemplateResult | typeof nothing;
  /** Restricts it to the tools it used (PATCH `tools`). */
  restrict: (tools: string[]) => void;
  retry: () => void;
  close: () => void;
  closed: (event: Event) => void;
}

export function keyUsageDialog(view: KeyUsageView): TemplateResult {
  const { dialog } = view;
  const { usage, loading } = dialog;
  const app = isApp(dialog.key);
  return html`
    <dialog data-kind="usage" aria-labelledby="usage-title" aria-describedby="usage-intro" @close=${view.closed}>
      <h2 id="usage-title">Usage of “${dialog.key.name}”</h2>
      <p id="usage-intro" class="hint">Every call that presented this ${app ? 'app’s access' : 'key'} over the last 30 days,
        allowed or refused, by day (UTC). Counts can be minutes late.</p>
      ${usage ? usagePanel(usage, dialog.key.last_used_at) : nothing}
      ${
        usage
          ? leastPrivilege({
              key: dialog.key,
              usage,
              busy: view.busy,
              restricted: dialog.restricted,
              restrict: view.restrict,
            })
          : nothing
      }
      <p role="status" class="hint">${loading ? 'Loading the usage…' : ''}</p>
      ${view.error}
      <div class="buttons">
        ${dialog.error && !usage ? html`<button @click=${view.retry}>Try again</button>` : nothing}
        <button class="primary" autofocus @click=${view.close}>Close</button>
      </div>
    </dialog>
  `;
}

/**
 * The totals, with a last use the counts do not have yet said so; the calls per day; the refusals by
 * reason; the accepted calls by tool, those that named no tool among them.
 */
function usagePanel(usage: CredentialUsage, lastUsedAt: string | null): TemplateResult {
  const refused = refusedCount(usage.total.refused);
  const late = lastUseNotCounted(lastUsedAt, usage.buckets);
  const tools = callsByTool(usage.total);
  return html`
    <p class="totals"><strong>${plural(usage.total.calls, 'call')}</strong>, ${refused ? html`<span class="legend-refused">${refused === usage.total.calls ? 'all' : refused} refused</span>` : 'none refused'}.</p>
    ${late && lastUsedAt ? notCountedYet(lastUsedAt) : nothing}
    ${dayBars(usage.buckets, 'Calls per day', late)}
    <div class="usage-columns">
      <section aria-labelledby="refusals-title">
        <h3 id="refusals-title">Refusals by reason</h3>
        ${
          refused
            ? countList(
                usage.total.refused,
                'Refusals by reason',
                (reason) => REFUSAL_WORDS[reason as keyof Refusals] ?? reason,
              )
            : html`<p class="hint">No call was refused.</p>`
        }
      </section>
      <section aria-labelledby="tools-title">
        <h3 id="tools-title">Top tools</h3>
        ${
          Object.keys(tools).length
            ? html`${countList(tools, 'Accepted calls by tool', toolName)}${noToolHint(tools)}`
            : html`<p class="hint">${usage.total.calls ? 'No call was accepted.' : 'No tool was called.'}</p>`
        }
      </section>
    </div>
  `;
}
