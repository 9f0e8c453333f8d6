import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import { METRICS_NAMESPACE, SERVICE_NAME } from './observability-lite.ts';
import { redactEvent } from './redact.ts';

export { METRIC_NAMES, METRICS_NAMESPACE, SERVICE_NAME } from './observability-lite.ts';

/** One logger per process. Log ids and outcomes only: never a key, digest, token or body. */
export const logger = new Logger({ serviceName: SERVICE_NAME });

/** EMF metrics; flushed by the logMetrics middleware at the end of each invocation. */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger });

export function countMetric(name: string, dimensions: Record<string, string> = {}): void {
  if (Object.keys(dimensions).length === 0) {
    metrics.addMetric(name, MetricUnit.Count, 1);
    return;
  }
  const single = metrics.singleMetric();
  for (const [key, value] of Object.entries(dimensions)) single.addDimension(key, value);
  single.addMetric(name, MetricUnit.Count, 1);
}

/**
 * `POWERTOOLS_LOGGER_LOG_EVENT=true` logs the invocation event, which carries keys and tokens:
 * every function passes `logEvent: false` to Powertools and logs the event through this
 * middleware instead, with credentials and bodies redacted.
 */
export const logEventRedacted: MiddlewareObj = {
  before: async ({ event }) => {
    if (logger.shouldLogEvent()) logger.info('Lambda invocation event', { event: redactEvent(event) });
  },
};

export { describeError } from './redact.ts';
