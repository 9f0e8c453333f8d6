import { css, html, nothing, svg, type TemplateResult } from 'lit';
import type { CredentialUsage } from '../../client/usage.ts';
import { DAY_MS, plural } from './format.ts';

/**
 * The usage pictures (contract §18): SVG drawn with attributes only (the pages' CSP allows no
 * inline style), each with its text alternative: a chart is `role="img"` named by a summary, and
 * its numbers are on the page as text or in a visually hidden table.
 */

/** One day of a credential's usage, as the API answers it. */
export type UsageBucket = CredentialUsage['buckets'][number];
/** Refusals by reason (contract §7), as the API counts them. */
export type Refusals = UsageBucket['refused'];

/** The days the pictures show: today and the 29 before it. */
export const USAGE_DAYS = 30;

/** The start of the first of the last `days` days (UTC, as the API cuts days): the range's `from`. */
export function daysFrom(days: number = USAGE_DAYS, now: number = Date.now()): string {
  return new Date((Math.floor(now / DAY_MS) - (days - 1)) * DAY_MS).toISOString();
}

/** A bucket's day, as the API cuts days (UTC). */
export const dayFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const day = (iso: string) => dayFormat.format(new Date(iso));

/** Each refusal reason in words. */
export const REFUSAL_WORDS: Record<keyof Refusals, string> = {
  revoked: 'Revoked',
  expired: 'Expired',
  no_access: 'No access to the workspace',
  wrong_resource: 'Meant for another MCP server',
  tool_not_allowed: 'A tool it may not call',
  rate_limited: 'Over its limit',
};

const total = (counts: readonly { calls: number }[]) => counts.reduce((sum, c) => sum + c.calls, 0);
/** The refused calls of a tally. */
export const refusedCount = (refused: Refusals) =>
  Object.values(refused).reduce((sum: number, n) => sum + (n ?? 0), 0);

/**
 * "9 calls in 30 days, most on Nov 27 (5)", "4 calls in 30 days, 4 refused, most on…", or "No calls
 * in 30 days"; with `late` (a use the counts do not have yet), "…; the latest not counted yet" or
 * "No calls counted yet in 30 days".
 */
export function callsSummary(buckets: readonly UsageBucket[], late = false): string {
  const days = plural(buckets.length, 'day');
  const calls = total(buckets);
  const latest = late ? '; the latest not counted yet' : '';
  if (calls === 0) return late ? `No calls counted yet in ${days}` : `No calls in ${days}`;
  const refused = buckets.reduce((sum, b) => sum + refusedCount(b.refused), 0);
  const busiest = buckets.reduce((best, b) => (b.calls > best.calls ? b : best));
  return `${plural(calls, 'call')} in ${days}${refused ? `, ${refused} refused` : ''}, most on ${day(busiest.start)} (${busiest.calls})${latest}`;
}

const SPARK = { step: 3, height: 22 };

/** A row's sparkline: calls per day as a line over the range, named by its summary (`late` as callsSummary's). */
export function sparkline(buckets: readonly UsageBucket[], late = false): TemplateResult {
  const max = Math.max(1, ...buckets.map((b) => b.calls));
  const width = Math.max(1, buckets.length - 1) * SPARK.step;
  const y = (calls: number) => (SPARK.height - 1 - ((SPARK.height - 2) * calls) / max).toFixed(1);
  const points = buckets.map((b, i) => `${i * SPARK.step},${y(b.calls)}`).join(' ');
  return html`<svg class="spark" role="img" aria-label=${`Calls per day: ${callsSummary(buckets, late)}`}
    width=${width} height=${SPARK.height} viewBox="0 0 ${width} ${SPARK.height}">
    <line x1="0" x2=${width} y1=${SPARK.height - 0.5} y2=${SPARK.height - 0.5} class="axis"></line>
    <polyline points=${points} fill="none"></polyline>
  </svg>`;
}

const BARS = { step: 10, bar: 7, height: 80 };

/**
 * Calls per day as bars, refused calls in a darker part of each, with the summary as its name and
 * every day's numbers in a visually hidden table; `late` as callsSummary's.
 */
