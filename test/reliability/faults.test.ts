import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { makeHandlers } from '#lib/handlers/index';
import { keyItem } from '#lib/store/items';
import { freshCaller, loadApi } from '#test/support/api';
import { httpApiAuthorizerEvent } from '#test/support/authorizer-events';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { captureOutput } from '#test/support/logs';
import { SecretLedger } from '#test/support/secrets';

/**
 * Failures injected at the SDK clients, after what would be the SDK's own retries: the API
 * answers 503 and writes nothing half-way; the authorizer denies. The pepper comes from KMS
 * here (mocked: KMS cannot run locally).
 */
const kms = mockClient(KMSClient);
let tables: TestTables;
let api: Awaited<ReturnType<typeof loadApi>>;
let authorizer: { handler: ReturnType<typeof makeHandlers>['mcp-authorizer'] };
const output = captureOutput();
const secrets = new SecretLedger();
const FAULT = 'fault-injection';

/** A runtime whose pepper comes from (mocked) KMS, with its own pepper cache. */
const kmsRuntime = () =>
  tables.runtime({
    pepper: { kind: 'kms', keyId: 'arn:aws:kms:us-east-1:000000000000:key/pepper', version: 1 },
    kms: new KMSClient({ region: 'us-east-1' }),
  });

beforeAll(async () => {
  kms.on(GenerateMacCommand).resolves({ Mac: Buffer.alloc(32, 9) });
  tables = await createTestTables();
  const runtime = kmsRuntime();
  api = loadApi(runtime);
  authorizer = { handler: makeHandlers(runtime)['mcp-authorizer'] };
});
afterEach(() => {
  tables.doc.middlewareStack.remove(FAULT);
  kms.reset();
  kms.on(GenerateMacCommand).resolves({ Mac: Buffer.alloc(32, 9) });
});
afterAll(async () => {
  kms.restore();
  output.restore();
  await tables.drop();
});

/** Makes every DynamoDB command named in `commands` fail with `error`. */
function failDynamo(commands: string[], error: () => Error) {
  tables.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (commands.includes(String(context.commandName).replace(/Command$/, ''))) throw error();
      return next(args);
    },
    { step: 'initialize', name: FAULT },
  );
}

const awsError = (name: string, fault: 'client' | 'server' = 'client') =>
  Object.assign(new Error(`${name} (injected)`), { name, $fault: fault, $metadata: { httpStatusCode: 400 } });

async function member() {
  const { userId, workspaceId } = await newMember(tables);
  return { sub: userId, ws: workspaceId };
}

async function created(sub: string, ws: string) {
  const reply = await api.create({
    caller: freshCaller(sub),
    body: { name: 'k', workspace_ids: [ws], scopes: ['svc.forms.read'] },
  });
  expect(reply.status).toBe(201);
  secrets.add(reply.body.api_key as string);
  return { id: (reply.body.metadata as { id: string }).id, apiKey: reply.body.api_key as string };
}

const authorize = (apiKey: string) =>
  authorizer.handler(
    httpApiAuthorizerEvent(
      httpApiEvent({
        method: 'POST',
        routeKey: 'POST /mcp',
        rawPath: '/mcp',
        headers: { authorization: `Bearer ${apiKey}` },
      }),
    ),
    lambdaContext('mcp-authorizer'),
  );

describe('KMS faults', () => {
  it('a failing GenerateMac answers 503 and writes nothing; the next call derives again and succeeds', async () => {
    // A process of its own: nothing has derived its pepper yet.
    const fresh = loadApi(kmsRuntime());
    kms.reset();
    kms.on(GenerateMacCommand).rejects(awsError('KMSInternalException', 'server'));
    const { sub, ws } = await member();
    const before = await tables.scanKeys();
    const body = { name: 'k', workspace_ids: [ws], scopes: ['svc.forms.read'] };
    const reply = await fresh.create({ caller: freshCaller(sub), body });
    expect(reply.status, reply.raw).toBe(503);
    expect(reply.body.code).toBe('dependency_unavailable');
    expect(await tables.scanKeys()).toEqual(before);
    expect(kms.commandCalls(GenerateMacCommand).length).toBeGreaterThan(0);

    kms.reset();
    kms.on(GenerateMacCommand).resolves({ Mac: Buffer.alloc(32, 9) });
    const retried = await fresh.create({ caller: freshCaller(sub), body });
    expect(retried.status).toBe(201);
    secrets.add(retried.body.api_key as string);
  });

  it('the authorizer denies when the pepper cannot be derived', async () => {
    const { sub, ws } = await member();
    const key = await created(sub, ws);
    const peppers = api.runtime.service.peppers as unknown as { pepper: (v: number) => Promise<Buffer> };
    const original = peppers.pepper;
    peppers.pepper = async () => {
      throw awsError('KMSInternalException', 'server');
    };
    try {
      expect(await authorize(key.apiKey)).toEqual({ isAuthorized: false });
    } finally {
      peppers.pepper = original;
    }
    expect(await authorize(key.apiKey)).toMatchObject({ isAuthorized: true });
  });
});

