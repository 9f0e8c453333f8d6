import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicJsonFetch } from '#lib/oauth/public-json';

/**
 * The fetch of an identity provider's documents (its OpenID configuration, its JWKS): the rules
 * of client metadata documents (contract §15, §17), over a loopback HTTP server as local mode
 * allows it, and the address rules with a resolver that answers what a hostile DNS would.
 */

let server: Server;
let base: string;
const bodies: Record<string, { type: string; body: string; status?: number }> = {
  '/jwks': { type: 'application/json; charset=utf-8', body: '{"keys":[]}' },
  '/html': { type: 'text/html', body: '<html></html>' },
  '/big': { type: 'application/json', body: JSON.stringify({ keys: 'x'.repeat(70 * 1024) }) },
  '/broken': { type: 'application/json', body: '{"keys": [' },
  '/moved': { type: 'application/json', body: '{}', status: 302 },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const found = bodies[req.url ?? ''];
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(found.status ?? 200, { 'content-type': found.type, location: '/jwks' }).end(found.body);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((done) => server.close(done)));

describe('publicJsonFetch', () => {
  const fetchJson = publicJsonFetch({ allowLoopbackHttp: true });

  it('reads a JSON document', async () => {
    expect(await fetchJson(`${base}/jwks`, 'The key set')).toEqual({ ok: true, json: { keys: [] } });
  });

  it.each([
    ['/html', 'The key set is not served as application/json.'],
    ['/big', 'The key set is larger than 65536 bytes.'],
    ['/broken', 'The key set is not valid JSON.'],
    ['/moved', 'The key set answered HTTP 302 instead of 200.'],
    ['/missing', 'The key set answered HTTP 404 instead of 200.'],
  ])('refuses %s: %s', async (path, reason) => {
    expect(await fetchJson(`${base}${path}`, 'The key set')).toEqual({ ok: false, reason });
  });

  it('refuses loopback http unless local mode allows it, and any address that is not public', async () => {
    expect(await publicJsonFetch()(`${base}/jwks`, 'The key set')).toEqual({
      ok: false,
      reason: 'The key set must be served over https.',
    });
    const rebinding = publicJsonFetch({ resolve: async () => [{ address: '169.254.169.254', family: 4 }] });
    expect(await rebinding('https://idp.example/jwks', 'The key set')).toEqual({
      ok: false,
      reason: expect.stringContaining('resolves to an address that is not public'),
    });
    expect(await publicJsonFetch()('https://10.0.0.1/jwks', 'The key set')).toEqual({
      ok: false,
      reason: 'The key set must be served from a domain name, not from an IP address.',
    });
  });

  it('gives up after its time limit', async () => {
    const slow = publicJsonFetch({
      allowLoopbackHttp: true,
      timeoutMs: 50,
      request: ({ signal }) =>
        new Promise((_, fail) => signal.addEventListener('abort', () => fail(new Error('aborted')))),
    });
    expect(await slow(`${base}/jwks`, 'The key set')).toEqual({
      ok: false,
      reason: 'The key set did not arrive within 0.05 seconds.',
    });
  });
});
