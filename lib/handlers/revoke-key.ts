import { route } from '#lib/http/route';
import { KeyIdPath } from '#lib/http/schemas';
import { revokeKey } from '#lib/keys/lifecycle';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';

/** DELETE /v1/mcp/api-keys/{key_id}: immediate, idempotent revocation. */
export function revokeKeyHandler({ service }: Runtime) {
  return route({ operation: 'revokeKey', path: KeyIdPath, now: service.now }, async ({ path, caller }) => {
    logger.appendKeys({ key_id: path.key_id });
    const metadata = await revokeKey(service, caller.userId, path.key_id);
    countMetric('KeysRevoked');
    return { status: 200, body: { metadata } };
  });
}
