import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '#test/support/logs';

/** The module reads its settings when loaded, as a Lambda cold start does: load it per case. */
async function load(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return import('#lib/observability');
}

const KEY = `svc_mcp_v1_${'A'.repeat(71)}`;

afterEach(() => vi.unstubAllEnvs());

describe('the service’s logs and metrics', () => {
  it('writes Powertools-shaped JSON lines with the invocation context, cold start first', async () => {
    const { logger } = await load({ POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_LOGGER_LOG_EVENT: 'false' });
    const output = captureOutput();
    try {
      const context = {
        functionName: 'authz',
        awsRequestId: 'req-1',
        invokedFunctionArn: 'arn',
        memoryLimitInMB: '256',
      };
      logger.startInvocation(context, {});
      logger.info('mcp key decision', { outcome: 'valid' });
      logger.startInvocation({ ...context, awsRequestId: 'req-2' }, {});
      logger.info('mcp key decision', { outcome: 'revoked' });
    } finally {
      output.restore();
    }
    const [first, second] = output.lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      level: 'INFO',
      message: 'mcp key decision',
      service: 'svc-mcp-api-keys',
      cold_start: true,
      function_name: 'authz',
      function_request_id: 'req-1',
      outcome: 'valid',
    });
    expect(Date.parse(first.timestamp)).not.toBeNaN();
    expect(second).toMatchObject({ cold_start: false, function_request_id: 'req-2', outcome: 'revoked' });
  });

  it('obeys the log level', async () => {
    const { logger } = await load({ POWERTOOLS_LOG_LEVEL: 'WARN' });
    const output = captureOutput();
    try {
      logger.info('hidden');
      logger.warn('shown');
    } finally {
      output.restore();
    }
    expect(output.lines.map((l) => JSON.parse(l).message)).toEqual(['shown']);
  });

  it('logs the event only redacted, and only when POWERTOOLS_LOGGER_LOG_EVENT asks', async () => {
    const event = {
      type: 'TOKEN',
      authorizationToken: `Bearer ${KEY}`,
      headers: { Authorization: `Bearer ${KEY}` },
    };
    const quiet = await load({ POWERTOOLS_LOGGER_LOG_EVENT: undefined });
    let output = captureOutput();
    try {
      quiet.logger.startInvocation(undefined, event);
    } finally {
      output.restore();
    }
    expect(output.lines).toEqual([]);
    const verbose = await load({ POWERTOOLS_LOGGER_LOG_EVENT: 'true' });
    output = captureOutput();
    try {
      verbose.logger.startInvocation(undefined, event);
    } finally {
      output.restore();
    }
    expect(output.lines).toHaveLength(1);
    expect(JSON.parse(output.lines[0] as string)).toMatchObject({
      message: 'Lambda invocation event',
      event: { type: 'TOKEN', authorizationToken: '[redacted]', headers: { Authorization: '[redacted]' } },
    });
    expect(output.text()).not.toContain(KEY);
  });

  it('writes one EMF line per count, with the service and the given dimensions', async () => {
    const { countMetric } = await load({ POWERTOOLS_METRICS_DISABLED: 'false' });
    const output = captureOutput();
    try {
      countMetric('AuthorizerDecisions', { outcome: 'no_access' });
    } finally {
      output.restore();
    }
    expect(JSON.parse(output.lines[0] as string)).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: 'SvcMcpApiKeys',
            Dimensions: [['service', 'outcome']],
            Metrics: [{ Name: 'AuthorizerDecisions', Unit: 'Count' }],
          },
        ],
      },
      service: 'svc-mcp-api-keys',
      outcome: 'no_access',
      AuthorizerDecisions: 1,
    });
  });

  it('keeps appended fields on every line of the invocation, and drops them when the next starts', async () => {
    const { logger } = await load({ POWERTOOLS_LOG_LEVEL: 'INFO' });
    const output = captureOutput();
    try {
      logger.startInvocation({ awsRequestId: 'req-1' }, {});
      logger.appendKeys({ request_id: 'api-1' });
      logger.info('request completed', { status: 201 });
      logger.startInvocation({ awsRequestId: 'req-2' }, {});
      logger.info('request completed', { status: 200 });
    } finally {
      output.restore();
    }
    const [first, second] = output.lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({ request_id: 'api-1', status: 201 });
    expect(second).not.toHaveProperty('request_id');
  });

  it('writes a count of more than one as the metric’s value', async () => {
    const { countMetric } = await load({ POWERTOOLS_METRICS_DISABLED: 'false' });
    const output = captureOutput();
    try {
      countMetric('EventsPublished', {}, 7);
    } finally {
      output.restore();
    }
    expect(JSON.parse(output.lines[0] as string)).toMatchObject({ EventsPublished: 7 });
  });

  it('writes no metric when metrics are disabled', async () => {
    const { countMetric } = await load({ POWERTOOLS_METRICS_DISABLED: 'true' });
    const output = captureOutput();
    try {
      countMetric('AuthorizerDecisions', { outcome: 'valid' });
    } finally {
      output.restore();
    }
    expect(output.lines).toEqual([]);
  });
});

describe('the service’s logger against Powertools', () => {
  it('writes a line with the same fields as Powertools’ Logger for the same invocation', async () => {
    const env = {
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_LOGGER_LOG_EVENT: 'false',
      POWERTOOLS_DEV: 'false',
    };
    const context = {
      functionName: 'authz',
      functionVersion: '$LATEST',
      awsRequestId: 'req-1',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:authz',
      memoryLimitInMB: '256',
    };
    const { logger } = await load(env);
    const { Logger } = await import('@aws-lambda-powertools/logger');
    const powertools = new Logger({ serviceName: 'svc-mcp-api-keys' });
    const output = captureOutput();
    try {
      logger.startInvocation(context, {});
      logger.info('mcp key decision', { outcome: 'valid' });
      powertools.addContext(context as unknown as Parameters<typeof powertools.addContext>[0]);
      powertools.info('mcp key decision', { outcome: 'valid' });
    } finally {
      output.restore();
    }
    const [lite, reference] = output.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(lite ?? {}).sort()).toEqual(Object.keys(reference ?? {}).sort());
    // The timestamp differs by when each line was written; Powertools counts its cold start per
    // process, which other cases here have used up (the first case checks the light one's).
    const { timestamp: _a, cold_start: liteCold, ...liteRest } = lite ?? {};
    const { timestamp: _b, cold_start: referenceCold, ...referenceRest } = reference ?? {};
    expect(liteRest).toEqual(referenceRest);
    expect([typeof liteCold, typeof referenceCold]).toEqual(['boolean', 'boolean']);
  });
});
