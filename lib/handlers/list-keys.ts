import { route } from '#lib/http/route';
import { ListKeysQuery } from '#lib/http/schemas';
import { listKeys } from '#lib/keys/lifecycle';
import { REQUEST_LIMITS } from '#lib/limits';
import type { Runtime } from '#lib/runtime';

/** GET /v1/mcp/api-keys: the caller's keys, newest first, never a secret. */
export function listKeysHandler({ service }: Runtime) {
  return route(
    { operation: 'listKeys', query: ListKeysQuery, now: service.now },
    async ({ query, caller }) => {
      const page = await listKeys(service, {
        userId: caller.userId,
        limit: query.limit ?? REQUEST_LIMITS.pageSize.default,
        cursor: query.cursor,
        status: query.status,
      });
      return { status: 200, body: page };
    },
  );
}
