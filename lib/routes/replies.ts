import type { Reply } from '#lib/http/route';
import type { IssuedKey } from '#lib/keys/lifecycle';

/** Create and rotate: 201, the new key's Location, and a body that carries the key once. */
export function issuedReply(issued: IssuedKey, extra: Record<string, unknown> = {}): Reply {
  return {
    status: 201,
    headers: { location: `/v1/mcp/api-keys/${issued.metadata.id}` },
    body: { api_key: issued.apiKey, metadata: issued.metadata, ...extra },
  };
}
