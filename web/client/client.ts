import { ProblemError } from './problem.ts';
import { createSender, type KeysClientOptions, search } from './send.ts';
import type {
  CreateKeyRequest,
  CreateKeyResponse,
  ListEventsQuery,
  ListEventsResponse,
  ListKeysQuery,
  ListKeysResponse,
  ListMcpToolsResponse,
  RevokeKeyResponse,
  RotateKeyResponse,
  UpdateKeyRequest,
  UpdateKeyResponse,
} from './types.ts';

export type { KeysClientOptions } from './send.ts';

/** The caller's own keys and apps connected through OAuth (`/v1/mcp/api-keys`): what `createKeysClient` returns. */
export interface KeysClient {
  /** One page of the caller's keys, newest first; pass `next_cursor` as `cursor` for the next. */
  list(query?: ListKeysQuery): Promise<ListKeysResponse>;
  /** Creates a key. `api_key` is in this response only: show it once, never store it. */
  create(body: CreateKeyRequest): Promise<CreateKeyResponse>;
  /** Revokes the key and mints its replacement; the old value stops working at once. */
  rotate(keyId: string): Promise<RotateKeyResponse>;
  /** Revokes the key, immediately and idempotently. */
  revoke(keyId: string): Promise<RevokeKeyResponse>;
  /** Narrows a key or an app (its `tools`); never widens. */
  update(keyId: string, body: UpdateKeyRequest): Promise<UpdateKeyResponse>;
  /** The MCP server's tool catalogue: what `tools` may name. */
  tools(): Promise<ListMcpToolsResponse>;
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
  const send = createSender(options, ProblemError.from);

  return {
    list: (query = {}) =>
      send(
        'GET',
        `${COLLECTION}${search({ limit: query.limit, cursor: query.cursor, status: query.status })}`,
      ),
    create: (body) => send('POST', COLLECTION, body),
    rotate: (keyId) => send('POST', `${keyPath(keyId)}/rotate`),
    revoke: (keyId) => send('DELETE', keyPath(keyId)),
    update: (keyId, body) => send('PATCH', keyPath(keyId), body),
    tools: () => send('GET', '/v1/mcp/tools'),
    events: (keyId, query = {}) =>
      send('GET', `${keyPath(keyId)}/events${search({ limit: query.limit, cursor: query.cursor })}`),
  };
}
