import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientMetadataResult, createClientMetadataFetcher } from '#lib/oauth/client-metadata';
import { nodeMetadataTransport } from '#lib/oauth/metadata-transport';

/**
 * Client ID Metadata Documents over a real socket: a loopback HTTP server that local mode may
 * fetch from (`allowLoopbackHttp`), and the default transport's connection to the vetted address.
 * The rules one by one, with a fake network, are in test/unit/oauth-clients-metadata.test.ts.
 */

const routes = new Map<string, (request: IncomingMessage, response: ServerResponse) => void>();
const requests: IncomingMessage[] = [];
const server = createServer((request, response) => {
  requests.push(request);
  const route = routes.get(request.url ?? '');
  if (route) route(request, response);
  else response.writeHead(404).end();
});
let base = '';

const documentAt = (path: string) =>
  JSON.stringify({
    client_id: `${base}${path}`,
    client_name: 'Loopback client',
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
  });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes.set('/client.json', (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(documentAt('/client.json')),
  );
  routes.set('/moved.json', (_request, response) =>
    response.writeHead(302, { location: `${base}/client.json` }).end(),
  );
  // 6 KiB, streamed in chunks without a Content-Length (chunked transfer encoding).
  routes.set('/large.json', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 6; i++) response.write(' '.repeat(1024));
    response.end(documentAt('/large.json'));
  });
  routes.set('/large-declared.json', (_request, response) => {
    const body = `${' '.repeat(6 * 1024)}${documentAt('/large-declared.json')}`;
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  // Headers at once, then nothing: the fetch must give up on its own.
  routes.set('/slow.json', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"client_id":');
  });
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

async function refusedWith(result: Promise<ClientMetadataResult>): Promise<string> {
  const outcome = await result;
  if (outcome.ok) throw new Error(`accepted: ${JSON.stringify(outcome.client)}`);
  return outcome.error_description;
}

describe('a loopback metadata document in local mode', () => {
  const local = () => createClientMetadataFetcher({ allowLoopbackHttp: true, timeoutMs: 500 });

  it('is fetched, as JSON, and becomes a client verified by its host and port', async () => {
    const before = requests.length;
    const result = await local()(`${base}/client.json`);
    expect(result).toEqual({
      ok: true,
      client: {
        client_id: `${base}/client.json`,
        client_name: 'Loopback client',
        redirect_uris: ['http://127.0.0.1/callback'],
        verified_domain: base.slice('http://'.length),
        registration: 'metadata_document',
      },
    });
    expect(requests.length).toBe(before + 1);
    expect(requests.at(-1)?.headers.accept).toBe('application/json');
  });

  it('is not followed through a redirect', async () => {
    const before = requests.length;
    expect(await refusedWith(local()(`${base}/moved.json`))).toMatch(/redirect \(HTTP 302\)/);
    expect(requests.length).toBe(before + 1);
  });

  it('is refused past 5 KiB, with or without a Content-Length', async () => {
    expect(await refusedWith(local()(`${base}/large.json`))).toMatch(/larger than 5120 bytes/);
    expect(await refusedWith(local()(`${base}/large-declared.json`))).toMatch(/larger than 5120 bytes/);
  });

  it('is given up when it does not arrive in time', async () => {
    const started = performance.now();
    expect(await refusedWith(local()(`${base}/slow.json`))).toMatch(/did not arrive within 0.5 seconds/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('is refused outside local mode, without a request', async () => {
    const before = requests.length;
    expect(await refusedWith(createClientMetadataFetcher()(`${base}/client.json`))).toMatch(
      /not a metadata document URL/,
    );
    expect(requests.length).toBe(before);
  });
});

describe('the default resolver and transport', () => {
  it('refuse a name that the system resolves to loopback, without a request', async () => {
    const before = requests.length;
    expect(await refusedWith(createClientMetadataFetcher()('https://localhost/client.json'))).toMatch(
      /localhost, resolves to an address that is not public \(loopback\)/,
    );
    expect(requests.length).toBe(before);
  });

  it('connect to the vetted address, never resolving the name again', async () => {
    // `metadata.invalid` cannot resolve (RFC 6761): the request arrives only through the pinned address.
    const port = Number(new URL(base).port);
    const response = await nodeMetadataTransport({
      url: new URL(`http://metadata.invalid:${port}/client.json`),
      address: '127.0.0.1',
      family: 4,
      signal: AbortSignal.timeout(2_000),
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body) chunks.push(chunk);
    expect(response.status).toBe(200);
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8')).client_name).toBe('Loopback client');
    expect(requests.at(-1)?.headers.host).toBe(`metadata.invalid:${port}`);
  });
});
