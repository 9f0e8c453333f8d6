import type { ScheduledEvent } from 'aws-lambda';
import { runExpirySweep, type SweepSummary } from '#lib/events/sweep';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';
import { observed } from './observed.ts';

/**
 * The hourly expiry sweep (contract §10). It sweeps at the function's clock, not the schedule's
 * time: a late or retried invocation then writes what is due now, and nothing twice.
 */
export function expirySweepHandler(runtime: Pick<Runtime, 'expiry' | 'service'>) {
  return observed<ScheduledEvent, SweepSummary>().handler(async () => {
    const summary = await runExpirySweep(runtime, runtime.service.now());
    logger.info('expiry sweep done', { ...summary });
    countMetric(
      'ExpiryNoticesWritten',
      {},
      Object.values(summary.written).reduce((a, b) => a + b, 0),
    );
    countMetric('ExpirySweepReadUnits', {}, summary.read_units);
    return summary;
  });
}
