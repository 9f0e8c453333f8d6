import { route } from '#lib/http/route';
import { createKeyBody } from '#lib/http/schemas';
import { createKey } from '#lib/keys/lifecycle';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';
import { issuedReply } from './replies.ts';

/** POST /v1/mcp/api-keys: mints a key and shows it once. */
export function createKeyHandler({ service }: Runtime) {
  return route(
    {
      operation: 'createKey',
      body: createKeyBody(service.settings.maxExpiryDays),
      stepUp: true,
      now: service.now,
    },
    async ({ body, caller }) => {
      const issued = await createKey(service, {
        userId: caller.userId,
        name: body.name,
        workspaceIds: body.workspace_ids,
        scopes: body.scopes,
        expiresInDays: body.expires_in_days,
      });
      logger.appendKeys({ key_id: issued.metadata.id });
      countMetric('KeysCreated');
      return issuedReply(issued);
    },
  );
}
