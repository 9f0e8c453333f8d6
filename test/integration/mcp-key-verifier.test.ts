import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMcpKey } from '#lib/index';
import { generateKey } from '#lib/keys/format';
import { revokeKey } from '#lib/keys/lifecycle';
import { pepperFile } from '#lib/keys/pepper-local';
import type { KeyUse } from '#lib/keys/verify';
import { denialResponse } from '#lib/mcp/denial';
import type { Runtime } from '#lib/runtime';
import { createDocumentClient, localEndpoint } from '#lib/store/client';
import { createMcpKeyVerifier, type McpKeyVerifierOptions } from '#lib/verifier';
import { countCommands } from '#test/support/count';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';
import { kmsStandIn, type WireCall } from '../artifact/support/aws-stand-ins.ts';

/**
 * `createMcpKeyVerifier` against DynamoDB Local (contract §16): configured by options alone, two
 * verifiers in one process sharing nothing, and a DynamoDB or KMS that fails answered as data.
 */

const REGION = 'us-east-1';
const clock = manualClock();
let a: TestTables;
let b: TestTables;
let rtA: Runtime;
let rtB: Runtime;

beforeAll(async () => {
  [a, b] = await Promise.all([createTestTables(), createTestTables()]);
  rtA = a.runtime({ now: clock.now });
  rtB = b.runtime({ now: clock.now });
});
afterAll(() => Promise.all([a.drop(), b.drop()]));

/** Where `tables` are and how to reach them: the options bar the pepper. */
const tableOptions = (tables: TestTables) => ({
  keysTableName: tables.keysTable,
  membershipsTableName: tables.membershipsTable,
  region: REGION,
  // DynamoDB Local keeps a database per access key id: the endpoint's user part names it.
  ...localEndpoint(tables.endpoint),
  now: clock.now,
});

/** The options another process passes to verify against `tables`, with the local pepper's bytes. */
const optionsFor = (tables: TestTables): McpKeyVerifierOptions => ({
  ...tableOptions(tables),
  pepper: { version: 1, base64: readFileSync(pepperFile(tables.pepperDir, 1)).toString('base64') },
});

/** A key issued through the service on `tables`, its pepper file written by then. */
const issue = (tables: TestTables, rt: Runtime) =>
  issueKey(tables, rt.service, { scopes: ['svc.forms.read'] });

/** A DynamoDB client on `tables`, and the commands it sends. */
function countedClient(tables: TestTables) {
  const { endpoint, credentials } = localEndpoint(tables.endpoint);
  const dynamoDb = new DynamoDBClient({ region: REGION, endpoint, credentials });
  return { dynamoDb, calls: countCommands(DynamoDBDocumentClient.from(dynamoDb)) };
}

