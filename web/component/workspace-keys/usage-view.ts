import { html, type LitElement, nothing, type TemplateResult } from 'lit';
import { ProblemError, type WorkspaceKey } from '../../client/index.ts';
import {
  createUsageClient,
  type RevokedStillPresented,
  type UsageGroup,
  type WorkspaceUsage,
  type WorkspaceUsageQuery,
} from '../../client/usage.ts';
import { daysFrom, meter, REFUSAL_WORDS, type Refusals, refusedCount } from '../shared/charts.ts';
import { type ClientHost, ElementClient } from '../shared/client.ts';
import { dateFormat, dateTimeFormat, isApp, plural } from '../shared/format.ts';
import {
  acceptedCount,
  COUNTS_LATE,
  callsByTool,
  NO_TOOL,
  noToolHint,
  toolName,
} from '../shared/usage-figures.ts';

type GroupBy = NonNullable<WorkspaceUsageQuery['group_by']>;
const GROUPINGS: [GroupBy, string][] = [
  ['credential', 'Key or app'],
  ['client', 'Client'],
  ['tool', 'Tool'],
];

/** The element of the usage view: where the API is, who is signed in, and the workspace. */
type UsageHost = LitElement & ClientHost & { workspaceId: string };

/** What the view reads of its element's state. */
export interface UsageContext {
  /** The workspace's name, as the element's headings say it. */
  name: () => string;
  /** The keys and apps the element lists: a credential's group is named after its key. */
  listed: () => readonly WorkspaceKey[];
}

/**
 * `<svc-mcp-workspace-keys>`' usage view (contract §18): the last 30 days of the credentials that
 * reach the workspace, per key or app, per client or per tool, with the revoked ones still
 * presented and those holding write tools they did not call (§19) called out. Read without a
 * sign-in prompt, as the element's other reads.
 */
export class WorkspaceUsageView {
  readonly #host: UsageHost;
  readonly #context: UsageContext;
  readonly #client: ElementClient<ReturnType<typeof createUsageClient>>;
  #groupBy: GroupBy = 'credential';
  #usage: WorkspaceUsage | undefined;
  #error: string | undefined;
  /** Bumped by each load and by `clear`: an answer to an earlier one is dropped. */
  #request = 0;

  constructor(host: UsageHost, context: UsageContext) {
    this.#host = host;
    this.#context = context;
    this.#client = new ElementClient(host, undefined, createUsageClient);
  }

  /** Loads the last 30 days again, grouped as chosen. */
  async load(): Promise<void> {
    const request = ++this.#request;
    try {
      const usage = await this.#client.api.workspaceUsage(this.#host.workspaceId, {
        group_by: this.#groupBy,
        from: daysFrom(),
      });
      if (request !== this.#request) return; // another grouping, or another administrator, meanwhile
      this.#usage = usage;
      this.#error = undefined;
    } catch (error) {
      if (request !== this.#request) return;
      this.#error =
        error instanceof ProblemError ? error.detail : 'The service could not be reached; try again.';
    }
    this.#host.requestUpdate();
  }

  /** Forgets what it showed (another administrator, another workspace). */
  clear(): void {
    this.#request++;
    this.#usage = undefined;
    this.#error = undefined;
  }

