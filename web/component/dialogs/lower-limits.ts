import { html, type nothing, type TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import type { DialogError } from '../shared/dialogs.ts';
import { isApp } from '../shared/format.ts';
import {
  type CallLimits,
  calls,
  fieldMessage,
  LIMIT_FIELDS,
  limitInput,
  limitsSentence,
  readLimits,
} from '../shared/limits.ts';

/** "Lower limits" of a key or app: its own limits, each only lowered or added (contract §19). */
export interface LowerLimits {
  kind: 'limits';
  key: KeyMetadata;
  error?: DialogError;
}

export interface LowerLimitsView {
  dialog: LowerLimits;
  busy: boolean;
  /** The dialog's error as an alert. */
  error: TemplateResult | typeof nothing;
  submit: (event: SubmitEvent) => void;
  cancel: () => void;
  closed: (event: Event) => void;
}

/**
 * The two fields, each starting at the limit it has and going no higher; the API's refusal of
 * one (`limits.<field>`) under it. It needs no recent sign-in: reducing access is never blocked.
 */
export function lowerLimitsDialog(view: LowerLimitsView): TemplateResult {
  const { key, error } = view.dialog;
  const higher = isApp(key)
    ? 'to raise one, revoke the app and connect it again'
    : 'a higher limit takes a new key';
  return html`
    <dialog data-kind="limits" aria-labelledby="limits-title" aria-describedby="limits-text" @close=${view.closed}>
      <form @submit=${view.submit} novalidate>
        <h2 id="limits-title">Lower the limits of “${key.name}”</h2>
        <p id="limits-text">Add a limit it lacks or lower one it has, in calls per UTC minute and day. Its next MCP
          call obeys it. This can’t be undone here: ${higher}.</p>
        ${LIMIT_FIELDS.map(({ field, label, per }) => {
          const held = key.limits[field];
          return limitInput({
            id: `lower-${field}`,
            name: field,
            label,
            value: held,
            max: held,
            hint:
              held === null
                ? 'None now. Empty: it stays without one.'
                : `${calls(held)} ${per} now: at most that. Empty keeps it.`,
            error: fieldMessage(error, `limits.${field}`),
          });
        })}
        ${view.error}
        <div class="buttons">
          <button type="button" @click=${view.cancel}>Cancel</button>
          <button type="submit" class="primary" ?disabled=${view.busy}>Lower limits</button>
        </div>
      </form>
    </dialog>
  `;
}

/** The limits to send (only those that change), or a sentence naming what to fix. */
export function readLowerLimits(
  form: HTMLFormElement,
  key: KeyMetadata,
): { limits: CallLimits } | { problems: string } {
  const read = readLimits(new FormData(form), key.limits);
  if (read.problems.length) return { problems: read.problems.join(' ') };
  const limits: CallLimits = {};
  for (const { field } of LIMIT_FIELDS) {
    const asked = read.limits[field];
    if (asked !== undefined && asked !== key.limits[field]) limits[field] = asked;
  }
  if (Object.keys(limits).length === 0)
    return { problems: 'Nothing to change: enter a number below its limit now, or a limit it has none of.' };
  return { limits };
}

/** What the page says once the limits are lowered. */
export const loweredText = (key: KeyMetadata) => `“${key.name}” may now make ${limitsSentence(key.limits)}.`;
