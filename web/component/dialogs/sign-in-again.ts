import { html, nothing, type TemplateResult } from 'lit';
import type { ProblemError } from '../../client/index.ts';

/** The prompt when the API answers 401: the login is too old for this action, or has ended. */
export function signInAgainDialog(view: {
  error: ProblemError;
  /** The host page is signing the person in. */
  waiting: boolean;
  /** No listener of the host page handled the request to sign in. */
  unhandled: boolean;
  signIn: () => void;
  cancel: () => void;
}): TemplateResult {
  const maxAge = view.error.challenge?.maxAge;
  const minutes = maxAge ? Math.round(maxAge / 60) : undefined;
  const why =
    view.error.code === 'reauthentication_required'
      ? `For your security, this action needs a sign-in from the last ${minutes ?? 15} minutes.`
      : 'Your session has ended.';
  return html`
    <dialog data-reauth role="alertdialog" aria-labelledby="reauth-title" aria-describedby="reauth-text"
      @close=${view.cancel}>
      <h2 id="reauth-title">Sign in again to continue</h2>
      <p id="reauth-text">${why} Sign in again and the action continues where it left off.</p>
      ${view.unhandled ? html`<p class="error" role="alert">This page can’t sign you in here. Reload it and sign in, then try again.</p>` : nothing}
      <div class="buttons">
        <button @click=${view.cancel}>Cancel</button>
        <button class="primary" autofocus ?disabled=${view.waiting} @click=${view.signIn}>
          ${view.waiting ? 'Waiting for sign-in…' : 'Sign in again'}</button>
      </div>
    </dialog>
  `;
}
