import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyError } from '#lib/errors';
import {
  fetchPublishedKeys,
  type GithubPublicKey,
  GithubSignatureVerifier,
  MAX_KEYS_DOCUMENT_BYTES,
  REFETCH_INTERVAL_MS,
} from '#lib/leaks/github-keys';
import { SERVICE_NAME } from '#lib/observability';

/** GitHub's published signing keys: how they are fetched, cached and refetched. */
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const BODY = Buffer.from('[{"token":"svc_mcp_v1_x"}]');
const SIGNATURE = sign('sha256', BODY, privateKey).toString('base64');

function counting(keys: GithubPublicKey[] | (() => Promise<GithubPublicKey[]>), now = () => 0) {
  let fetches = 0;
  const verifier = new GithubSignatureVerifier(async () => {
    fetches++;
    return typeof keys === 'function' ? keys() : keys;
  }, now);
  return { verifier, fetches: () => fetches };
}

describe('fetching the published keys', () => {
  // A real HTTP server on loopback: what it answers is set per test, what it was asked is kept.
  let answer: (response: ServerResponse) => void = () => {};
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    answer(response);
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const answering = (status: number, body: unknown) => {
    answer = (response) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  it('asks for JSON as the service, and keeps only well-formed keys', async () => {
    const good = { key_identifier: 'k1', key: PEM, is_current: true };
    answering(200, {
      public_keys: [
        good,
        null,
        'k2',
        { key_identifier: 'k3' },
        { key: PEM },
        { key_identifier: 4, key: PEM },
      ],
    });
    requests.length = 0;
    expect(await fetchPublishedKeys(`${base}/meta/keys`)()).toEqual([good]);
    expect(requests.map((r) => [r.method, r.url])).toEqual([['GET', '/meta/keys']]);
    expect(requests[0]?.headers).toMatchObject({ accept: 'application/json', 'user-agent': SERVICE_NAME });
  });

  it('fails on an error status, a document without a key list, or one that is not JSON', async () => {
    answering(502, {});
    await expect(fetchPublishedKeys(base)()).rejects.toThrow('GitHub public keys answered 502');
    answering(304, {});
    await expect(fetchPublishedKeys(base)()).rejects.toThrow('GitHub public keys answered 304');
    answering(200, { keys: [] });
    await expect(fetchPublishedKeys(base)()).rejects.toThrow('GitHub public keys: no public_keys array');
    answering(200, null);
    await expect(fetchPublishedKeys(base)()).rejects.toThrow('GitHub public keys: no public_keys array');
    answer = (response) => response.end('<html>');
    await expect(fetchPublishedKeys(base)()).rejects.toThrow(SyntaxError);
  });

  it('accepts any 2xx answer', async () => {
    answering(203, { public_keys: [] });
    await expect(fetchPublishedKeys(base)()).resolves.toEqual([]);
    answering(299, { public_keys: [] });
    await expect(fetchPublishedKeys(base)()).resolves.toEqual([]);
    answering(300, { public_keys: [] });
    await expect(fetchPublishedKeys(base)()).rejects.toThrow('GitHub public keys answered 300');
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    answer = () => {};
    await expect(fetchPublishedKeys(base, 50)()).rejects.toThrow(/aborted/i);
  });

  it('refuses an answer over the size limit rather than buffering it', async () => {
    const filler = 'x'.repeat(MAX_KEYS_DOCUMENT_BYTES);
    answering(200, { public_keys: [], filler });
    await expect(fetchPublishedKeys(base)()).rejects.toThrow(`answer over ${MAX_KEYS_DOCUMENT_BYTES} bytes`);
    // An answer of exactly the limit is read whole.
    const overhead = JSON.stringify({ public_keys: [], filler: '' }).length;
    answering(200, { public_keys: [], filler: filler.slice(overhead) });
    await expect(fetchPublishedKeys(base)()).resolves.toEqual([]);
  });

  it('hangs up on an answer that never ends once it is over the limit', async () => {
    let closed: () => void = () => {};
    const serverSawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Twice the limit, a chunk a millisecond, and then the connection is held open without an end.
      const chunk = 'x'.repeat(64 * 1024);
      let written = 0;
      const timer = setInterval(() => {
        if (written > 2 * MAX_KEYS_DOCUMENT_BYTES) return clearInterval(timer);
        written += chunk.length;
        response.write(chunk);
      }, 1);
      response.on('close', () => {
        clearInterval(timer);
        closed();
      });
    };
    // A timeout far off, so that only the limit can end the request.
    await expect(fetchPublishedKeys(base, 60_000)()).rejects.toThrow(
      `answer over ${MAX_KEYS_DOCUMENT_BYTES} bytes`,
    );
    const hungUp = await Promise.race([
      serverSawClose.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000)),
    ]);
    expect(hungUp, 'the client closed the connection').toBe(true);
  });

  it('fails when the connection breaks in the middle of the answer', async () => {
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"public_keys": [');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    await expect(fetchPublishedKeys(base)()).rejects.toThrow(/aborted|ECONNRESET/);
  });

  it('speaks TLS to an https URL, and fetches nothing from other schemes', async () => {
    answering(200, { public_keys: [] });
    requests.length = 0;
    // The loopback server speaks plain HTTP, so a TLS handshake with it fails before any request.
    await expect(fetchPublishedKeys(base.replace('http:', 'https:'))()).rejects.toMatchObject({
      code: 'EPROTO',
    });
    await expect(fetchPublishedKeys(base.replace('http:', 'ftp:'))()).rejects.toThrow(
      'cannot fetch a ftp: URL',
    );
    expect(requests).toEqual([]);
  });
});

