import * as z from 'zod';
import { Cursor, KeyMetadataSchema, PageLimit, pageOf, pageRequest } from '#lib/http/schemas';
import { listKeys } from '#lib/keys/lifecycle';
import { KEY_STATUSES } from '#lib/keys/model';
import { defineRoute, ok, pagedList } from './route-module.ts';

export const ListKeysQuery = z.strictObject({
  limit: PageLimit,
  cursor: Cursor,
  status: z.enum(KEY_STATUSES).optional().meta({ description: 'Only keys with this status (default: all).' }),
});

/** A key of the list: its metadata and its last seven days' calls (contract §18). */
export const KeyListItemSchema = KeyMetadataSchema.extend({
  calls_7d: z.int().nonnegative().meta({
    description:
      'Calls presenting the key in the last seven days, allowed or refused (written at most a minute late).',
  }),
}).meta({ id: 'KeyListItem' });

export const ListKeysResponse = pageOf(KeyListItemSchema, 'ListKeysResponse');

/** GET /v1/mcp/api-keys: the caller's keys, newest first, never a secret. */
export default defineRoute({
  name: 'list-keys',
  operationId: 'listKeys',
  method: 'GET',
  path: '/v1/mcp/api-keys',
  auth: 'jwt',
  summary: 'List the caller’s keys, newest first',
  description:
    'Metadata only, never a secret or a digest. `status` filters; `next_cursor` is bound to the caller and answers 400 `invalid_cursor` to anyone else.',
  tag: 'api-keys',
  request: { query: ListKeysQuery },
  success: { status: 200, description: 'A page of keys.', schema: ListKeysResponse },
  ...pagedList([{ actions: ['dynamodb:Query'], on: ['keys-by-user'] }]),
  handle:
    ({ service }) =>
    async ({ query, caller }) => {
      return ok(
        await listKeys(service, { userId: caller.userId, ...pageRequest(query), status: query.status }),
      );
    },
});