export function dayBars(buckets: readonly UsageBucket[], caption: string, late = false): TemplateResult {
  const busiest = Math.max(0, ...buckets.map((b) => b.calls));
  const max = Math.max(1, busiest);
  const height = (n: number) => (n === 0 ? 0 : Math.max(2, Math.round((BARS.height * n) / max)));
  const width = buckets.length * BARS.step;
  const first = buckets[0];
  const last = buckets.at(-1);
  return html`<figure class="chart">
    <svg role="img" aria-label=${`${caption}: ${callsSummary(buckets, late)}`} width="100%" height=${BARS.height + 1}
      viewBox="0 0 ${width} ${BARS.height + 1}" preserveAspectRatio="none">
      <line x1="0" x2=${width} y1=${BARS.height + 0.5} y2=${BARS.height + 0.5} class="axis"></line>
      ${buckets.map((b, i) => {
        const all = height(b.calls);
        const refused = Math.min(all, height(refusedCount(b.refused)));
        return svg`<rect x=${i * BARS.step} y=${BARS.height - all} width=${BARS.bar} height=${all - refused}></rect>
          <rect class="refused" x=${i * BARS.step} y=${BARS.height - refused} width=${BARS.bar} height=${refused}></rect>`;
      })}
    </svg>
    ${
      first && last
        ? html`<figcaption class="axis-labels" aria-hidden="true"><span>${day(first.start)}</span>
          <span>most in a day: ${busiest}</span><span>${day(last.start)}</span></figcaption>`
        : nothing
    }
    <table class="visually-hidden">
      <caption>${caption}</caption>
      <thead><tr><th scope="col">Day</th><th scope="col">Calls</th><th scope="col">Refused</th></tr></thead>
      <tbody>${buckets.map(
        (b) =>
          html`<tr><th scope="row">${day(b.start)}</th><td>${b.calls}</td><td>${refusedCount(b.refused)}</td></tr>`,
      )}</tbody>
    </table>
  </figure>`;
}

/** A count beside its share of the largest, as a bar: the number is the text, the bar decoration. */
export function meter(count: number, max: number): TemplateResult {
  const width = max > 0 ? Math.max(count > 0 ? 2 : 0, Math.round((80 * count) / max)) : 0;
  return html`<svg class="meter" aria-hidden="true" focusable="false" width="80" height="8" viewBox="0 0 80 8">
    <rect class="track" width="80" height="8"></rect><rect width=${width} height="8"></rect>
  </svg>`;
}

/** Counts by name, most first, as a list of names, numbers and bars; `limit` names at most. */
export function countList(
  counts: Record<string, number | undefined>,
  label: string,
  words: (name: string) => TemplateResult | string = (name) => name,
  limit = 10,
): TemplateResult {
  const sorted = Object.entries(counts)
    .filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, limit);
  const max = sorted[0]?.[1] ?? 0;
  return html`<ul class="counts" aria-label=${label}>
    ${sorted.map(([name, n]) => html`<li><span class="name">${words(name)}</span>${meter(n, max)}<span class="n">${n}</span></li>`)}
  </ul>`;
}

/** The charts' look, for an element's styles. */
export const chartStyles = css`
  svg.spark, svg.meter { vertical-align: middle; }
  svg polyline { stroke: #1f4fd1; stroke-width: 1.5; }
  svg .axis { stroke: #8c8c99; stroke-width: 1; }
  svg rect { fill: #1f4fd1; }
  svg rect.refused { fill: #a3140b; }
  svg rect.track { fill: #ececf0; }
  .usage-cell { white-space: nowrap; }
  .usage-cell .note { margin: 0 0 0.25rem; }
  button.small { font-size: 0.85rem; padding: 0.1rem 0.5rem; }
  figure.chart { margin: 0.5rem 0; }
  .axis-labels { display: flex; justify-content: space-between; font-size: 0.8rem; color: #4a4a55; }
  ul.counts { list-style: none; margin: 0.25rem 0; padding: 0; }
  ul.counts li { display: grid; grid-template-columns: minmax(8rem, 1fr) 80px 3rem; gap: 0.5rem; align-items: center; }
  ul.counts .n { text-align: right; font-variant-numeric: tabular-nums; }
  .legend-refused { color: #a3140b; }
`;
