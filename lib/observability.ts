import type { MiddlewareObj } from '@middy/core';
import { currentTraceId, parseObservabilityConfig } from './env.ts';
import { redactEvent } from './redact.ts';

export { describeError } from './redact.ts';

/**
 * The service's one observability module: structured logs and EMF metrics for every function.
 * Lines have the shape AWS Lambda Powertools writes (`level`, `message`, `timestamp`, `service`,
 * `sampling_rate`, `cold_start`, `function_*`, `xray_trace_id`, then the fields; a test holds
 * them to Powertools' own output) and obey the same settings: `AWS_LAMBDA_LOG_LEVEL` /
 * `POWERTOOLS_LOG_LEVEL` / `LOG_LEVEL`, `POWERTOOLS_LOGGER_LOG_EVENT` (the event is logged only
 * redacted), `POWERTOOLS_SERVICE_NAME`, `POWERTOOLS_METRICS_DISABLED` and `POWERTOOLS_DEV`.
 * Powertools itself is not loaded: its logger and metrics cost every function about 20 ms of
 * cold start (docs/benchmarks.md, decision 60). Log ids and outcomes only: never a key, digest,
 * token or body.
 */

const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof LEVELS;

/** Lambda's invocation context, as far as a log line uses it. */
export interface InvocationContext {
  functionName?: string;
  functionVersion?: string;
  invokedFunctionArn?: string;
  memoryLimitInMB?: string;
  awsRequestId?: string;
}

/** The service's name in logs, metrics and resource names. */
export const SERVICE_NAME = 'svc-mcp-api-keys';

/** CloudWatch namespace of the service's metrics; alarms in infra/ read them from here. */
export const METRICS_NAMESPACE = 'SvcMcpApiKeys';

/** Custom metrics that alarms and dashboards read. */
export const METRIC_NAMES = {
  /** Every key authorizer decision, with an `outcome` dimension. */
  authorizerDecisions: 'AuthorizerDecisions',
  /** REST API denials thrown as `Unauthorized`, which Lambda counts as function errors. */
  authorizerUnauthorized: 'AuthorizerUnauthorized',
} as const;
const settings = parseObservabilityConfig();
const threshold = LEVELS[settings.logLevel as Level] ?? LEVELS.INFO;
const service = settings.serviceName ?? SERVICE_NAME;
const { metricsDisabled } = settings;
// Written as Powertools writes it; this logger does not sample debug lines by it.
const { samplingRate } = settings;

let coldStart = true;
let invocation: Record<string, unknown> = {};
/** Fields appended during an invocation (`appendKeys`), dropped when the next one starts. */
let appended: Record<string, unknown> = {};

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  const trace = currentTraceId();
  const line = JSON.stringify({
    level,
    message,
    timestamp: new Date().toISOString(),
    service,
    sampling_rate: samplingRate,
    ...invocation,
    ...(trace && { xray_trace_id: trace }),
    ...appended,
    ...fields,
  });
  (LEVELS[level] >= LEVELS.WARN ? process.stderr : process.stdout).write(`${line}\n`);
}

export const logger = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('DEBUG', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('INFO', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('WARN', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('ERROR', message, fields),

  /** Adds fields to every line until the invocation ends (the request id, say). */
  appendKeys(fields: Record<string, unknown>): void {
    appended = { ...appended, ...fields };
  },

  /** Whether `POWERTOOLS_LOGGER_LOG_EVENT` asks for each invocation's event. */
  shouldLogEvent: () => settings.logEvent,

  /**
   * Starts an invocation: its context goes on every line until the next one, and the event is
   * logged, redacted, when the setting asks for it.
   */
  startInvocation(context: InvocationContext | undefined, event: unknown): void {
    invocation = context
      ? {
          cold_start: coldStart,
          function_arn: context.invokedFunctionArn,
          function_memory_size: context.memoryLimitInMB,
          function_name: context.functionName,
          function_request_id: context.awsRequestId,
        }
      : {};
    appended = {};
    coldStart = false;
    if (logger.shouldLogEvent()) write('INFO', 'Lambda invocation event', { event: redactEvent(event) });
  },
};

/**
 * One EMF line (CloudWatch's embedded metric format): a count of `value` with the `service`
 * dimension plus `dimensions`, as Powertools' single metric writes it. Written at once, so a
 * function that fails later has still counted.
 */
export function countMetric(name: string, dimensions: Record<string, string> = {}, value = 1): void {
  if (metricsDisabled) return;
  const line = JSON.stringify({
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [['service', ...Object.keys(dimensions)]],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    service,
    ...dimensions,
    [name]: value,
  });
  process.stdout.write(`${line}\n`);
}

/**
 * Starts each invocation's logging: its Lambda context on every line, the appended fields of the
 * previous one dropped, and the event logged only redacted. The first middleware of every
 * middy stack (HTTP routes and the handlers in lib/handlers/); the authorizer, which has no
 * stack, calls `logger.startInvocation` itself.
 */
export const observeInvocation: MiddlewareObj = {
  before: async ({ event, context }) => logger.startInvocation(context, event),
};
