import * as z from 'zod';
import { Cursor, KeyEventSchema, KeyIdPath, PageLimit, pageOf, pageRequest } from '#lib/http/schemas';
import { listKeyEvents } from '#lib/keys/history';
import { LINEAGE_PREFIX } from '#lib/store/items';
import { defineRoute, ok, pagedList } from './route-module.ts';

export const ListEventsQuery = z.strictObject({ limit: PageLimit, cursor: Cursor });

export const ListEventsResponse = pageOf(KeyEventSchema, 'ListEventsResponse');

/** GET /v1/mcp/api-keys/{key_id}/events: the key's lineage history, newest first. */
export default defineRoute({
  name: 'list-events',
  operationId: 'listKeyEvents',
  method: 'GET',
  path: '/v1/mcp/api-keys/{key_id}/events',
  auth: 'jwt',
  summary: 'A key’s history: the events of its whole lineage, newest first',
  description:
    'The events of the key and of every key rotated from or into it (`key.created`, `key.rotated`, `key.revoked`, `key.leak_revoked`, `key.expiring`, `key.expired`). Each is written in the same transaction as the change it records. The same events are published to Amazon EventBridge (source `svc.mcp-api-keys`, detail-type = `type`, at least once: dedupe by `id`).',
  tag: 'api-keys',
  request: { params: KeyIdPath, query: ListEventsQuery },
  success: { status: 200, description: 'A page of events.', schema: ListEventsResponse },
  ...pagedList(
    [
      { actions: ['dynamodb:GetItem'], on: ['keys'] },
      {
        actions: ['dynamodb:Query'],
        on: ['keys'],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${LINEAGE_PREFIX}*`] } },
      },
    ],
    ['not_found'],
  ),
  handle:
    ({ service }) =>
    async ({ path, query, caller }) =>
      ok(await listKeyEvents(service, { userId: caller.userId, keyId: path.key_id, ...pageRequest(query) })),
});
