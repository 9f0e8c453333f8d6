import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '#test/support/logs';

/** The module reads its settings when loaded, as a Lambda cold start does: load it per case. */
async function load(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return import('#lib/observability-lite');
}

const KEY = `svc_mcp_v1_${'A'.repeat(71)}`;

afterEach(() => vi.unstubAllEnvs());

describe('the key authorizer’s lightweight logs and metrics', () => {
  it('writes Powertools-shaped JSON lines with the invocation context, cold start first', async () => {
    const { liteLogger } = await load({ POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_LOGGER_LOG_EVENT: 'false' });
    const output = captureOutput();
    try {
      const context = {
        functionName: 'authz',
        awsRequestId: 'req-1',
        invokedFunctionArn: 'arn',
        memoryLimitInMB: '256',
      };
      liteLogger.startInvocation(context, {});
      liteLogger.info('mcp key decision', { outcome: 'valid' });
      liteLogger.startInvocation({ ...context, awsRequestId: 'req-2' }, {});
      liteLogger.info('mcp key decision', { outcome: 'revoked' });
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
    const { liteLogger } = await load({ POWERTOOLS_LOG_LEVEL: 'WARN' });
    const output = captureOutput();
    try {
      liteLogger.info('hidden');
      liteLogger.warn('shown');
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
      quiet.liteLogger.startInvocation(undefined, event);
    } finally {
      output.restore();
    }
    expect(output.lines).toEqual([]);
    const verbose = await load({ POWERTOOLS_LOGGER_LOG_EVENT: 'true' });
    output = captureOutput();
    try {
      verbose.liteLogger.startInvocation(undefined, event);
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
    const { emitCount } = await load({ POWERTOOLS_METRICS_DISABLED: 'false' });
    const output = captureOutput();
    try {
      emitCount('AuthorizerDecisions', { outcome: 'no_access' });
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

  it('writes no metric when metrics are disabled', async () => {
    const { emitCount } = await load({ POWERTOOLS_METRICS_DISABLED: 'true' });
    const output = captureOutput();
    try {
      emitCount('AuthorizerDecisions', { outcome: 'valid' });
    } finally {
      output.restore();
    }
    expect(output.lines).toEqual([]);
  });
});

describe('the lightweight logger against Powertools', () => {
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
    const { liteLogger } = await load(env);
    const { Logger } = await import('@aws-lambda-powertools/logger');
    const powertools = new Logger({ serviceName: 'svc-mcp-api-keys' });
    const output = captureOutput();
    try {
      liteLogger.startInvocation(context, {});
      liteLogger.info('mcp key decision', { outcome: 'valid' });
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
