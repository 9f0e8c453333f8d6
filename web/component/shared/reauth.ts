import { type LitElement, nothing, type TemplateResult } from 'lit';
import type { ProblemError } from '../../client/index.ts';
import { signInAgainDialog } from '../dialogs/sign-in-again.ts';
import { emit } from './dialogs.ts';
import type { ReauthenticateDetail } from './events.ts';

export type { ReauthenticateDetail } from './events.ts';

interface Pending {
  error: ProblemError;
  waiting: boolean;
  unhandled: boolean;
  settle: (signedIn: boolean) => void;
}

/**
 * Signing in again in the middle of an action. `ask` is the typed client's
 * `onReauthenticationRequired` hook: it shows the prompt, and "Sign in again" fires
 * `svc-mcp-reauthenticate` for the host page; the request is retried once the page calls
 * `resume()`, and fails with its 401 on Cancel or `cancel()`.
 */
export class ReauthController {
  readonly #host: LitElement;
  #pending: Pending | undefined;

  constructor(host: LitElement) {
    this.#host = host;
  }

  readonly ask = (error: ProblemError): Promise<boolean> => {
    this.#pending?.settle(false);
    return new Promise<boolean>((resolve) => {
      const settle = (signedIn: boolean) => {
        if (this.#pending?.settle !== settle) return;
        this.#set(undefined);
        resolve(signedIn);
      };
      this.#set({ error, waiting: false, unhandled: false, settle });
    });
  };

  /** The prompt while one is pending. */
  render(): TemplateResult | typeof nothing {
    const pending = this.#pending;
    if (!pending) return nothing;
    return signInAgainDialog({
      error: pending.error,
      waiting: pending.waiting,
      unhandled: pending.unhandled,
      signIn: () => this.#signInAgain(pending),
      cancel: () => pending.settle(false),
    });
  }

  #signInAgain(pending: Pending): void {
    const detail: ReauthenticateDetail = {
      reason:
        pending.error.code === 'reauthentication_required' ? 'reauthentication_required' : 'unauthorized',
      maxAge: pending.error.challenge?.maxAge,
      resume: () => pending.settle(true),
      cancel: () => pending.settle(false),
    };
    const handled = !emit(this.#host, 'svc-mcp-reauthenticate', detail, true);
    if (this.#pending === pending) this.#set({ ...pending, waiting: handled, unhandled: !handled });
  }

  #set(pending: Pending | undefined): void {
    this.#pending = pending;
    this.#host.requestUpdate();
  }
}
