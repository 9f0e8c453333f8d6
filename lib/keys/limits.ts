import type { RulesByWorkspace } from '#lib/access/tools';
import { DAY_MS } from '#lib/limits';

/**
 * Limits (contract §19): calls per UTC minute and per UTC day, set by a credential's owner and
 * capped by its workspaces' policies, the smallest applying. Pure: the windows, the effective
 * limits, the stored counters' names and the sentence of a refusal. The counting across function
 * instances is the limiter's (limiter.ts).
 */

/** A credential's own limits; an absent one is no limit. */
export interface Limits {
  per_minute?: number;
  per_day?: number;
}

/** Whether a credential's own limits set any. */
export const hasLimits = (limits: Limits | undefined): limits is Limits =>
  limits?.per_minute !== undefined || limits?.per_day !== undefined;

export const LIMIT_WINDOWS = ['minute', 'day'] as const;
export type LimitWindow = (typeof LIMIT_WINDOWS)[number];

const FIELD: Record<LimitWindow, keyof Limits> = { minute: 'per_minute', day: 'per_day' };

/** One window's limit and who set it: the owner, or the policy of `workspace_id`. */
export interface EffectiveLimit {
  window: LimitWindow;
  limit: number;
  by: 'credential' | 'policy';
  workspace_id?: string;
}

/** The smallest limit of each window among the credential's own and its workspaces' policies. */
export function effectiveLimits(
  own: Limits | undefined,
  rules: RulesByWorkspace | undefined,
  workspaceIds: readonly string[],
): EffectiveLimit[] {
  const limits: EffectiveLimit[] = [];
  for (const window of LIMIT_WINDOWS) {
    const field = FIELD[window];
    let best: EffectiveLimit | undefined = own?.[field]
      ? { window, limit: own[field], by: 'credential' }
      : undefined;
    for (const id of workspaceIds) {
      const cap = rules?.[id]?.[field];
      if (cap !== undefined && (!best || cap < best.limit))
        best = { window, limit: cap, by: 'policy', workspace_id: id };
    }
    if (best) limits.push(best);
  }
  return limits;
}

/** A window at `now`: its id (the UTC minute `YYYY-MM-DDTHH:MM` or day `YYYY-MM-DD`) and when it ends. */
export function windowAt(window: LimitWindow, now: Date): { id: string; endsAt: Date } {
  const iso = now.toISOString();
  if (window === 'minute')
    return { id: iso.slice(0, 16), endsAt: new Date(Date.parse(`${iso.slice(0, 16)}:00.000Z`) + 60_000) };
  return { id: iso.slice(0, 10), endsAt: new Date(Date.parse(`${iso.slice(0, 10)}T00:00:00.000Z`) + DAY_MS) };
}

/** The counters a limited credential's item holds, one per window (`rate_<window id>`). */
export const RATE_PREFIX = 'rate_';
export const rateAttribute = (windowId: string): string => `${RATE_PREFIX}${windowId}`;

/**
 * The counters found on a stored item (a verification's read): name → calls counted; a record
 * read through the store has them gathered in `rate_counts`.
 */
export function rateCountsOf(item: object | undefined): Record<string, number> {
  const gathered = (item as { rate_counts?: Record<string, number> } | undefined)?.rate_counts;
  if (gathered) return gathered;
  const counts: Record<string, number> = {};
  for (const [name, value] of Object.entries(item ?? {}))
    if (name.startsWith(RATE_PREFIX) && typeof value === 'number') counts[name] = value;
  return counts;
}

/** A refused call over a limit: what the sentence and `Retry-After` say. */
export interface RateDenial extends EffectiveLimit {
  kind: 'api_key' | 'oauth';
  /** When the window ends (ISO 8601): it can call again then. */
  until: string;
  /** Whole seconds to the window's end, at least 1. */
  retry_after: number;
}

const count = new Intl.NumberFormat('en-US');

/**
 * The sentence a person reads at 429 (contract §19): "This key made its 1,000 calls for today, the
 * limit its owner set; it can call again at 00:00 UTC." No quote or backslash: a REST API's
 * gateway response carries it in a JSON template as is.
 */
export function rateSentence(denial: RateDenial): string {
  const who = denial.kind === 'api_key' ? 'This key' : 'This app';
  const calls = `${count.format(denial.limit)} ${denial.limit === 1 ? 'call' : 'calls'}`;
  const period = denial.window === 'minute' ? 'this minute' : 'today';
  const setBy =
    denial.by === 'credential'
      ? 'the limit its owner set'
      : `the limit the policy of workspace ${denial.workspace_id} sets`;
  const at = denial.until.slice(11, 16);
  const when = denial.window === 'day' ? `at ${at} UTC` : `at ${at} UTC, in ${denial.retry_after} s`;
  return `${who} made its ${calls} for ${period}, ${setBy}; it can call again ${when}.`;
}
