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

/** A key's (or connected app's) usage panel: calls per day over 30 days, refusals by reason, top tools. */
export interface KeyUsage {
  kind: 'usage';
  key: KeyMetadata;
  usage?: CredentialUsage;
  loading: boolean;
  error?: DialogError;
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
  error: TemplateResult | typeof nothing;
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
        allowed or refused, by day (UTC). Counts can be up to a minute late.</p>
      ${usage ? usagePanel(usage) : nothing}
      <p role="status" class="hint">${loading ? 'Loading the usage…' : ''}</p>
      ${view.error}
      <div class="buttons">
        ${dialog.error && !usage ? html`<button @click=${view.retry}>Try again</button>` : nothing}
        <button class="primary" autofocus @click=${view.close}>Close</button>
      </div>
    </dialog>
  `;
}

function usagePanel(usage: CredentialUsage): TemplateResult {
  const refused = refusedCount(usage.total.refused);
  const tools = Object.keys(usage.total.tools).length;
  return html`
    <p class="totals"><strong>${plural(usage.total.calls, 'call')}</strong>, ${refused ? html`<span class="legend-refused">${refused} refused</span>` : 'none refused'}.</p>
    ${dayBars(usage.buckets, 'Calls per day')}
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
          tools
            ? countList(usage.total.tools, 'Tool calls by tool', (name) => html`<code>${name}</code>`)
            : html`<p class="hint">No tool was called.</p>`
        }
      </section>
    </div>
  `;
}