describe('DynamoDB faults', () => {
  it('a throttled rotation answers 503 and leaves the old key active with no new key behind', async () => {
    const { sub, ws } = await member();
    const key = await created(sub, ws);
    const before = await tables.scanKeys();
    failDynamo(['TransactWriteItems'], () =>
      Object.assign(
        new TransactionCanceledException({
          message: 'Transaction cancelled (injected)',
          $metadata: {},
          CancellationReasons: [{ Code: 'ThrottlingError' }, { Code: 'None' }],
        }),
      ),
    );
    const reply = await api.rotate(key.id, { caller: freshCaller(sub) });
    expect(reply.status).toBe(503);
    expect(reply.body.code).toBe('dependency_unavailable');
    expect(reply.headers['retry-after']).toBe('2');
    expect(await tables.scanKeys()).toEqual(before);
    tables.doc.middlewareStack.remove(FAULT);
    expect(await authorize(key.apiKey)).toMatchObject({ isAuthorized: true });
  });

  it.each([
    ['throttling', () => awsError('ThrottlingException')],
    ['provisioned throughput exceeded', () => awsError('ProvisionedThroughputExceededException')],
    ['a timeout', () => Object.assign(new Error('socket timed out (injected)'), { name: 'TimeoutError' })],
    ['a connection reset', () => Object.assign(new Error('reset (injected)'), { code: 'ECONNRESET' })],
    ['an internal server error', () => awsError('InternalServerError', 'server')],
  ])('%s answers 503 on every endpoint and writes nothing', async (_label, error) => {
    const { sub, ws } = await member();
    const key = await created(sub, ws);
    const before = await tables.scanKeys();
    failDynamo(['GetItem', 'Query', 'BatchGetItem', 'TransactWriteItems', 'UpdateItem', 'PutItem'], error);
    const replies = [
      await api.create({
        caller: freshCaller(sub),
        body: { name: 'k', workspace_ids: [ws], scopes: ['svc.forms.read'] },
      }),
      await api.list({ caller: { sub } }),
      await api.rotate(key.id, { caller: freshCaller(sub) }),
      await api.revoke(key.id, { caller: { sub } }),
    ];
    for (const r of replies) {
      expect(r.status, r.raw).toBe(503);
      expect(r.body.code).toBe('dependency_unavailable');
      expect(r.raw).not.toContain('injected');
    }
    expect(await authorize(key.apiKey)).toEqual({ isAuthorized: false });
    tables.doc.middlewareStack.remove(FAULT);
    expect(await tables.scanKeys()).toEqual(before);
  });
});

describe('secret hygiene under faults', () => {
  it('a cancelled transaction whose reasons carry the stored item logs reason codes, never the digest', async () => {
    const { sub, ws } = await member();
    const key = await created(sub, ws);
    const stored = await api.runtime.service.keys.get(key.id);
    const digest = stored?.digest ?? '';
    expect(digest).not.toBe('');
    secrets.add(digest);
    const retentionDays = api.runtime.config.settings.retentionDays;
    const item = marshall(keyItem(stored as NonNullable<typeof stored>, retentionDays), {
      removeUndefinedValues: true,
    });
    const logged = output.lines.length;
    failDynamo(
      ['TransactWriteItems'],
      () =>
        new TransactionCanceledException({
          message: 'Transaction cancelled (injected)',
          $metadata: {},
          CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: item }, { Code: 'ThrottlingError' }],
        }),
    );
    const reply = await api.revoke(key.id, { caller: { sub } });
    expect(reply.status).toBe(503);
    const lines = output.lines.slice(logged).join('');
    expect(lines).toContain('request failed');
    expect(lines).toContain('ThrottlingError');
    expect(lines).not.toContain(digest);
    expect(reply.raw).not.toContain(digest);
  });

  it('no key or digest leaked into any log line', async () => {
    const { sub, ws } = await member();
    const key = await created(sub, ws);
    failDynamo(['TransactWriteItems'], () => awsError('InternalServerError', 'server'));
    expect((await api.rotate(key.id, { caller: freshCaller(sub) })).status).toBe(503);
    expect(secrets.size).toBeGreaterThan(1);
    expect(output.text()).toContain('request failed');
    expect(secrets.leaksIn(output.text())).toEqual([]);
  });
});
