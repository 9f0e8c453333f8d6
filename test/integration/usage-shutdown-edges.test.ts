import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaShutdown } from '#lib/usage/shutdown';

/**
 * How the usage flush's Lambda extension (lib/usage/shutdown.ts, contract §18) fails, against a
 * loopback stand-in for the Extensions API that misbehaves: a registration without an identifier,
 * a `next` event answered (never the case for an extension with no events), and the process's
 * shared shutdown telling its caller. Each failure is told; none throws into the init phase.
 */

type Answer = (req: IncomingMessage, res: ServerResponse) => void;
let answer: Answer;
let host: string;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => answer(req, res));
});
let shared: typeof import('#lib/usage/shutdown');

beforeAll(async () => {
  await new Promise<void>((go) => server.listen(0, '127.0.0.1', go));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The process's shared shutdown, made afresh: another file's import may have made it already.
  vi.resetModules();
  shared = await import('#lib/usage/shutdown');
});
afterEach(() => vi.unstubAllEnvs());
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((go) => server.close(go));
});

const registered: Answer = (req, res) => {
  if (req.url === '/2020-01-01/extension/register')
    res.writeHead(200, { 'Lambda-Extension-Identifier': 'ext-1' }).end('{}');
  else res.writeHead(500).end();
};

/** Where SIGTERM arrives, and the errors told. */
function watched() {
  const emitter = new EventEmitter();
  const errors: unknown[] = [];
  const exit = vi.fn();
  const process = { once: emitter.once.bind(emitter), exit } as never;
  return { emitter, errors, exit, options: { process, onError: (err: unknown) => errors.push(err) } };
}

describe('the extension', () => {
  it('tells a registration answered without an identifier, and installs no handler', async () => {
    answer = (_req, res) => res.writeHead(200).end('{}');
    const { emitter, errors, options } = watched();
    await lambdaShutdown({ env: { AWS_LAMBDA_RUNTIME_API: host }, ...options }).add(async () => {});
    expect(errors.map(String)).toEqual(['Error: Lambda extension registration answered 200']);
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
  });

  it('tells a next event that is answered, and keeps its SIGTERM handler', async () => {
    answer = registered;
    const { emitter, errors, exit, options } = watched();
    await lambdaShutdown({ env: { AWS_LAMBDA_RUNTIME_API: host }, ...options }).add(async () => {});
    await vi.waitFor(() =>
      expect(errors.map(String)).toEqual(['Error: Lambda extension next event answered 500']),
    );
    expect(emitter.listenerCount('SIGTERM')).toBe(1);
    emitter.emit('SIGTERM');
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
    // A task that succeeded tells nothing.
    expect(errors).toHaveLength(1);
  });

  it('tells a refused registration even when it names an identifier', async () => {
    answer = (_req, res) => res.writeHead(403, { 'Lambda-Extension-Identifier': 'ext-1' }).end('{}');
    const { emitter, errors, options } = watched();
    await lambdaShutdown({ env: { AWS_LAMBDA_RUNTIME_API: host }, ...options }).add(async () => {});
    expect(errors.map(String)).toEqual(['Error: Lambda extension registration answered 403']);
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
  });

  it('outside Lambda, registers nothing and tells nothing', async () => {
    const { emitter, errors, options } = watched();
    await lambdaShutdown({ env: {}, ...options }).add(async () => {});
    expect(errors).toEqual([]);
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
  });

  it('tells an Extensions API that cannot be reached', async () => {
    const { errors, options } = watched();
    await lambdaShutdown({ env: { AWS_LAMBDA_RUNTIME_API: '127.0.0.1:1' }, ...options }).add(async () => {});
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/ECONNREFUSED/);
  });
});

describe('the process’s shutdown', () => {
  it('is made once, with the onError of its first caller, from the process’s environment', async () => {
    answer = (_req, res) => res.writeHead(403).end('{"errorType":"Extension.RegistrationClosed"}');
    vi.stubEnv('AWS_LAMBDA_RUNTIME_API', host);
    const first: unknown[] = [];
    const second: unknown[] = [];
    await shared.onLambdaShutdown(
      async () => {},
      (err) => first.push(err),
    );
    await shared.onLambdaShutdown(
      async () => {},
      (err) => second.push(err),
    );
    expect(first.map(String)).toEqual(['Error: Lambda extension registration answered 403']);
    expect(second).toEqual([]);
  });
});
