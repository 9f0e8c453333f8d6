import type { ProblemError } from './problem.ts';

/** How a client reaches the API and signs its requests (the same for every client of this package). */
export interface KeysClientOptions {
  /** Where the API is, e.g. `https://api.example.com`; '' for the page's own origin. */
  baseUrl: string;
  /** The user's current login token (a JWT); called before every request. */
  token: () => string | Promise<string>;
  /**
   * Called on a 401 that signing in again can fix: `reauthentication_required` (the login is too
   * old to create or rotate a key; `error.challenge.maxAge` says how recent it must be) or
   * `unauthorized` (no valid token). Resolve `true` once the user has signed in again to retry
   * the request once with a fresh `token()`; `false` to give up with the error.
   */
  onReauthenticationRequired?: (error: ProblemError) => boolean | Promise<boolean>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * The one request function of the typed clients: the token in the `Authorization` header only,
 * JSON both ways, every failure a `ProblemError` (read by `problem`, `ProblemError.from`), and one
 * retry after a successful sign-in when `onReauthenticationRequired` asks for it. `problem` is
 * passed in so that a module bundled apart from the client package (web/client/usage.ts in the
 * elements) throws the package's own `ProblemError`.
 */
export function createSender(
  options: KeysClientOptions,
  problem: (response: Response) => Promise<ProblemError>,
) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async function send<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = {
        accept: 'application/json, application/problem+json',
        authorization: `Bearer ${await options.token()}`,
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetchImpl(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
      if (response.ok) return (await response.json()) as T;
      const error = await problem(response);
      const retry =
        attempt === 0 &&
        error.needsSignIn &&
        options.onReauthenticationRequired !== undefined &&
        (await options.onReauthenticationRequired(error)) === true;
      if (!retry) throw error;
    }
  };
}

/** A query string (`?…`, or '' when empty) of the parameters that are set. */
export function search(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
