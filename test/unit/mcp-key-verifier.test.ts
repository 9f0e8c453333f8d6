import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { generateKey } from '#lib/keys/format';
import { revokeKey } from '#lib/keys/lifecycle';
import { fixedPepperSource } from '#lib/keys/pepper';
import { createKeyVerifier, type KeyUse } from '#lib/keys/verify';
import { decide } from '#lib/mcp/authorizer';
import { denialResponse } from '#lib/mcp/denial';
import { createMcpKeyVerifier, type McpKeyVerifierOptions, verifierOptionsFromEnv } from '#lib/verifier';
import { memoryCreator } from '#test/support/lifecycle';

/**
 * `createMcpKeyVerifier` (contract §16) where no DynamoDB is needed: its options, failures as
 * data through injected clients that fail before any socket, and the `onUse` hook over stores
 * in memory. test/integration/mcp-key-verifier.test.ts runs it against DynamoDB Local.
 */

const PEPPER = { version: 1, base64: Buffer.alloc(32, 7).toString('base64') };
const TABLES = { keysTableName: 'keys', membershipsTableName: 'memberships' };

/** A client whose every call fails in its first middleware, as an unreachable service would. */
function failing<C extends DynamoDBClient | KMSClient>(
  client: C,
  error = new Error('connect ECONNREFUSED'),
): C {
  const stack = client.middlewareStack as unknown as {
    add(middleware: () => () => Promise<never>, options: { step: 'initialize'; name: string }): void;
  };
  stack.add(
    () => async () => {
      throw error;
    },
    { step: 'initialize', name: 'fail' },
  );
  return client;
}

/** A DynamoDB client that finds no item, with no socket: every read answers empty. */
function empty(): DynamoDBClient {
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  });
  client.middlewareStack.add(() => async () => ({ output: { $metadata: {} }, response: {} }), {
    step: 'initialize',
    name: 'empty',
  });
  return client;
}

function recordingLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  return {
    lines,
    logger: {
      warn: (message: string, fields: Record<string, unknown>) =>
        lines.push({ level: 'warn', message, fields }),
      error: (message: string, fields: Record<string, unknown>) =>
        lines.push({ level: 'error', message, fields }),
    },
  };
}

describe('createMcpKeyVerifier options', () => {
  it('builds from options alone, with no I/O until a well-formed key is verified', async () => {
    const verifier = createMcpKeyVerifier({ ...TABLES, region: 'eu-west-1', pepper: PEPPER });
    expect(await verifier.verify('svc_mcp_v1_nope')).toEqual({ outcome: 'malformed' });
    expect(await verifier.verify(undefined)).toEqual({ outcome: 'malformed' });
    expect(verifier.resource).toBeUndefined();
  });

  it('refuses to guess a region: one is needed whenever the verifier builds a client', () => {
    expect(() => createMcpKeyVerifier({ ...TABLES, pepper: PEPPER })).toThrow(
      /`region` is required to build the DynamoDB client \(or pass `dynamoDb`\); none is read from the environment/,
    );
    const dynamoDb = new DynamoDBClient({ region: 'eu-west-1' });
    expect(() => createMcpKeyVerifier({ ...TABLES, dynamoDb, pepperKeyId: 'alias/pepper' })).toThrow(
      /`region` is required to build the KMS client \(or pass `kms`\)/,
    );
    // Both clients given, or a fixed pepper with a DynamoDB client: nothing to build, no region needed.
    expect(() => createMcpKeyVerifier({ ...TABLES, dynamoDb, pepper: PEPPER })).not.toThrow();
    const kms = new KMSClient({ region: 'eu-west-1' });
    expect(() =>
      createMcpKeyVerifier({ ...TABLES, dynamoDb, kms, pepperKeyId: 'alias/pepper' }),
    ).not.toThrow();
  });

  it('names every problem at once', () => {
    const bad = {
      keysTableName: '',
      membershipsTableName: 'm',
      pepperKeyId: 'alias/pepper',
      pepper: { version: 0, base64: 'short' },
      region: 'eu-west-1',
      endpoint: 'not a url',
      cacheSize: 0,
      resource: 'https://mcp.example.com/mcp#frag',
    } as unknown as McpKeyVerifierOptions;
    let message = '';
    try {
      createMcpKeyVerifier(bad);
    } catch (err) {
      expect(err).toBeInstanceOf(TypeError);
      message = (err as Error).message;
    }
    for (const problem of [
      '`keysTableName` must be a table name',
      'pass exactly one of `pepperKeyId` and `pepper`',
      '`pepper.version` must be a whole number from 1',
      '`pepper.base64` must be base64 of at least 32 bytes',
      '`endpoint` must be a URL',
      '`cacheSize` must be a whole number from 1',
      '`resource` must be an absolute URL without a fragment',
    ])
      expect(message).toContain(problem);
    expect(() => createMcpKeyVerifier({ ...TABLES, region: 'x' } as McpKeyVerifierOptions)).toThrow(
      'pass exactly one of `pepperKeyId` and `pepper`',
    );
    expect(() =>
      createMcpKeyVerifier({ keysTableName: 't', membershipsTableName: 't', region: 'x', pepper: PEPPER }),
    ).toThrow('`keysTableName` and `membershipsTableName` must differ');
    expect(() =>
      createMcpKeyVerifier({
        ...TABLES,
        dynamoDb: new DynamoDBClient({ region: 'x' }),
        endpoint: 'http://127.0.0.1:8000',
        pepper: PEPPER,
      }),
    ).toThrow('`endpoint` does not apply to a `dynamoDb` you pass');
  });

  it('keeps the resource, parsed', () => {
    const verifier = createMcpKeyVerifier({
      ...TABLES,
      region: 'eu-west-1',
      pepper: PEPPER,
      resource: 'https://mcp.example.com/mcp',
    });
    expect(verifier.resource?.href).toBe('https://mcp.example.com/mcp');
  });
});

