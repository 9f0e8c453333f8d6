import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyMcpKey } from '#lib/index';
import { generateKey } from '#lib/keys/format';
import { logger as serviceLogger } from '#lib/observability';

/**
 * What runs in an MCP server's own process logs where that server says (contract §16): the
 * environment-configured `verifyMcpKey` takes a logger, and defaults to the service's logs.
 */

// Nothing listens on port 9 (discard): every DynamoDB call fails at once, and is logged.
const ENV = {
  KEYS_TABLE_NAME: 'keys',
  MEMBERSHIPS_TABLE_NAME: 'memberships',
  PEPPER_KMS_KEY_ID: 'alias/pepper',
  AWS_REGION: 'eu-west-1',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
};

describe('verifyMcpKey’s logger', () => {
  beforeEach(() => {
    for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, value);
    vi.spyOn(serviceLogger, 'error').mockImplementation(() => {});
    vi.spyOn(serviceLogger, 'warn').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('a passed logger gets the failed verification’s line, and the service’s logger none', async () => {
    const lines: { level: string; message: string }[] = [];
    const mine = {
      warn: (message: string) => lines.push({ level: 'warn', message }),
      error: (message: string) => lines.push({ level: 'error', message }),
    };
    const stdout = vi.spyOn(process.stdout, 'write');
    const { apiKey } = generateKey();
    expect(await verifyMcpKey(apiKey, { logger: mine })).toEqual({ outcome: 'unavailable' });
    expect(lines).toEqual([{ level: 'error', message: 'key verification failed' }]);
    expect(serviceLogger.error).not.toHaveBeenCalled();
    expect(serviceLogger.warn).not.toHaveBeenCalled();
    expect(stdout.mock.calls.map(([chunk]) => String(chunk)).join('')).not.toContain(
      'key verification failed',
    );
  });

  it('without one, the line goes to the service’s structured logs, as before', async () => {
    expect(await verifyMcpKey(generateKey().apiKey)).toEqual({ outcome: 'unavailable' });
    expect(serviceLogger.error).toHaveBeenCalledWith('key verification failed', expect.anything());
  });
});
