import type { KeysClientOptions } from './client.ts';
import { ProblemError } from './problem.ts';

/**
 * The one request function of the typed clients: the token in the `Authorization` header only,
 * JSON both ways, every failure a `ProblemError`, and one retry after a successful sign-in when
 * `onReauthenticationRequired` asks for it.
 */
export function createSender(options: KeysClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async function send<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
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
      const error = await ProblemError.from(response);
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