describe('a failing dependency is data: unavailable', () => {
  it('DynamoDB failing: unavailable, logged with the error and never the key, and §7’s 503', async () => {
    const { lines, logger } = recordingLogger();
    const verifier = createMcpKeyVerifier({
      ...TABLES,
      dynamoDb: failing(new DynamoDBClient({ region: 'eu-west-1' })),
      pepper: PEPPER,
      logger,
    });
    const { apiKey } = generateKey();
    const result = await verifier.verify(apiKey);
    expect(result).toEqual({ outcome: 'unavailable' });
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'key verification failed',
        fields: { error: expect.objectContaining({ name: 'Error', message: 'connect ECONNREFUSED' }) },
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(apiKey);
    const denied = denialResponse(result);
    expect(denied?.status).toBe(503);
    expect(denied?.headers.get('retry-after')).toBeTruthy();
    expect(await denied?.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32002, message: 'The key service is unavailable; retry shortly.' },
    });
  });

  it('KMS failing: unavailable; the failure is not kept, so the next call asks KMS again', async () => {
    const { logger } = recordingLogger();
    const kms = failing(new KMSClient({ region: 'eu-west-1' }), new Error('KMS is down'));
    let kmsCalls = 0;
    kms.middlewareStack.add(
      (next) => async (args) => {
        kmsCalls++;
        return next(args);
      },
      { step: 'initialize', name: 'count', priority: 'high' },
    );
    const verifier = createMcpKeyVerifier({
      ...TABLES,
      dynamoDb: empty(),
      kms,
      pepperKeyId: 'alias/pepper',
      logger,
    });
    expect(await verifier.verify(generateKey().apiKey)).toEqual({ outcome: 'unavailable' });
    expect(await verifier.verify(generateKey().apiKey)).toEqual({ outcome: 'unavailable' });
    expect(kmsCalls).toBe(2);
  });

  it('the key authorizer fails closed on it as on a throw: 5xx on REST, denied on HTTP APIs', () => {
    const rest = { type: 'REQUEST', methodArn: 'arn:aws:execute-api:eu-west-1:1:a/b/POST/mcp' } as never;
    expect(decide(rest, { outcome: 'unavailable' })).toEqual({ reject: 'key verification failed' });
    expect(decide({ version: '2.0' } as never, { outcome: 'unavailable' })).toEqual({
      answer: { isAuthorized: false },
    });
  });

  it('a fixed pepper of another version cannot verify a key: a failure of configuration, not of the key', async () => {
    const peppers = fixedPepperSource(2, Buffer.alloc(32, 1));
    await expect(peppers.pepper(1)).rejects.toThrow(
      "the key's digest uses pepper version 1; this verifier holds version 2 only",
    );
    expect(await peppers.pepper(2)).toEqual(Buffer.alloc(32, 1));
  });
});

describe('the valid result and the last-use hook', () => {
  it('says what kind of credential and when it expires; onUse hears each write and each failure', async () => {
    const world = memoryCreator();
    const { create, userId, workspaceId } = world;
    const { apiKey, metadata } = await create();
    const uses: KeyUse[] = [];
    let fail = false;
    const verify = createKeyVerifier({
      keys: {
        get: (id) => world.keys.get(id),
        recordUse: (id, now) =>
          fail ? Promise.reject(new Error('throttled')) : world.keys.recordUse(id, now),
      },
      memberships: world.memberships,
      peppers: world.service.peppers,
      now: world.clock.now,
      onUse: (use) => {
        uses.push(use);
        throw new Error('an observer that throws changes nothing');
      },
    });
    expect(await verify(apiKey)).toEqual({
      outcome: 'valid',
      kind: 'api_key',
      user_id: userId,
      key_id: metadata.id,
      expires_at: metadata.expires_at,
      scopes: ['svc.forms.read'],
      workspaces: [{ id: workspaceId, role: 'editor', scopes: ['svc.forms.read'] }],
    });
    const first = world.clock.now().toISOString();
    world.clock.advance(120_000);
    fail = true;
    expect(await verify(apiKey)).toMatchObject({ outcome: 'valid' });
    expect(uses).toEqual([
      { key_id: metadata.id, at: first, outcome: 'recorded' },
      {
        key_id: metadata.id,
        at: world.clock.now().toISOString(),
        outcome: 'failed',
        error: new Error('throttled'),
      },
    ]);
    await revokeKey(world.service, userId, metadata.id);
    expect(await verify(apiKey)).toEqual({ outcome: 'revoked', key_id: metadata.id });
  });
});

describe('verifyMcpKey’s options from the environment', () => {
  it('are the KMS key, the tables and the region; no region is guessed', () => {
    const env = { KEYS_TABLE_NAME: 'keys', MEMBERSHIPS_TABLE_NAME: 'members', PEPPER_KMS_KEY_ID: 'alias/p' };
    expect(verifierOptionsFromEnv({ ...env, AWS_REGION: 'eu-west-1' })).toEqual({
      keysTableName: 'keys',
      membershipsTableName: 'members',
      region: 'eu-west-1',
      pepperKeyId: 'alias/p',
    });
    const options = verifierOptionsFromEnv(env);
    expect(options.region).toBeUndefined();
    expect(() => createMcpKeyVerifier(options)).toThrow(/`region` is required/);
  });

  it('name every missing setting', () => {
    expect(() => verifierOptionsFromEnv({})).toThrow(
      /KEYS_TABLE_NAME.*MEMBERSHIPS_TABLE_NAME.*either PEPPER_KMS_KEY_ID or PEPPER_DIR must be set/,
    );
  });
});
