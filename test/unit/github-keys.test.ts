import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fetchPublishedKeys,
  type GithubPublicKey,
  GithubSignatureVerifier,
  REFETCH_INTERVAL_MS,
} from '#lib/leaks/github-keys';
import { SERVICE_NAME } from '#lib/observability';
import { DependencyError } from '#lib/store/dependency';

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
  const answering = (status: number, body: unknown) => {
    const requests: { url: string; init: RequestInit | undefined }[] = [];
    const fetchImpl = (async (url: string, init?: RequestInit) => {
      requests.push({ url, init });
      return new Response(JSON.stringify(body), { status });
    }) as typeof fetch;
    return { fetchImpl, requests };
  };

  it('asks for JSON as the service, and keeps only well-formed keys', async () => {
    const good = { key_identifier: 'k1', key: PEM, is_current: true };
    const { fetchImpl, requests } = answering(200, {
      public_keys: [
        good,
        null,
        'k2',
        { key_identifier: 'k3' },
        { key: PEM },
        { key_identifier: 4, key: PEM },
      ],
    });
    expect(await fetchPublishedKeys('https://example.test/keys', fetchImpl)()).toEqual([good]);
    expect(requests[0]?.url).toBe('https://example.test/keys');
    expect(requests[0]?.init?.headers).toEqual({ accept: 'application/json', 'user-agent': SERVICE_NAME });
    expect(requests[0]?.init?.signal).toBeInstanceOf(AbortSignal);
  });

  it('fails on an error status or a document without a key list', async () => {
    await expect(fetchPublishedKeys('u', answering(502, {}).fetchImpl)()).rejects.toThrow(
      'GitHub public keys answered 502',
    );
    await expect(fetchPublishedKeys('u', answering(200, { keys: [] }).fetchImpl)()).rejects.toThrow(
      'GitHub public keys: no public_keys array',
    );
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