  render(): TemplateResult {
    const usage = this.#usage;
    return html`
      <section class="usage" aria-labelledby="usage-title">
        <h3 id="usage-title">Usage in the last 30 days</h3>
        ${this.#error ? html`<p class="error" role="alert">Couldn’t load the usage: ${this.#error}</p>` : nothing}
        ${usage ? revokedStillPresented(usage.revoked_still_presented, this.#context.listed()) : nothing}
        ${usage ? unusedWriteTools(usage.unused_write_tools, this.#context.listed()) : nothing}
        <div class="bar">
          <label>Group by
            <select @change=${(e: Event) => {
              this.#groupBy = (e.target as HTMLSelectElement).value as GroupBy;
              void this.load();
            }}>
              ${GROUPINGS.map(([value, label]) => html`<option value=${value} ?selected=${this.#groupBy === value}>${label}</option>`)}
            </select>
          </label>
        </div>
        ${usage ? this.#table(usage) : html`<p aria-busy="true">Loading the usage…</p>`}
      </section>
    `;
  }

  #table(usage: WorkspaceUsage): TemplateResult {
    const name = this.#context.name();
    const late = notCountedYet(usage, this.#context.listed());
    if (usage.groups.length === 0)
      return html`<p>No call ${late ? 'counted for' : 'reached'} ${name} in these 30 days.</p>${late}`;
    const groups = usage.group_by === 'tool' ? withNoTool(usage) : usage.groups;
    const max = Math.max(...groups.map((g) => g.calls));
    const heading = GROUPINGS.find(([value]) => value === usage.group_by)?.[1] ?? 'Group';
    const refused = refusedCount(usage.total.refused);
    return html`
      <p>${plural(usage.total.calls, 'call')} in all, ${refused} refused.</p>
      <table>
        <caption class="visually-hidden">Calls per ${heading.toLowerCase()} to ${name}, last 30 days, most first</caption>
        <thead><tr><th scope="col">${heading}</th><th scope="col">Calls</th><th scope="col">Refused</th>
          ${usage.group_by === 'tool' ? nothing : html`<th scope="col">Top tools</th>`}</tr></thead>
        <tbody>${groups.map((group) => this.#row(usage.group_by, group, max))}</tbody>
      </table>
      ${noToolHint(callsByTool(usage.total))}${late}
    `;
  }

  #row(groupBy: GroupBy, group: UsageGroup, max: number): TemplateResult {
    const tools = Object.entries(callsByTool(group))
      .sort(([, a], [, b]) => b - a)
      .slice(0, 3);
    return html`<tr>
      <th scope="row">${groupName(groupBy, group, this.#context.listed())}
        ${group.user_id ? html`<div class="note">created by ${group.user_id}</div>` : nothing}</th>
      <td class="usage-cell">${meter(group.calls, max)} ${group.calls}</td>
      <td>${refusals(group.refused)}</td>
      ${
        groupBy === 'tool'
          ? nothing
          : html`<td>${
              tools.length
                ? html`<ul class="plain">${tools.map(([name, n]) => html`<li>${toolName(name)} ${n}</li>`)}</ul>`
                : 'none'
            }</td>`
      }
    </tr>`;
  }
}

/** A group as an administrator knows it: a key by its name (and hint), a client by its name, a tool as is. */
function groupName(
  groupBy: GroupBy,
  group: UsageGroup,
  listed: readonly WorkspaceKey[],
): TemplateResult | string {
  if (groupBy === 'tool') return toolName(group.key);
  if (groupBy === 'client') return group.key === 'api_key' ? 'API keys' : (group.client_name ?? group.key);
  const key = listed.find((k) => k.id === group.key);
  if (key) return html`${key.name} ${isApp(key) ? '(connected app)' : html`<code>${key.key_hint}</code>`}`;
  return `${group.kind && isApp({ kind: group.kind }) ? 'App' : 'Key'} ${group.key.slice(0, 8)}`;
}

/** The tool groups, with the accepted calls that named no tool as one more, most first. */
function withNoTool(usage: WorkspaceUsage): UsageGroup[] {
  const unnamed = callsByTool(usage.total)[NO_TOOL];
  if (!unnamed) return usage.groups;
  const group: UsageGroup = { key: NO_TOOL, calls: unnamed, refused: {}, tools: {} };
  return [...usage.groups, group].sort((a, b) => b.calls - a.calls);
}

/** The groups the API answers at most (the most used first). */
const MAX_GROUPS = 100;

/**
 * The listed keys and apps whose last use (in the range) the counts do not have yet: per key or
 * app, one whose group counts no accepted call; otherwise, any, when no accepted call was counted.
 */
function notCountedYet(
  usage: WorkspaceUsage,
  listed: readonly WorkspaceKey[],
): TemplateResult | typeof nothing {
  const counted = (id: string) => {
    if (usage.group_by !== 'credential') return acceptedCount(usage.total) > 0;
    const group = usage.groups.find((g) => g.key === id);
    // Past the groups the API returns (the most used 100), a credential's counts are not known.
    if (!group) return usage.groups.length >= MAX_GROUPS;
    return acceptedCount(group) > 0;
  };
  const late = listed.filter(
    (k) => k.last_used_at && Date.parse(k.last_used_at) >= Date.parse(usage.from) && !counted(k.id),
  );
  if (late.length === 0) return nothing;
  return html`<p class="hint">Not counted yet: the last use of ${late.map(
    (k, i) => html`${i ? ', ' : ''}<strong>${k.name}</strong>
    (<time datetime=${k.last_used_at ?? ''}>${dateTimeFormat.format(new Date(k.last_used_at ?? 0))}</time>)`,
  )}; ${COUNTS_LATE}.</p>`;
}

function refusals(refused: Refusals): TemplateResult | string {
  const reasons = Object.entries(refused).filter(([, n]) => (n ?? 0) > 0);
  if (reasons.length === 0) return '0';
  return html`<ul class="plain">${reasons.map(
    ([reason, n]) => html`<li>${REFUSAL_WORDS[reason as keyof Refusals] ?? reason}: ${n}</li>`,
  )}</ul>`;
}

/** The revoked credentials still presented in the range: a leaked or forgotten key, named, with how often. */
function revokedStillPresented(
  revoked: readonly RevokedStillPresented[],
  listed: readonly WorkspaceKey[],
): TemplateResult | typeof nothing {
  if (revoked.length === 0) return nothing;
  return html`<section class="warning" aria-labelledby="revoked-title">
    <h4 id="revoked-title">Revoked but still presented</h4>
    <p>Someone still uses ${revoked.length === 1 ? 'this revoked key' : 'these revoked keys'}: each call was refused,
      but the key may have leaked or been left in a client’s configuration. Find where it is set and remove it.</p>
    <ul>${revoked.map((r) => {
      const hint = listed.find((k) => k.id === r.credential_id)?.key_hint;
      return html`<li><strong>${r.name}</strong>${hint ? html` <code>${hint}</code>` : nothing}
        (${isApp(r) ? 'connected app' : 'key'} of ${r.user_id}${r.revoked_at ? `, revoked ${dateFormat.format(new Date(r.revoked_at))}` : ''}):
        presented ${plural(r.presented, 'time')}</li>`;
    })}</ul>
  </section>`;
}

/** A credential holding write or destructive tools here that it did not call in the range (contract §19). */
type UnusedWriteTools = WorkspaceUsage['unused_write_tools'][number];

/**
 * Least privilege for administrators: each key or app that holds write or destructive tools here
 * and did not call them in the 30 days, named, with its calls that named no tool (it may have
 * called them there).
 */
function unusedWriteTools(
  unused: readonly UnusedWriteTools[],
  listed: readonly WorkspaceKey[],
): TemplateResult | typeof nothing {
  if (unused.length === 0) return nothing;
  return html`<section aria-labelledby="unused-title">
    <h4 id="unused-title">Write tools not used in 30 days</h4>
    <p class="hint">Each can change forms here with tools it did not call. Its creator can restrict it to the
      tools it uses from their key page, or you can cut it off.</p>
    <ul>${unused.map((c) => {
      const hint = listed.find((k) => k.id === c.credential_id)?.key_hint;
      const them = c.tools.length === 1 ? 'it' : 'them';
      return html`<li><strong>${c.name}</strong>${hint ? html` <code>${hint}</code>` : nothing}
        (${isApp(c) ? 'connected app' : 'key'} of ${c.user_id}) holds
        ${c.tools.map((t, i) => html`${i ? ', ' : ''}<code>${t}</code>`)} and did not use ${them} in 30 days.${
          c.calls_tool_unknown
            ? html` <span class="note">${plural(c.calls_tool_unknown, 'call')} named no tool, so it may have used ${them}.</span>`
            : nothing
        }</li>`;
    })}</ul>
  </section>`;
}
