import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  errorCode,
  header,
  mediaType,
  nodeMetadataTransport,
  readAtMost,
  resolveAll,
} from '#lib/oauth/metadata-transport';

/**
 * The metadata document fetcher's network side over real loopback sockets: the request goes to
 * the vetted address whatever the URL's host resolves to, as a GET with the URL's port, path and
 * query, and over TLS names the URL's host (SNI, and so the certificate check).
 */
const HOST = 'client.metadata.test'; // resolves nowhere: only the pinned address can be reached

let plain: Server;
let tls: Server;
let seen: { method?: string; url?: string; host?: string; accept?: string } = {};
let serverName: string | undefined;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

const answer = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
  seen = { method: req.method, url: req.url, host: req.headers.host, accept: req.headers.accept };
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'set-cookie': ['a=1', 'b=2'] });
  res.end('{"client_id":"x"}');
};

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-transport-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', `/CN=${HOST}`,
  ], { stdio: 'ignore' }); // biome-ignore format: one command line
  plain = createHttpServer(answer);
  tls = createHttpsServer(
    {
      key: readFileSync(join(dir, 'key.pem')),
      cert: readFileSync(join(dir, 'cert.pem')),
      // The name the client sent in its hello; the server's one certificate answers it.
      SNICallback: (name, done) => {
        serverName = name;
        done(null, undefined);
      },
    },
    answer,
  );
});

afterAll(() => {
  plain?.close();
  tls?.close();
});

const fetchOnce = (url: string) =>
  nodeMetadataTransport({
    url: new URL(url),
    address: '127.0.0.1',
    family: 4,
    signal: AbortSignal.timeout(10_000),
  });

describe('the Node transport of metadata documents', () => {
  it('sends a GET for the path and query to the pinned address, naming the URL’s host and port', async () => {
    const port = await listen(plain);
    const response = await fetchOnce(`http://${HOST}:${port}/clients/app.json?v=2`);
    expect(response.status).toBe(200);
    expect(new TextDecoder().decode(await readAtMost(response.body, 1024))).toBe('{"client_id":"x"}');
    expect(seen).toEqual({
      method: 'GET',
      url: '/clients/app.json?v=2',
      host: `${HOST}:${port}`,
      accept: 'application/json',
    });
    expect(mediaType(header(response.headers, 'content-type'))).toBe('application/json');
    expect(header(response.headers, 'set-cookie')).toBe('a=1, b=2');
    expect(header(response.headers, 'location')).toBeUndefined();
  });

  it('speaks TLS to an https URL, naming its host to the server (SNI), and checks the certificate', async () => {
    const port = await listen(tls);
    serverName = undefined;
    const refused = await fetchOnce(`https://${HOST}:${port}/clients/app.json`).then(
      () => 'answered',
      (err: unknown) => errorCode(err),
    );
    // A self-signed certificate: the handshake reached the server with the name, then failed the check.
    expect(refused).toBe(' (DEPTH_ZERO_SELF_SIGNED_CERT)');
    await expect.poll(() => serverName).toBe(HOST);
  });

  it('rejects with the connection’s error when nothing listens there', async () => {
    const closed = createHttpServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const failure = await fetchOnce(`http://${HOST}:${port}/`).catch((err: unknown) => errorCode(err));
    expect(failure).toBe(' (ECONNREFUSED)');
  });
});

describe('resolving a name', () => {
  it('gives each address with its family', async () => {
    expect(await resolveAll('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolveAll('::1')).toEqual([{ address: '::1', family: 6 }]);
  });
});

describe('reading what came back', () => {
  it('takes a media type without its parameters, whatever its case and spacing', () => {
    expect(mediaType(' Application/JSON ; charset=utf-8')).toBe('application/json');
    expect(mediaType(undefined)).toBeUndefined();
  });

  it('names no code for a failure that has none', () => {
    expect(errorCode(null)).toBe('');
    expect(errorCode(new Error('no code'))).toBe('');
  });
});