/** A proxy to `upstream` that answers KMS's 500 while `down`. */
async function switchable(upstream: string) {
  const state = { down: false };
  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (state.down) {
      res.writeHead(500, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'KMSInternalException', message: 'the stand-in is down' }));
      return;
    }
    const headers = Object.entries(req.headers).filter(
      ([name]) => !['host', 'connection', 'content-length'].includes(name),
    ) as [string, string][];
    const out = await fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers,
      body: Buffer.concat(chunks),
    });
    res.writeHead(out.status, { 'content-type': out.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await out.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
}

/** A port on this machine that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a verifier configured by options alone', () => {
  it('verifies with endpoint, credentials and the pepper’s bytes: valid (kind, expiry), then revoked', async () => {
    const issued = await issue(a, rtA);
    const uses: KeyUse[] = [];
    const verifier = createMcpKeyVerifier({ ...optionsFor(a), onUse: (use) => uses.push(use) });
    expect(await verifier.verify(issued.apiKey)).toEqual({
      outcome: 'valid',
      kind: 'api_key',
      user_id: issued.userId,
      key_id: issued.id,
      expires_at: issued.metadata.expires_at,
      scopes: ['svc.forms.read'],
      workspaces: [{ id: issued.workspaceId, role: 'editor', scopes: ['svc.forms.read'] }],
    });
    expect(uses).toEqual([{ key_id: issued.id, at: clock.now().toISOString(), outcome: 'recorded' }]);
    expect(await verifier.verify(generateKey().apiKey)).toEqual({ outcome: 'not_found' });
    await revokeKey(rtA.service, issued.userId, issued.id);
    expect(await verifier.verify(issued.apiKey)).toEqual({ outcome: 'revoked', key_id: issued.id });
  });
});

describe('the AWS SDK’s logger middleware', () => {
  it('is gone from the clients the service builds, and a client the caller passes keeps it', async () => {
    const issued = await issue(a, rtA);
    // Ours: the SDK is given no logger, so the middleware only filtered each response for nothing.
    const ours = createDocumentClient({ region: REGION, endpoint: a.endpoint });
    expect(ours.middlewareStack.identify().join('\n')).not.toMatch(/loggerMiddleware/);
    expect(
      (await ours.send(new GetCommand({ TableName: a.keysTable, Key: { pk: 'absent', sk: 'absent' } }))).Item,
    ).toBeUndefined();
    // The caller's client is theirs: its SDK logger still hears of every command the verifier sends.
    const heard: string[] = [];
    const { endpoint, credentials } = localEndpoint(a.endpoint);
    const logger = {
      debug: () => {},
      info: (entry: { commandName?: string }) => heard.push(String(entry.commandName)),
      warn: () => {},
      error: () => {},
    };
    const dynamoDb = new DynamoDBClient({ region: REGION, endpoint, credentials, logger });
    const { endpoint: _e, credentials: _c, ...options } = tableOptions(a);
    const pepper = optionsFor(a).pepper as { version: number; base64: string };
    const verifier = createMcpKeyVerifier({ ...options, pepper, dynamoDb });
    expect(await verifier.verify(issued.apiKey)).toMatchObject({ outcome: 'valid' });
    expect(dynamoDb.middlewareStack.identify().join('\n')).toMatch(/loggerMiddleware/);
    expect(heard).toContain('GetItemCommand');
  });
});

describe('two verifiers in one process', () => {
  it('on different tables and peppers answer independently', async () => {
    const [onA, onB] = [await issue(a, rtA), await issue(b, rtB)];
    const verifierA = createMcpKeyVerifier(optionsFor(a));
    const verifierB = createMcpKeyVerifier(optionsFor(b));
    expect(await verifierA.verify(onA.apiKey)).toMatchObject({ outcome: 'valid', key_id: onA.id });
    expect(await verifierB.verify(onB.apiKey)).toMatchObject({ outcome: 'valid', key_id: onB.id });
    expect(await verifierB.verify(onA.apiKey)).toEqual({ outcome: 'not_found' });
    expect(await verifierA.verify(onB.apiKey)).toEqual({ outcome: 'not_found' });
  });

  it('keep their own cache of verified keys and their own clients', async () => {
    const issued = await issue(a, rtA);
    const first = countedClient(a);
    const second = countedClient(a);
    const { endpoint: _e, credentials: _c, ...options } = tableOptions(a);
    const pepper = optionsFor(a).pepper as { version: number; base64: string };
    const one = createMcpKeyVerifier({ ...options, pepper, dynamoDb: first.dynamoDb });
    const two = createMcpKeyVerifier({ ...options, pepper, dynamoDb: second.dynamoDb });
    await one.verify(issued.apiKey);
    expect(first.calls.of('GetItem')).toBe(1);
    first.calls.reset();
    // Warm in the first: one request for the key's state and the memberships together.
    expect(await one.verify(issued.apiKey)).toMatchObject({ outcome: 'valid' });
    expect(first.calls.snapshot()).toEqual({ BatchGetItem: 1 });
    // Cold in the second: it read the key by id, through its own client only.
    expect(await two.verify(issued.apiKey)).toMatchObject({ outcome: 'valid' });
    expect(second.calls.of('GetItem')).toBe(1);
    expect(first.calls.snapshot()).toEqual({ BatchGetItem: 1 });
  });

  it('derive the pepper from KMS each for itself', async () => {
    const wire: WireCall[] = [];
    const kmsService = await kmsStandIn(wire);
    try {
      const kmsClient = () =>
        new KMSClient({
          region: REGION,
          endpoint: kmsService.url,
          credentials: { accessKeyId: 'team', secretAccessKey: 'x' },
        });
      const keyId = 'alias/svc-mcp-api-keys-pepper';
      const rt = a.runtime({ now: clock.now, pepper: { kind: 'kms', keyId, version: 1 }, kms: kmsClient() });
      const issued = await issue(a, rt);
      const verifiers = [1, 2].map(() =>
        createMcpKeyVerifier({ ...tableOptions(a), pepperKeyId: keyId, kms: kmsClient() }),
      );
      wire.length = 0;
      for (const verifier of verifiers) {
        expect(await verifier.verify(issued.apiKey)).toMatchObject({ outcome: 'valid' });
        expect(await verifier.verify(issued.apiKey)).toMatchObject({ outcome: 'valid' });
      }
      // One derivation each: a pepper cache per verifier, none shared, none repeated.
      expect(wire.map((call) => call.operation)).toEqual(['GenerateMac', 'GenerateMac']);
    } finally {
      kmsService.server.close();
    }
  });
});

describe('a failing dependency is an outcome, never a throw', () => {
  it('DynamoDB unreachable: unavailable, logged, and denialResponse answers §7’s 503', async () => {
    const errors: string[] = [];
    const verifier = createMcpKeyVerifier({
      ...optionsFor(a),
      endpoint: `http://127.0.0.1:${await closedPort()}`,
      logger: { warn: () => {}, error: (message) => errors.push(message) },
    });
    const result = await verifier.verify(generateKey().apiKey);
    expect(result).toEqual({ outcome: 'unavailable' });
    expect(errors).toEqual(['key verification failed']);
    const denied = denialResponse(result);
    expect(denied?.status).toBe(503);
    expect(denied?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(denied?.headers.get('www-authenticate')).toBeNull();
    expect(await denied?.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32002, message: 'The key service is unavailable; retry shortly.' },
    });
  });

  it('the KMS stand-in failing: unavailable; once KMS answers again the key is valid', async () => {
    const wire: WireCall[] = [];
    const kmsService = await kmsStandIn(wire);
    const outage = await switchable(kmsService.url);
    const kmsAt = (endpoint: string) =>
      new KMSClient({
        region: REGION,
        endpoint,
        credentials: { accessKeyId: 'team', secretAccessKey: 'x' },
        maxAttempts: 1,
      });
    const keyId = 'alias/flaky-pepper';
    try {
      const rt = a.runtime({
        now: clock.now,
        pepper: { kind: 'kms', keyId, version: 1 },
        kms: kmsAt(kmsService.url),
      });
      const issued = await issue(a, rt);
      const errors: unknown[] = [];
      const verifier = createMcpKeyVerifier({
        ...tableOptions(a),
        pepperKeyId: keyId,
        kms: kmsAt(outage.url),
        logger: { warn: () => {}, error: (_m, fields) => errors.push(fields.error) },
      });
      outage.down = true;
      const result = await verifier.verify(issued.apiKey);
      expect(result).toEqual({ outcome: 'unavailable' });
      expect(errors).toEqual([expect.objectContaining({ name: 'KMSInternalException' })]);
      expect(denialResponse(result)?.status).toBe(503);
      outage.down = false;
      expect(await verifier.verify(issued.apiKey)).toMatchObject({ outcome: 'valid', key_id: issued.id });
    } finally {
      outage.server.close();
      kmsService.server.close();
    }
  });
});

describe('verifyMcpKey, the environment-configured convenience', () => {
  it('is createMcpKeyVerifier with the options the environment gives', async () => {
    // verifyMcpKey reads the wall clock: the key is issued on it too, not on the test's fixed clock.
    const issued = await issue(b, b.runtime());
    const saved = { ...process.env };
    Object.assign(process.env, b.env);
    try {
      expect(await verifyMcpKey(issued.apiKey)).toMatchObject({
        outcome: 'valid',
        kind: 'api_key',
        key_id: issued.id,
        expires_at: issued.metadata.expires_at,
      });
      expect(await verifyMcpKey('svc_mcp_v1_short')).toEqual({ outcome: 'malformed' });
    } finally {
      for (const name of Object.keys(b.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });
});
