import { listKeyEvents } from '#lib/events/history';
import { route } from '#lib/http/route';
import { KeyIdPath, ListEventsQuery } from '#lib/http/schemas';
import { REQUEST_LIMITS } from '#lib/limits';
import { logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';

/** GET /v1/mcp/api-keys/{key_id}/events: the key's lineage history, newest first. */
export function listEventsHandler({ service }: Runtime) {
  return route(
    { operation: 'listEvents', path: KeyIdPath, query: ListEventsQuery, now: service.now },
    async ({ path, query, caller }) => {
      logger.appendKeys({ key_id: path.key_id });
      const page = await listKeyEvents(service, {
        userId: caller.userId,
        keyId: path.key_id,
        limit: query.limit ?? REQUEST_LIMITS.pageSize.default,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },
  );
}
