import { html, nothing, type TemplateResult } from 'lit';
import { type CreateKeyRequest, type KeyMetadata, ProblemError } from '../../client/index.ts';

/**
 * How often a credential may call (contract §19), as the elements ask for it and say it: the two
 * number fields of create, consent and "Lower limits", what they send, and "312 of 1,000 today".
 * The limits themselves (the smallest of its own and its workspaces' caps) are the API's rule.
 */

/** Calls per UTC minute and day, as create, consent and the PATCH take them; one left out is no limit. */
export type CallLimits = NonNullable<CreateKeyRequest['limits']>;
export type LimitField = keyof CallLimits;

/** Each field: the label a person reads, the window it counts, and the window's words. */
export const LIMIT_FIELDS = [
  {
    field: 'per_minute',
    label: 'Calls per minute',
    window: 'minute',
    period: 'this minute',
    per: 'a minute',
  },
  { field: 'per_day', label: 'Calls per day', window: 'day', period: 'today', per: 'a day' },
] as const satisfies readonly { field: LimitField; window: 'minute' | 'day'; [word: string]: string }[];

/** A count in the reader's locale: 1,000. */
export const calls = (n: number) => new Intl.NumberFormat().format(n);

/** The message the API gave for `path` (`limits.per_day`, `max_calls_per_day`), if it refused it. */
export function fieldMessage(error: unknown, path: string): string | undefined {
  if (!(error instanceof ProblemError)) return undefined;
  return error.errors.find((e) => e.path === path)?.message;
}

export interface LimitInputView {
  /** The element id of the input; its hint and error are `<id>-hint` and `<id>-error`. */
  id: string;
  /** The form field's name. */
  name: string;
  label: string;
  hint: string;
  /** The value it starts with. */
  value?: number | null;
  /** The most it may be (a limit held is only lowered). */
  max?: number | null;
  /** The API's message for the field: shown under it and describing it. */
  error?: string | undefined;
}

/** A whole number of calls, at least 1, or empty: labelled, hinted, its error under it. */
export function limitInput(view: LimitInputView): TemplateResult {
  const { id, error } = view;
  return html`
    <label for=${id}>${view.label}</label>
    <input id=${id} name=${view.name} type="number" inputmode="numeric" min="1" step="1"
      max=${view.max ?? nothing} .value=${view.value == null ? '' : String(view.value)} autocomplete="off"
      aria-describedby=${error ? `${id}-hint ${id}-error` : `${id}-hint`} aria-invalid=${Boolean(error)} />
    <p class="hint" id=${`${id}-hint`}>${view.hint}</p>
    ${error ? html`<p class="field-error" id=${`${id}-error`}>${view.label}: ${error}</p>` : nothing}
  `;
}

/**
 * The two fields of create and consent (empty: no limit), in a fieldset; each shows the API's
 * refusal of `limits.<field>`.
 */
export function limitFields(what: 'key' | 'app', error: unknown): TemplateResult {
  return html`
    <fieldset aria-describedby="limits-hint">
      <legend>Limits</legend>
      <p class="hint" id="limits-hint">How often an AI client may call with this ${what}, in UTC minutes and days.
        Empty: no limit of its own. A workspace’s policy may set a lower one.</p>
      ${LIMIT_FIELDS.map(({ field, label, window }) =>
        limitInput({
          id: `limit-${field}`,
          name: field,
          label,
          hint: window === 'minute' ? 'Counted from each minute’s start.' : 'Counted from 00:00 UTC.',
          error: fieldMessage(error, `limits.${field}`),
        }),
      )}
    </fieldset>
  `;
}

/**
 * The limits a form's fields ask for, and a sentence for each that is not a whole number from 1
 * or is above `held` (the limit it has: only lowered); an empty field asks for none.
 */
export function readLimits(
  data: FormData,
  held: KeyMetadata['limits'] = { per_minute: null, per_day: null },
): { limits: CallLimits; problems: string[] } {
  const limits: CallLimits = {};
  const problems: string[] = [];
  for (const { field, label } of LIMIT_FIELDS) {
    const raw = String(data.get(field) ?? '').trim();
    if (raw === '') continue;
    const n = Number(raw);
    const most = held[field];
    if (!Number.isInteger(n) || n < 1)
      problems.push(`${label}: enter a whole number of calls, at least 1, or leave it empty.`);
    else if (most !== null && n > most)
      problems.push(`${label}: at most ${calls(most)}, its limit now; a limit can only be lowered here.`);
    else limits[field] = n;
  }
  return { limits, problems };
}

/** One limit that applies, as its row says it: "312 of 1,000 today", and who set it when a policy did. */
function limitLine(
  limit: KeyMetadata['effective_limits'][number],
  own: number | null,
  nameOf: (workspaceId: string) => string,
): string {
  const window = LIMIT_FIELDS.find((f) => f.window === limit.window) ?? LIMIT_FIELDS[1];
  const count = `${calls(limit.calls)} of ${calls(limit.limit)} ${window.period}`;
  if (limit.by !== 'policy' || !limit.workspace_id) return count;
  const its = own === null ? '' : ` (its own: ${calls(own)} ${window.per})`;
  return `${count}, the policy of ${nameOf(limit.workspace_id)}${its}`;
}

/** A credential's limits as its row says them: each that applies with its calls counted, or none. */
export function limitsText(key: KeyMetadata, nameOf: (workspaceId: string) => string): TemplateResult {
  if (key.effective_limits.length === 0) return html`<div class="note">No limit</div>`;
  return html`<ul class="plain note">${key.effective_limits.map((limit) => {
    const own = key.limits[limit.window === 'minute' ? 'per_minute' : 'per_day'];
    return html`<li>${limitLine(limit, own, nameOf)}</li>`;
  })}</ul>`;
}

/** Limits as a sentence: "at most 60 calls a minute and 1,000 a day"; empty for none. */
export function limitsSentence(limits: { per_minute?: number | null; per_day?: number | null }): string {
  const parts = LIMIT_FIELDS.flatMap(({ field, per }) => {
    const n = limits[field];
    return n == null ? [] : [{ n, per }];
  });
  const said = parts.map(({ n, per }, i) =>
    i === 0 ? `${calls(n)} ${n === 1 ? 'call' : 'calls'} ${per}` : `${calls(n)} ${per}`,
  );
  return said.length ? `at most ${said.join(' and ')}` : '';
}
