import { html, nothing, type TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import type { CredentialUsage } from '../../client/usage.ts';
import { isApp, plural } from '../shared/format.ts';
import { listed } from '../shared/tools.ts';

/** What the usage panel says of a credential's tools, and the restriction it may offer. */
export interface LeastPrivilegeView {
  key: KeyMetadata;
  usage: CredentialUsage;
  /** A restriction is being sent. */
  busy: boolean;
  /** The tools it was just restricted to. */
  restricted: readonly string[] | undefined;
  restrict: (tools: string[]) => void;
}

const names = (tools: readonly string[]) =>
  html`${tools.map((t, i) => html`${i ? ', ' : ''}<code>${t}</code>`)}`;

/**
 * Least privilege from usage (contract §19): how many of the tools it may call it called in 30
 * days, and "Restrict to these tools" only when that takes away nothing it may be using: it called
 * some but not all, and every call named its tool. Otherwise, why not.
 */
export function leastPrivilege(view: LeastPrivilegeView): TemplateResult {
  const { key, usage } = view;
  const used = usage.tools_used_30d;
  const unknown = usage.calls_tool_unknown_30d;
  const offered =
    key.status === 'active' && unknown === 0 && used.length > 0 && used.length < usage.tools.length;
  return html`
    <section aria-labelledby="least-title">
      <h3 id="least-title">Tools it may call</h3>
      <p><strong>Used ${used.length} of its ${plural(usage.tools.length, 'tool')} in 30 days</strong>${
        used.length ? html`: ${names(used)}.` : '.'
      }</p>
      <p class="hint">It may call ${usage.tools.length ? names(usage.tools) : 'no tool'}${
        key.tools === null ? ': every tool its scopes allow' : ''
      }.</p>
      ${
        view.restricted
          ? html`<p class="notice" id="restricted" role="status" tabindex="-1">Restricted: it may now call only
              ${listed(view.restricted)}.</p>`
          : offered
            ? restrictButton(view, used)
            : key.status === 'active'
              ? html`<p class="hint">${notOffered(unknown, used.length, isApp(key))}</p>`
              : nothing
      }
    </section>
  `;
}

function restrictButton(view: LeastPrivilegeView, used: readonly string[]): TemplateResult {
  const again = isApp(view.key)
    ? 'the app asks for more when it signs in again'
    : 'to call another tool later, create a new key';
  return html`
    <p class="hint" id="restrict-hint">It may then call only ${listed(used)}; any other tool is refused. This
      can’t be undone here: ${again}.</p>
    <button aria-describedby="restrict-hint" ?disabled=${view.busy} @click=${() => view.restrict([...used])}>
      Restrict to these tools</button>
  `;
}

/** Why "Restrict to these tools" is not offered for an active credential. */
function notOffered(unknown: number, used: number, app: boolean): string {
  if (unknown > 0)
    return `Restricting it is not offered: ${plural(unknown, 'call')} in 30 days did not name ${unknown === 1 ? 'its' : 'their'} tool (a client before MCP 2026-07-28 sends no Mcp-Name header), so it may be using a tool not listed here.`;
  if (used === 0)
    return `It called none of its tools in 30 days, so there is nothing to restrict it to${app ? '' : ': revoke it if it is not needed'}.`;
  return 'It used every tool it may call.';
}
