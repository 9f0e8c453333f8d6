import { LeakReportBody } from '#lib/http/leak-schemas';
import { publicRoute } from '#lib/http/route';
import { handlePublicReport } from '#lib/leaks/revoke-leaked';
import { LEAK_LIMITS } from '#lib/limits';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';

/**
 * POST /v1/mcp/leaked-keys (contract §11): anyone may report keys; every genuine, active one is
 * revoked. The answer is the same whatever the strings were: 202 with their count, no sooner
 * than a fixed time after the request arrived.
 */
export function reportLeakedKeysHandler({ service }: Runtime) {
  return publicRoute(
    {
      operation: 'reportLeakedKeys',
      body: LeakReportBody,
      maxBodyBytes: LEAK_LIMITS.maxBodyBytes,
      now: service.now,
    },
    async ({ body }) => {
      const verdicts = await handlePublicReport(
        service,
        body.keys.map((token) => ({ token, source: body.source ?? null })),
      );
      const revoked = verdicts.filter((v) => v.revoked).length;
      // Counts only: which strings were keys is not logged, and the answer does not say.
      logger.info('leak report', { received: verdicts.length, revoked });
      countMetric('LeakReports');
      if (revoked > 0) countMetric('LeakRevocations');
      return { status: 202, body: { received: body.keys.length } };
    },
  );
}
