import { html, nothing, type TemplateResult } from 'lit';
import type { CredentialUsage } from '../../client/usage.ts';
import { type Refusals, refusedCount, type UsageBucket } from './charts.ts';
import { DAY_MS, dateTimeFormat, plural } from './format.ts';

/**
 * What the pages say of a credential's calls, so that its figures agree (contract §18): its
 * `last_used_at` is written at once, its counts up to minutes later (at most once a minute per
 * credential and function instance), the counts include refused calls, which `last_used_at` never
 * records, and a call names its tool only through `Mcp-Method` / `Mcp-Name` or its body.
 */

/** A tally as the API answers it: calls, refused by reason, accepted tool calls by tool. */
interface Tally {
  calls: number;
  refused: Refusals;
  tools: Record<string, number>;
}

/** Counted under this name: accepted calls that named no tool (no tool's name can be written so). */
export const NO_TOOL = '(none)';

/** The days `calls_7d` sums (`callsInLastWeek`, lib/keys/model.ts): today and the 7 UTC days before it. */
export const CALLS_7D_DAYS = 8;

/** "Counts can be minutes late": said wherever a use may not be counted yet. */
export const COUNTS_LATE = 'counts can be minutes late';

/** The calls of a tally that were accepted. */
export const acceptedCount = (tally: Omit<Tally, 'tools'>): number =>
  tally.calls - refusedCount(tally.refused);

/**
 * The accepted calls by tool, with those that named none under NO_TOOL: an MCP request other than
 * a tool call (initialize, tools/list), or one from a client that does not name its tool.
 */
export function callsByTool(tally: Tally): Record<string, number> {
  const named = Object.values(tally.tools).reduce((sum, n) => sum + n, 0);
  const unnamed = acceptedCount(tally) - named;
  return unnamed > 0 ? { ...tally.tools, [NO_TOOL]: unnamed } : { ...tally.tools };
}

/** A tool as the pages name it: `code` for a tool's name, words for the calls that named none. */
export function toolName(name: string): TemplateResult | string {
  if (name === NO_TOOL) return 'No tool named';
  if (name === '(other)') return 'Other tools';
  return html`<code>${name}</code>`;
}

/** Why a list of calls by tool has a "No tool named" row, under the list. */
export function noToolHint(counts: Record<string, number>): TemplateResult | typeof nothing {
  if (!counts[NO_TOOL]) return nothing;
  return html`<p class="hint">No tool named: calls that were not a tool call (such as initialize or
    tools/list), or came from a client that does not name the tool (an MCP version before
    2026-07-28 sends no <code>Mcp-Name</code>).</p>`;
}

/**
 * Whether the use `last_used_at` records is not in the counts yet: the day it falls in (of day
 * buckets) counts no accepted call, or it is past the buckets. A use before the buckets is not
 * judged.
 */
export function lastUseNotCounted(lastUsedAt: string | null, buckets: readonly UsageBucket[]): boolean {
  if (!lastUsedAt || buckets.length === 0) return false;
  const at = Date.parse(lastUsedAt);
  if (at < Date.parse(buckets[0]?.start ?? '')) return false;
  const day = buckets.find((b) => Date.parse(b.start) <= at && at < Date.parse(b.start) + DAY_MS);
  return !day || acceptedCount(day) === 0;
}

/** What a key list's row says of its calls over the days `calls_7d` sums. */
export interface RowCalls {
  calls: number;
  /** Unknown until the row's day usage is read, unless every call was refused. */
  refused: number | undefined;
  /** Calls refused as revoked or as expired: a key still set somewhere. */
  after: { revoked: number; expired: number };
  /** `last_used_at` records a use the counts do not have yet. */
  notCounted: boolean;
}

/**
 * A row's calls: from its 30 days of usage once read (then its sparkline and its text agree), else
 * from the list's `calls_7d` and `last_used_at` (an accepted call records `last_used_at` at once:
 * a credential never used has only refused calls).
 */
export function rowCalls(
  key: { calls_7d: number; last_used_at: string | null },
  usage: CredentialUsage | undefined,
  now = Date.now(),
): RowCalls {
  if (usage) {
    const days = usage.buckets.slice(-CALLS_7D_DAYS);
    const sum = (count: (b: UsageBucket) => number) => days.reduce((n, b) => n + count(b), 0);
    return {
      calls: sum((b) => b.calls),
      refused: sum((b) => refusedCount(b.refused)),
      after: { revoked: sum((b) => b.refused.revoked ?? 0), expired: sum((b) => b.refused.expired ?? 0) },
      notCounted: lastUseNotCounted(key.last_used_at, usage.buckets),
    };
  }
  const since = (Math.floor(now / DAY_MS) - (CALLS_7D_DAYS - 1)) * DAY_MS;
  const recent = key.last_used_at !== null && Date.parse(key.last_used_at) >= since;
  return {
    calls: key.calls_7d,
    refused: key.last_used_at === null ? key.calls_7d : undefined,
    after: { revoked: 0, expired: 0 },
    notCounted: recent && key.calls_7d === 0,
  };
}

/** "3 calls in 7 days", "1 refused call in 7 days", "5 calls in 7 days, 2 refused", "Calls not counted yet". */
export function rowCallsText(row: RowCalls): string {
  if (row.notCounted && row.calls === 0) return 'Calls not counted yet';
  if (row.calls > 0 && row.refused === row.calls) return `${plural(row.calls, 'refused call')} in 7 days`;
  const refused = row.refused ? `, ${row.refused} refused` : '';
  return `${plural(row.calls, 'call')} in 7 days${refused}`;
}

/** Under a row's calls: its latest use not counted yet, and presentations after its revocation or expiry. */
export function rowCallsNotes(row: RowCalls): TemplateResult {
  const { revoked, expired } = row.after;
  const after = [
    revoked ? `${plural(revoked, 'time')} after revocation` : '',
    expired ? `${plural(expired, 'time')} after expiry` : '',
  ].filter(Boolean);
  return html`${row.notCounted ? html`<div class="note">${row.calls ? 'The latest not counted yet' : 'Counts can be minutes late'}</div>` : nothing}
    ${after.length ? html`<div class="note warn">Presented ${after.join(' and ')}</div>` : nothing}`;
}

/** The panel's words for a last use the counts do not have yet. */
export function notCountedYet(lastUsedAt: string): TemplateResult {
  return html`<p class="hint">Its last use, <time datetime=${lastUsedAt}>${dateTimeFormat.format(new Date(lastUsedAt))}</time>,
    is not counted yet: ${COUNTS_LATE}.</p>`;
}
