import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoUsageReader } from '#lib/store/usage-reads';
import { EXTENSION_NAME, lambdaShutdown } from '#lib/usage/shutdown';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';

/**
 * Counts still waiting when a Lambda instance ends (contract §18): Lambda sends the runtime SIGTERM
 * only when an extension is registered, so the authorizer registers an internal one through the
 * Extensions API at init (here a loopback stand-in for `AWS_LAMBDA_RUNTIME_API`), and its SIGTERM
 * handler writes every count to DynamoDB Local before the process exits.
 */
let tables: TestTables;
let api: { server: Server; host: string; registers: Request[]; nexts: Request[]; id: string };
type Request = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

/** The Extensions API's two calls an internal extension makes: register, then a `next` that never answers. */
async function extensionsApi() {
  const registers: Request[] = [];
  const nexts: Request[] = [];
  const id = randomUUID();
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      if (req.url === '/2020-01-01/extension/register') {
        registers.push(seen);
        res.writeHead(200, { 'Lambda-Extension-Identifier': id, 'content-type': 'application/json' });
        res.end('{"functionName":"mcp-authorizer","functionVersion":"$LATEST","handler":"index.handler"}');
      } else if (req.url === '/2020-01-01/extension/event/next') {
        nexts.push(seen);
        held.push(res); // an extension with no events is never sent one
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((go) => server.listen(0, '127.0.0.1', go));
  server.on('close', () => {
    for (const res of held) res.destroy();
  });
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}`, registers, nexts, id };
}

beforeAll(async () => {
  tables = await createTestTables();
  api = await extensionsApi();
});
afterAll(async () => {
  api.server.closeAllConnections();
  await new Promise((go) => api.server.close(go));
  await tables.drop();
});

/** The process as the shutdown hook sees it: where SIGTERM arrives, and its exit. */
function fakeProcess() {
  const emitter = new EventEmitter();
  const exit = vi.fn();
  return { emitter, exit, process: { once: emitter.once.bind(emitter), exit } as never };
}

describe('on Lambda (AWS_LAMBDA_RUNTIME_API set)', () => {
  it('registers one internal extension with no events, waits on its next event, and writes every count on SIGTERM', async () => {
    const clock = manualClock(new Date('2026-11-28T10:00:00.000Z'));
    const rt = tables.runtime({ now: clock.now });
    const key = await issueKey(tables, rt.service);
    const proc = fakeProcess();
    const shutdown = lambdaShutdown({ env: { AWS_LAMBDA_RUNTIME_API: api.host }, process: proc.process });
    await shutdown.add(() => rt.endUsage());
    await shutdown.add(async () => {}); // a second task: still one extension
    expect(api.registers).toHaveLength(1);
    expect(api.registers[0]).toMatchObject({
      method: 'POST',
      headers: { 'lambda-extension-name': EXTENSION_NAME, 'content-type': 'application/json' },
    });
    expect(JSON.parse(api.registers[0]?.body ?? '')).toEqual({ events: [] });
    await vi.waitFor(() => expect(api.nexts).toHaveLength(1));
    expect(api.nexts[0]).toMatchObject({ method: 'GET', headers: { 'lambda-extension-identifier': api.id } });

    // Two calls counted, neither due: without SIGTERM they would wait for a call that never comes.
    for (let i = 0; i < 2; i++) expect((await rt.verify(key.apiKey)).outcome).toBe('valid');
    expect(proc.emitter.listenerCount('SIGTERM')).toBe(1);
    proc.emitter.emit('SIGTERM');
    await vi.waitFor(() => expect(proc.exit).toHaveBeenCalledWith(0));
    const days = await new DynamoUsageReader(tables.doc, tables.keysTable).daysOf(
      key.id,
      '2026-11-28',
      '2026-11-28',
    );
    expect(days.map((d) => d.calls)).toEqual([2]);
  });

  it('exits even when a write fails, telling why', async () => {
    const proc = fakeProcess();
    const errors: unknown[] = [];
    const shutdown = lambdaShutdown({
      env: { AWS_LAMBDA_RUNTIME_API: api.host },
      process: proc.process,
      onError: (err) => errors.push(err),
    });
    await shutdown.add(() => Promise.reject(new Error('throttled')));
    proc.emitter.emit('SIGTERM');
    await vi.waitFor(() => expect(proc.exit).toHaveBeenCalledWith(0));
    expect(errors).toEqual([new Error('throttled')]);
  });
});

describe('elsewhere', () => {
  it('registers nothing and leaves SIGTERM alone without AWS_LAMBDA_RUNTIME_API', async () => {
    const proc = fakeProcess();
    const before = api.registers.length;
    await lambdaShutdown({ env: {}, process: proc.process }).add(async () => {});
    expect(api.registers).toHaveLength(before);
    expect(proc.emitter.listenerCount('SIGTERM')).toBe(0);
  });

  it('tells a refused registration and installs no handler', async () => {
    const proc = fakeProcess();
    const errors: unknown[] = [];
    const refusing = createServer((_req, res) =>
      res.writeHead(403).end('{"errorType":"Extension.RegistrationClosed"}'),
    );
    await new Promise<void>((go) => refusing.listen(0, '127.0.0.1', go));
    const host = `127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    await lambdaShutdown({
      env: { AWS_LAMBDA_RUNTIME_API: host },
      process: proc.process,
      onError: (err) => errors.push(err),
    }).add(async () => {});
    await new Promise((go) => refusing.close(go));
    expect(String(errors[0])).toContain('403');
    expect(proc.emitter.listenerCount('SIGTERM')).toBe(0);
  });
});