describe('the key cache', () => {
  it('fetches once for concurrent checks under an unknown identifier, and both wait for it', async () => {
    const { verifier, fetches } = counting(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return [{ key_identifier: 'k1', key: PEM }];
    });
    const input = { keyIdentifier: 'k1', signature: SIGNATURE, rawBody: BODY };
    expect(await Promise.all([verifier.verify(input), verifier.verify(input)])).toEqual([true, true]);
    expect(fetches()).toBe(1);
    expect(await verifier.verify(input)).toBe(true);
    expect(fetches()).toBe(1);
  });

  it('refetches for an unknown identifier once the interval has passed, not before', async () => {
    let now = 0;
    const { verifier, fetches } = counting([], () => now);
    const unknown = { keyIdentifier: 'nope', signature: SIGNATURE, rawBody: BODY };
    await verifier.verify(unknown);
    now = REFETCH_INTERVAL_MS - 1;
    await verifier.verify(unknown);
    expect(fetches()).toBe(1);
    now = REFETCH_INTERVAL_MS;
    await verifier.verify(unknown);
    expect(fetches()).toBe(2);
  });

  it('never refetches for an identifier it knows, however old the keys', async () => {
    let now = 0;
    const { verifier, fetches } = counting([{ key_identifier: 'k1', key: PEM }], () => now);
    const known = { keyIdentifier: 'k1', signature: SIGNATURE, rawBody: BODY };
    expect(await verifier.verify(known)).toBe(true);
    now = 10 * REFETCH_INTERVAL_MS;
    expect(await verifier.verify(known)).toBe(true);
    expect(fetches()).toBe(1);
  });

  it('reports a failed fetch as a dependency failure naming the cause', async () => {
    const { verifier } = counting(async () => {
      throw new Error('socket hang up');
    });
    await expect(
      verifier.verify({ keyIdentifier: 'k1', signature: SIGNATURE, rawBody: BODY }),
    ).rejects.toEqual(new DependencyError("could not fetch GitHub's public keys: socket hang up"));
  });
});

describe('headers out of bounds', () => {
  it('are refused without a fetch; at the bounds they are checked', async () => {
    const { verifier, fetches } = counting([]);
    for (const [keyIdentifier, signature] of [
      ['k'.repeat(257), SIGNATURE],
      ['k1', 's'.repeat(513)],
      ['', SIGNATURE],
      ['k1', ''],
    ]) {
      expect(await verifier.verify({ keyIdentifier, signature, rawBody: BODY })).toBe(false);
    }
    expect(fetches()).toBe(0);
    expect(
      await verifier.verify({ keyIdentifier: 'k'.repeat(256), signature: 's'.repeat(512), rawBody: BODY }),
    ).toBe(false);
    expect(fetches()).toBe(1);
  });

  it('a published key that is not a valid key fails the check instead of throwing', async () => {
    const { verifier } = counting([{ key_identifier: 'k1', key: 'not a pem' }]);
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: SIGNATURE, rawBody: BODY })).toBe(false);
  });
});
