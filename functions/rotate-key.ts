import { route } from '#lib/http/route';
import { KeyIdPath } from '#lib/http/schemas';
import { rotateKey } from '#lib/keys/lifecycle';
import { countMetric, logger } from '#lib/observability';
import { getRuntime } from '#lib/runtime';

const { service } = getRuntime();

/** POST /v1/mcp/api-keys/{key_id}/rotate: revokes the key and mints its replacement in one transaction. */
export const handler = route(
  { operation: 'rotateKey', path: KeyIdPath, stepUp: true, now: service.now },
  async ({ path, caller }) => {
    logger.appendKeys({ key_id: path.key_id });
    const rotated = await rotateKey(service, caller.userId, path.key_id);
    logger.appendKeys({ new_key_id: rotated.metadata.id });
    countMetric('KeysRotated');
    return {
      status: 201,
      headers: { location: `/v1/mcp/api-keys/${rotated.metadata.id}` },
      body: { api_key: rotated.apiKey, metadata: rotated.metadata, revoked_key: rotated.revokedKey },
    };
  },
);
