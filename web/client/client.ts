import type { ProblemError } from './problem.ts';
import type { components, operations } from './schema.gen.ts';
import { createSender } from './send.ts';

type Schemas = components['schemas'];
export type KeyMetadata = Schemas['KeyMetadata'];
export type Scope = KeyMetadata['scopes'][number];
export type KeyStatus = KeyMetadata['status'];
export type CreateKeyRequest = Schemas['CreateKeyRequest'];
export type CreateKeyResponse = Schemas['CreateKeyResponse'];
export type RotateKeyResponse = Schemas['RotateKeyResponse'];
export type ListKeysResponse = Schemas['ListKeysResponse'];
export type RevokeKeyResponse = Schemas['RevokeKeyResponse'];
export type ListEventsResponse = Schemas['ListEventsResponse'];
/** One event of a key's history (contract §10); narrow on `type` to read its `details`. */
export type KeyEvent = Schemas['KeyEvent'];
export type KeyEventType = KeyEvent['type'];
/** The query of a listing operation, its page size as a number (the URL carries it as text). */
export type PageQuery<Op extends keyof operations> = Omit<
  NonNullable<operations[Op]['parameters']['query']>,
  'limit'
> & { limit?: number };
export type ListEventsQuery = PageQuery<'listKeyEvents'>;
export type ListKeysQuery = PageQuery<'listKeys'>;

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

export interface KeysClient {
  /** One page of the caller's keys, newest first; pass `next_cursor` as `cursor` for the next. */
  list(query?: ListKeysQuery): Promise<ListKeysResponse>;
  /** Creates a key. `api_key` is in this response only: show it once, never store it. */
  create(body: CreateKeyRequest): Promise<CreateKeyResponse>;
  /** Revokes the key and mints its replacement; the old value stops working at once. */
  rotate(keyId: string): Promise<RotateKeyResponse>;
  /** Revokes the key, immediately and idempotently. */
  revoke(keyId: string): Promise<RevokeKeyResponse>;
  /**
   * One page of the events of the key's whole lineage (every key rotated from or into it),
   * newest first; pass `next_cursor` as `cursor` for the next.
   */
  events(keyId: string, query?: ListEventsQuery): Promise<ListEventsResponse>;
}

const COLLECTION = '/v1/mcp/api-keys';
const keyPath = (keyId: string) => `${COLLECTION}/${encodeURIComponent(keyId)}`;

/**
 * A typed client of the management API. Every failure is a `ProblemError`; a network failure
 * (or a CORS refusal) rejects with the browser's `TypeError`. The token travels only in the
 * `Authorization` header; nothing is cached or stored.
 */
export function createKeysClient(options: KeysClientOptions): KeysClient {
  const send = createSender(options);

  return {
    list: (query = {}) => {
      const params = new URLSearchParams();
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      if (query.cursor !== undefined) params.set('cursor', query.cursor);
      if (query.status !== undefined) params.set('status', query.status);
      const search = params.toString();
      return send('GET', search ? `${COLLECTION}?${search}` : COLLECTION);
    },
    create: (body) => send('POST', COLLECTION, body),
    rotate: (keyId) => send('POST', `${keyPath(keyId)}/rotate`),
    revoke: (keyId) => send('DELETE', keyPath(keyId)),
    events: (keyId, query = {}) => {
      const params = new URLSearchParams();
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      if (query.cursor !== undefined) params.set('cursor', query.cursor);
      const search = params.toString();
      return send('GET', `${keyPath(keyId)}/events${search ? `?${search}` : ''}`);
    },
  };
}
