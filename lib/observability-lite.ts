import { redactEvent } from './redact.ts';

/**
 * Structured logs and EMF metrics in a few lines, for the key authorizer, whose cold start every
 * MCP client waits for: Powertools and middy would add about 35 KB and their import time to it.
 * Lines have the shape Powertools writes (`level`, `message`, `timestamp`, `service`,
 * `cold_start`, `function_*`, `xray_trace_id`, then the fields) and obey the same settings:
 * `AWS_LAMBDA_LOG_LEVEL` / `POWERTOOLS_LOG_LEVEL` / `LOG_LEVEL`, `POWERTOOLS_LOGGER_LOG_EVENT`
 * (the event is logged only redacted), `POWERTOOLS_SERVICE_NAME`, `POWERTOOLS_METRICS_DISABLED`
 * and `POWERTOOLS_DEV`. Log ids and outcomes only: never a key, digest, token or body.
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

/** The `service` of every log line and metric (Powertools' service name). */
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
const env = process.env;
const flag = (value: string | undefined) => value?.trim().toLowerCase() === 'true' || value?.trim() === '1';
const levelName = (
  env.AWS_LAMBDA_LOG_LEVEL ??
  env.POWERTOOLS_LOG_LEVEL ??
  env.LOG_LEVEL ??
  'INFO'
).toUpperCase();
const threshold = LEVELS[levelName as Level] ?? LEVELS.INFO;
const service = env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;
const metricsDisabled =
  env.POWERTOOLS_METRICS_DISABLED !== undefined
    ? flag(env.POWERTOOLS_METRICS_DISABLED)
    : flag(env.POWERTOOLS_DEV);

let coldStart = true;
let invocation: Record<string, unknown> = {};

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  const trace = env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1];
  const line = JSON.stringify({
    level,
    message,
    timestamp: new Date().toISOString(),
    service,
    ...invocation,
    ...(trace && { xray_trace_id: trace }),
    ...fields,
  });
  (LEVELS[level] >= LEVELS.WARN ? process.stderr : process.stdout).write(`${line}\n`);
}

export const liteLogger = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('DEBUG', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('INFO', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('WARN', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('ERROR', message, fields),

  /** Whether `POWERTOOLS_LOGGER_LOG_EVENT` asks for each invocation's event. */
  shouldLogEvent: () => flag(env.POWERTOOLS_LOGGER_LOG_EVENT),

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
    coldStart = false;
    if (liteLogger.shouldLogEvent()) write('INFO', 'Lambda invocation event', { event: redactEvent(event) });
  },
};

/**
 * One EMF line (CloudWatch's embedded metric format) with a count of 1 and the `service`
 * dimension plus `dimensions`, as Powertools' single metric writes it.
 */
export function emitCount(name: string, dimensions: Record<string, string> = {}): void {
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
    [name]: 1,
  });
  process.stdout.write(`${line}\n`);
}
