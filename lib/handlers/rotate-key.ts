import { route } from '#lib/http/route';
import { KeyIdPath } from '#lib/http/schemas';
import { rotateKey } from '#lib/keys/lifecycle';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';
import { issuedReply } from './replies.ts';

/** POST /v1/mcp/api-keys/{key_id}/rotate: revokes the key and mints its replacement in one transaction. */
export function rotateKeyHandler({ service }: Runtime) {
  return route(
    { operation: 'rotateKey', path: KeyIdPath, stepUp: true, now: service.now },
    async ({ path, caller }) => {
      logger.appendKeys({ key_id: path.key_id });
      const rotated = await rotateKey(service, caller.userId, path.key_id);
      logger.appendKeys({ new_key_id: rotated.metadata.id });
      countMetric('KeysRotated');
      return issuedReply(rotated, { revoked_key: rotated.revokedKey });
    },
  );
}
