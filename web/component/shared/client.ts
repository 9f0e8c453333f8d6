import type { KeysClientOptions, ProblemError } from '../../client/index.ts';

/** What an element tells its client: where the API is and who is signed in. */
export interface ClientHost {
  /** The API's origin; '' is the page's own. */
  baseUrl: string;
  getToken: (() => string | Promise<string>) | undefined;
}

/**
 * The typed client of an element, made again when its `baseUrl` changes. It asks `getToken` before
 * every request and, when given `reauthenticate` (a {@link ReauthController}'s `ask`), asks it on
 * a 401 that signing in again can fix. `create` makes the client (`createKeysClient`,
 * `createWorkspaceClient`).
 */
export class ElementClient<Client> {
  readonly #host: ClientHost;
  readonly #reauthenticate: ((error: ProblemError) => Promise<boolean>) | undefined;
  readonly #create: (options: KeysClientOptions) => Client;
  #cached: { baseUrl: string; client: Client } | undefined;

  constructor(
    host: ClientHost,
    reauthenticate: ((error: ProblemError) => Promise<boolean>) | undefined,
    create: (options: KeysClientOptions) => Client,
  ) {
    this.#host = host;
    this.#reauthenticate = reauthenticate;
    this.#create = create;
  }

  get api(): Client {
    const { baseUrl } = this.#host;
    if (this.#cached?.baseUrl !== baseUrl) {
      const client = this.#create({
        baseUrl,
        token: async () => {
          if (!this.#host.getToken) throw new Error('not signed in');
          return this.#host.getToken();
        },
        ...(this.#reauthenticate && { onReauthenticationRequired: this.#reauthenticate }),
      });
      this.#cached = { baseUrl, client };
    }
    return this.#cached.client;
  }
}
