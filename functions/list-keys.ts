import { route } from '#lib/http/route';
import { ListKeysQuery } from '#lib/http/schemas';
import { listKeys } from '#lib/keys/lifecycle';
import { getRuntime } from '#lib/runtime';

const { service } = getRuntime();
const DEFAULT_PAGE_SIZE = 50;

/** GET /v1/mcp/api-keys: the caller's keys, newest first, never a secret. */
export const handler = route(
  { operation: 'listKeys', query: ListKeysQuery, now: service.now },
  async ({ query, caller }) => {
    const page = await listKeys(service, {
      userId: caller.userId,
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
      cursor: query.cursor,
      status: query.status,
    });
    return { status: 200, body: page };
  },
);
