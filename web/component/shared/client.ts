import { createKeysClient, type KeysClient, type ProblemError } from '../../client/index.ts';

/** What an element tells its client: where the API is and who is signed in. */
export interface ClientHost {
  /** The API's origin; '' is the page's own. */
  baseUrl: string;
  getToken: (() => string | Promise<string>) | undefined;
}

/**
 * The typed client of an element, made again when its `baseUrl` changes. It asks `getToken` before
 * every request, and `reauthenticate` (a {@link ReauthController}'s `ask`) on a 401 that signing in
 * again can fix.
 */
export class ElementClient {
  readonly #host: ClientHost;
  readonly #reauthenticate: (error: ProblemError) => Promise<boolean>;
  #cached: { baseUrl: string; client: KeysClient } | undefined;

  constructor(host: ClientHost, reauthenticate: (error: ProblemError) => Promise<boolean>) {
    this.#host = host;
    this.#reauthenticate = reauthenticate;
  }

  get api(): KeysClient {
    const { baseUrl } = this.#host;
    if (this.#cached?.baseUrl !== baseUrl) {
      const client = createKeysClient({
        baseUrl,
        token: async () => {
          if (!this.#host.getToken) throw new Error('not signed in');
          return this.#host.getToken();
        },
        onReauthenticationRequired: this.#reauthenticate,
      });
      this.#cached = { baseUrl, client };
    }
    return this.#cached.client;
  }
}
