import * as z from 'zod';
import { kib } from '#lib/http/openapi-tags';
import { handlePublicReport } from '#lib/leaks/revoke-leaked';
import { LEAK_LIMITS } from '#lib/limits';
import { countMetric, logger } from '#lib/observability';
import { defineRoute, LEAK_ROUTE } from './route-module.ts';

/** A string that may be a key (contract §11). */
export const Reported = z.string().min(1, 'must not be empty').max(LEAK_LIMITS.maxStringLength);

export const LeakReportBody = z
  .strictObject({
    keys: z
      .array(Reported)
      .min(1, 'must list at least 1 string')
      .max(LEAK_LIMITS.maxKeys, `must list at most ${LEAK_LIMITS.maxKeys} strings`)
      .meta({ description: 'Strings that may be keys; anything else is ignored.' }),
    source: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2048)
      .optional()
      .meta({ description: 'Where the keys were found.' }),
  })
  .meta({ id: 'LeakReportRequest' });

export const LeakReportResponse = z
  .object({ received: z.number().int().meta({ description: 'How many strings the report held.' }) })
  .meta({ id: 'LeakReportResponse' });

/**
 * POST /v1/mcp/leaked-keys (contract §11): anyone may report keys; every genuine, active one is
 * revoked. The answer is the same whatever the strings were: 202 with their count, no sooner
 * than a fixed time after the request arrived.
 */
export default defineRoute({
  name: 'report-leaked-keys',
  operationId: 'reportLeakedKeys',
  method: 'POST',
  path: '/v1/mcp/leaked-keys',
  // Possession of a key is the authority to kill it (contract §11).
  auth: 'none',
  summary: 'Report leaked keys: each genuine, active one is revoked at once',
  description: `No authentication: holding a key is the authority to kill it. The answer is the same whatever the strings were (real, already revoked or garbage), and comes no sooner than ${LEAK_LIMITS.minAnswerMs} ms. The owner is told through the \`key.leak_revoked\` event. 1–${LEAK_LIMITS.maxKeys} strings in at most ${kib(LEAK_LIMITS.maxBodyBytes)} (413 \`payload_too_large\` above). Throttled on its own (default ${LEAK_LIMITS.throttle.rate} requests/s, burst ${LEAK_LIMITS.throttle.burst}).`,
  tag: 'leak-response',
  request: { body: LeakReportBody },
  success: { status: 202, description: 'Received.', schema: LeakReportResponse },
  ...LEAK_ROUTE,
  handle:
    ({ service }) =>
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
});
