import { describe, expect, it } from 'vitest';
import {
  CLIENT_METADATA_LIMITS,
  type ClientMetadataFetcherOptions,
  type ClientMetadataResult,
  cacheLifetimeMs,
  createClientMetadataFetcher,
  type MetadataRequest,
  type MetadataResponse,
  type ResolvedAddress,
} from '#lib/oauth/client-metadata';
import { nonPublicAddress } from '#lib/oauth/public-address';

/**
 * Client ID Metadata Documents (contract §15) with an injected resolver and transport: every
 * rule, the SSRF refusals first. The same fetch over a real loopback socket is in
 * test/integration/oauth-client-metadata.test.ts.
 */

const CLIENT_ID = 'https://client.example/oauth/metadata.json';
const PUBLIC: ResolvedAddress = { address: '93.184.215.14', family: 4 };
const JSON_TYPE = { 'content-type': 'application/json' };

const documentFor = (extra: Record<string, unknown> = {}) => ({
  client_id: CLIENT_ID,
  client_name: 'Example client',
  redirect_uris: ['https://client.example/callback', 'http://127.0.0.1/callback'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

interface Answer {
  status?: number;
  headers?: MetadataResponse['headers'];
  /** The body as chunks; a string is one chunk. */
  body?: string | Uint8Array[];
}

/**
 * A fetcher over a fake network: `dns` answers the resolver, `answer` the transport. It records
 * what was resolved, what was requested, and how much of each body was read.
 */
function fake(
  answer: Answer | ((request: MetadataRequest) => Promise<MetadataResponse>) = {},
  dns = [PUBLIC],
) {
  const seen = {
    resolved: [] as string[],
    requests: [] as MetadataRequest[],
    chunksRead: 0,
    bodyClosed: false,
  };
  let clock = Date.parse('2026-03-01T00:00:00Z');
  const options: ClientMetadataFetcherOptions = {
    now: () => new Date(clock),
    resolve: async (host) => {
      seen.resolved.push(host);
      return dns;
    },
    request: async (request) => {
      seen.requests.push(request);
      if (typeof answer === 'function') return answer(request);
      const chunks = answer.body ?? JSON.stringify(documentFor());
      async function* body() {
        try {
          for (const chunk of typeof chunks === 'string' ? [new TextEncoder().encode(chunks)] : chunks) {
            seen.chunksRead++;
            yield chunk;
          }
        } finally {
          seen.bodyClosed = true;
        }
      }
      return { status: answer.status ?? 200, headers: answer.headers ?? JSON_TYPE, body: body() };
    },
    timeoutMs: 200,
  };
  return {
    seen,
    options,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

async function refusedWith(result: Promise<ClientMetadataResult>): Promise<string> {
  const outcome = await result;
  if (outcome.ok) throw new Error(`accepted: ${JSON.stringify(outcome.client)}`);
  return outcome.error_description;
}

describe('a metadata document that is accepted', () => {
  it('becomes a verified client, fetched from the address that was checked', async () => {
    const { seen, options } = fake();
    const result = await createClientMetadataFetcher(options)(CLIENT_ID);
    expect(result).toEqual({
      ok: true,
      client: {
        client_id: CLIENT_ID,
        client_name: 'Example client',
        redirect_uris: ['https://client.example/callback', 'http://127.0.0.1/callback'],
        verified_domain: 'client.example',
        registration: 'metadata_document',
      },
    });
    expect(seen.resolved).toEqual(['client.example']);
    expect(seen.requests).toHaveLength(1);
    expect(seen.requests[0]).toMatchObject({ address: '93.184.215.14', family: 4 });
    expect(seen.requests[0]?.url.href).toBe(CLIENT_ID);
  });

  it('is named after its host when it has no client_name', async () => {
    const { options } = fake({ body: JSON.stringify(documentFor({ client_name: undefined })) });
    const result = await createClientMetadataFetcher(options)(CLIENT_ID);
    expect(result.ok && result.client.client_name).toBe('client.example');
  });

  it('may be served with a charset, and may list none beside private_key_jwt (as ChatGPT does)', async () => {
    const { options } = fake({
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify(
        documentFor({
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_methods_supported: ['private_key_jwt', 'none'],
        }),
      ),
    });
    expect((await createClientMetadataFetcher(options)(CLIENT_ID)).ok).toBe(true);
  });

  it('may leave token_endpoint_auth_method out, and may be exactly the size limit', async () => {
    const base = JSON.stringify(documentFor({ token_endpoint_auth_method: undefined, padding: '' }));
    const padded = base.replace(
      '"padding":""',
      `"padding":"${'x'.repeat(CLIENT_METADATA_LIMITS.maxBytes - base.length)}"`,
    );
    expect(padded).toHaveLength(CLIENT_METADATA_LIMITS.maxBytes);
    const { options } = fake({ body: padded });
    expect((await createClientMetadataFetcher(options)(CLIENT_ID)).ok).toBe(true);
  });

  it('is a public IPv6 host too', async () => {
    const { seen, options } = fake({}, [{ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }]);
    expect((await createClientMetadataFetcher(options)(CLIENT_ID)).ok).toBe(true);
    expect(seen.requests[0]).toMatchObject({ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
  });
});

describe('a metadata document URL that is refused before any request', () => {
  it.each([
    ['an IPv4 literal host', 'https://127.0.0.1/x', /domain name, not from an IP address/],
    ['an IPv6 literal host', 'https://[::1]/x', /domain name, not from an IP address/],
    ['a public IP literal', 'https://93.184.215.14/x', /domain name, not from an IP address/],
    ['an IPv4 literal written as a number', 'https://2130706433/x', /not a metadata document URL/],
    ['another port', 'https://example.com:8443/x', /port 443, not on port 8443/],
    ['http', 'http://client.example/x', /not a metadata document URL/],
    ['loopback http outside local mode', 'http://127.0.0.1:8080/x', /not a metadata document URL/],
    ['no path', 'https://client.example', /not a metadata document URL/],
    ['a DCR client id', 'b7c1e5c2-3c1f-4a47-9f0a-1d0c5c1e2f3a', /not a metadata document URL/],
  ])('%s: %s', async (_label, clientId, reason) => {
    const { seen, options } = fake();
    expect(await refusedWith(createClientMetadataFetcher(options)(clientId))).toMatch(reason);
    expect(seen.resolved).toEqual([]);
    expect(seen.requests).toEqual([]);
  });
});

describe('a host that resolves to an address that is not public', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['192.168.1.10', 'private'],
    ['172.31.255.255', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.1', 'link-local'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'cloud metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
  ])('%s (%s) is refused, and nothing is requested', async (address, kind) => {
    const { seen, options } = fake({}, [{ address, family: address.includes(':') ? 6 : 4 }]);
    const description = await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID));
    expect(description).toBe(
      `The host of the client's metadata document, client.example, resolves to an address that is not public (${kind}); only documents on public addresses are fetched.`,
    );
    expect(seen.requests).toEqual([]);
  });

  it('is refused when one address of several is private (a rebinding set-up)', async () => {
    const { seen, options } = fake({}, [PUBLIC, { address: '10.0.0.1', family: 4 }]);
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toMatch(
      /not public \(private\)/,
    );
    expect(seen.requests).toEqual([]);
  });

  it('is refused when the name does not resolve, or resolves to nothing', async () => {
    const failing = fake();
    failing.options.resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND client.example'), { code: 'ENOTFOUND' });
    };
    expect(await refusedWith(createClientMetadataFetcher(failing.options)(CLIENT_ID))).toBe(
      "The host of the client's metadata document, client.example, could not be resolved.",
    );
    const empty = fake({}, []);
    expect(await refusedWith(createClientMetadataFetcher(empty.options)(CLIENT_ID))).toMatch(
      /could not be resolved/,
    );
    expect(empty.seen.requests).toEqual([]);
  });
});

describe('a response that is refused', () => {
  it.each([301, 302, 303, 307, 308])('a redirect (%i) is not followed', async (status) => {
    const { seen, options } = fake({
      status,
      headers: { location: 'https://client.example/other.json' },
      body: '',
    });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      `The client's metadata document answered with a redirect (HTTP ${status}); redirects are not followed: serve it at the client_id URL itself.`,
    );
    expect(seen.requests).toHaveLength(1);
  });

  it('an error status, without its body', async () => {
    const { options } = fake({ status: 404, body: 'secret internal page' });
    const description = await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID));
    expect(description).toBe("The client's metadata document answered HTTP 404 instead of 200.");
  });

  it.each([
    ['text/html', { 'content-type': 'text/html' }],
    ['application/jsonp', { 'content-type': 'application/jsonp' }],
    ['no content type', {}],
  ])('content served as %s', async (_label, headers) => {
    const { options } = fake({ headers });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      "The client's metadata document is not served as application/json.",
    );
  });

  const sixKiB = () => Array.from({ length: 6 }, () => new Uint8Array(1024).fill(0x20));

  it('a 6 KiB body that says so in Content-Length, refused before it is read', async () => {
    const { seen, options } = fake({
      headers: { ...JSON_TYPE, 'content-length': String(6 * 1024) },
      body: sixKiB(),
    });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      "The client's metadata document is larger than 5120 bytes.",
    );
    expect(seen.chunksRead).toBe(0);
  });

  it('a 6 KiB body without Content-Length, reading stopped past the limit', async () => {
    const { seen, options } = fake({ body: sixKiB() });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toMatch(
      /larger than 5120 bytes/,
    );
    expect(seen.chunksRead).toBe(6); // the sixth chunk is the one that crosses the limit
    expect(seen.bodyClosed).toBe(true);
  });

  it('a 6 KiB body whose Content-Length claims less', async () => {
    const chunks = [...sixKiB(), ...sixKiB()];
    const { seen, options } = fake({ headers: { ...JSON_TYPE, 'content-length': '100' }, body: chunks });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toMatch(
      /larger than 5120 bytes/,
    );
    expect(seen.chunksRead).toBe(6);
  });

  it('a server that does not answer in time, with the request aborted', async () => {
    let signal: AbortSignal | undefined;
    const { options } = fake((request) => {
      signal = request.signal;
      return new Promise(() => {});
    });
    const started = performance.now();
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      "The client's metadata document did not arrive within 0.2 seconds.",
    );
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(signal?.aborted).toBe(true);
  });

  it('a body that stalls after its headers', async () => {
    const { options } = fake(async () => ({
      status: 200,
      headers: JSON_TYPE,
      body: (async function* () {
        yield new TextEncoder().encode('{"client_id":');
        await new Promise(() => {});
      })(),
    }));
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toMatch(
      /did not arrive within/,
    );
  });

  it('a resolver that does not answer in time', async () => {
    const { seen, options } = fake();
    options.resolve = () => new Promise(() => {});
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toMatch(
      /did not arrive within/,
    );
    expect(seen.requests).toEqual([]);
  });

  it('a connection that fails, naming its code and nothing else', async () => {
    const { options } = fake(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 93.184.215.14:443 (internal detail)'), {
        code: 'ECONNREFUSED',
      });
    });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      "The client's metadata document could not be fetched (ECONNREFUSED).",
    );
  });
});

describe('a document that is refused', () => {
  const refusal = (body: string) =>
    refusedWith(createClientMetadataFetcher(fake({ body }).options)(CLIENT_ID));

  it('is not JSON, not UTF-8, or not an object', async () => {
    expect(await refusal('{"client_id": <b>')).toBe("The client's metadata document is not valid JSON.");
    expect(await refusal('')).toMatch(/not valid JSON/);
    expect(await refusal(String.fromCharCode(0xff))).toMatch(/not valid JSON/);
    const latin1 = fake({ body: [new Uint8Array([0x22, 0xff, 0x22])] });
    expect(await refusedWith(createClientMetadataFetcher(latin1.options)(CLIENT_ID))).toMatch(
      /not valid JSON/,
    );
    expect(await refusal('[1,2]')).toBe("The client's metadata document is not a JSON object.");
    expect(await refusal('null')).toMatch(/not a JSON object/);
  });

  it('names another client_id, which the description does not repeat', async () => {
    for (const client_id of [
      'https://evil.example/oauth/metadata.json',
      `${CLIENT_ID}/`,
      CLIENT_ID.toUpperCase(),
    ]) {
      const description = await refusal(JSON.stringify(documentFor({ client_id })));
      expect(description).toBe(
        "The client_id in the client's metadata document is not exactly the URL it was fetched from.",
      );
    }
    expect(await refusal(JSON.stringify(documentFor({ client_id: undefined })))).toMatch(
      /not exactly the URL/,
    );
  });

  it('has no redirect_uris, or an empty list', async () => {
    expect(await refusal(JSON.stringify(documentFor({ redirect_uris: undefined })))).toBe(
      "The client's metadata document is refused: redirect_uris is required: list the URIs the client receives codes at.",
    );
    expect(await refusal(JSON.stringify(documentFor({ redirect_uris: [] })))).toMatch(/at least one/);
  });

  it('lists a redirect URI that may not be registered, named by its place, not echoed', async () => {
    const description = await refusal(
      JSON.stringify(documentFor({ redirect_uris: ['https://client.example/cb', 'javascript:alert(1)'] })),
    );
    expect(description).toBe(
      "The client's metadata document is refused: redirect_uris[1] uses the javascript: scheme, which cannot receive a code: use https, a loopback http URI or the client's own private-use scheme.",
    );
    expect(description).not.toContain('alert');
  });

  it('lists a redirect URI an operating system runs something with (ms-msdt:, search-ms:, itms-services:)', async () => {
    for (const uri of ['ms-msdt:?id=x', 'search-ms:query=x', 'itms-services://?action=x', 'shell:startup'])
      expect(
        await refusal(JSON.stringify(documentFor({ redirect_uris: ['https://client.example/cb', uri] }))),
        uri,
      ).toMatch(/^The client's metadata document is refused: redirect_uris\[1\] uses the [a-z-]+: scheme/);
  });

  it('names an application_type its redirect URIs do not fit, or an unknown one (SEP-837)', async () => {
    expect(
      await refusal(
        JSON.stringify(documentFor({ redirect_uris: ['http://127.0.0.1/cb'], application_type: 'web' })),
      ),
    ).toMatch(/refused: application_type "web" takes https redirect URIs only/);
    expect(await refusal(JSON.stringify(documentFor({ application_type: 'browser' })))).toMatch(
      /application_type must be "native" or "web"/,
    );
  });

  it('has a client_name that is too long or hides characters', async () => {
    expect(await refusal(JSON.stringify(documentFor({ client_name: 'n'.repeat(101) })))).toMatch(
      /client_name must be at most 100 characters/,
    );
    expect(await refusal(JSON.stringify(documentFor({ client_name: 'Claude\u202e' })))).toMatch(
      /control or invisible/,
    );
  });

  it('is a confidential client', async () => {
    expect(await refusal(JSON.stringify(documentFor({ client_secret: 's3cret' })))).toMatch(
      /carries a client secret/,
    );
    expect(
      await refusal(JSON.stringify(documentFor({ token_endpoint_auth_method: 'private_key_jwt' }))),
    ).toMatch(/public clients only: set token_endpoint_auth_method to "none"/);
    expect(
      await refusal(
        JSON.stringify(
          documentFor({
            token_endpoint_auth_method: 'client_secret_basic',
            token_endpoint_auth_methods_supported: ['client_secret_basic'],
          }),
        ),
      ),
    ).toMatch(/public clients only/);
  });
});

describe('local mode', () => {
  const LOCAL = 'http://127.0.0.1:8123/client.json';
  const localDocument = JSON.stringify(documentFor({ client_id: LOCAL }));

  it('fetches a loopback http document straight from 127.0.0.1, without resolving', async () => {
    const { seen, options } = fake({ body: localDocument });
    const result = await createClientMetadataFetcher({ ...options, allowLoopbackHttp: true })(LOCAL);
    expect(result.ok && result.client.verified_domain).toBe('127.0.0.1:8123');
    expect(seen.resolved).toEqual([]);
    expect(seen.requests[0]).toMatchObject({ address: '127.0.0.1', family: 4 });
  });

  it('keeps every other rule, for loopback and for https', async () => {
    const redirecting = fake({ status: 302, body: '' });
    expect(
      await refusedWith(
        createClientMetadataFetcher({ ...redirecting.options, allowLoopbackHttp: true })(LOCAL),
      ),
    ).toMatch(/redirect/);
    const other = fake({ body: JSON.stringify(documentFor()) });
    expect(
      await refusedWith(createClientMetadataFetcher({ ...other.options, allowLoopbackHttp: true })(LOCAL)),
    ).toMatch(/not exactly the URL/);
    const privateHost = fake({}, [{ address: '127.0.0.1', family: 4 }]);
    expect(
      await refusedWith(
        createClientMetadataFetcher({ ...privateHost.options, allowLoopbackHttp: true })(CLIENT_ID),
      ),
    ).toMatch(/not public \(loopback\)/);
    const named = fake();
    expect(
      await refusedWith(
        createClientMetadataFetcher({ ...named.options, allowLoopbackHttp: true })(
          'http://localhost:8123/client.json',
        ),
      ),
    ).toMatch(/not a metadata document URL/);
  });
});

describe('the cache', () => {
  const withCacheControl = (value: string | undefined) =>
    fake({ headers: value === undefined ? JSON_TYPE : { ...JSON_TYPE, 'cache-control': value } });

  it('keeps a document for its max-age', async () => {
    const { seen, options, advance } = withCacheControl('public, max-age=60');
    const fetch = createClientMetadataFetcher(options);
    await fetch(CLIENT_ID);
    advance(59_000);
    expect((await fetch(CLIENT_ID)).ok).toBe(true);
    expect(seen.requests).toHaveLength(1);
    advance(1_000);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(2);
  });

  it('keeps a document at most 24 hours', async () => {
    const { seen, options, advance } = withCacheControl('max-age=31536000');
    const fetch = createClientMetadataFetcher(options);
    await fetch(CLIENT_ID);
    advance(24 * 3_600_000 - 1);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(1);
    advance(1);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(2);
  });

  it('keeps nothing of a no-store document', async () => {
    const { seen, options } = withCacheControl('no-store');
    const fetch = createClientMetadataFetcher(options);
    await fetch(CLIENT_ID);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(2);
  });

  it('keeps a document that says nothing for five minutes', async () => {
    const { seen, options, advance } = withCacheControl(undefined);
    const fetch = createClientMetadataFetcher(options);
    await fetch(CLIENT_ID);
    advance(CLIENT_METADATA_LIMITS.defaultCacheMs - 1);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(1);
    advance(1);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(2);
  });

  it('keeps a refusal only for a moment', async () => {
    const { seen, options, advance } = fake({ status: 500 });
    const fetch = createClientMetadataFetcher(options);
    await fetch(CLIENT_ID);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(1);
    advance(CLIENT_METADATA_LIMITS.failureCacheMs);
    await fetch(CLIENT_ID);
    expect(seen.requests).toHaveLength(2);
  });

  it('shares one request between concurrent fetches of a document', async () => {
    const { seen, options } = withCacheControl('no-store');
    const fetch = createClientMetadataFetcher(options);
    const results = await Promise.all([fetch(CLIENT_ID), fetch(CLIENT_ID), fetch(CLIENT_ID)]);
    expect(results.every((result) => result.ok)).toBe(true);
    expect(seen.requests).toHaveLength(1);
  });

  it('is bounded, and belongs to one fetcher', async () => {
    const { seen, options } = fake();
    const small = createClientMetadataFetcher({ ...options, cacheSize: 1 });
    await small(CLIENT_ID);
    await small('https://other.example/x'); // refused (its client_id differs), and evicts the first
    await small(CLIENT_ID);
    expect(seen.requests).toHaveLength(3);
    await createClientMetadataFetcher(options)(CLIENT_ID);
    expect(seen.requests).toHaveLength(4);
  });
});

describe('how long Cache-Control lets a document be kept', () => {
  it.each([
    [undefined, CLIENT_METADATA_LIMITS.defaultCacheMs],
    ['public', CLIENT_METADATA_LIMITS.defaultCacheMs],
    ['max-age=300', 300_000],
    ['Public, Max-Age=120', 120_000],
    ['max-age="90"', 90_000],
    ['max-age=0', 0],
    ['max-age=86401', 86_400_000],
    ['no-store', 0],
    ['max-age=600, no-store', 0],
    ['no-cache', 0],
    ['max-age=abc', CLIENT_METADATA_LIMITS.defaultCacheMs],
  ])('%s: %i ms', (header, ms) => {
    expect(cacheLifetimeMs(header)).toBe(ms);
  });
});

describe('which addresses are public', () => {
  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    // An embedded IPv4 address read whole, whatever its octets' lengths.
    '::ffff:93.184.215.14',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is', (address) => {
    expect(nonPublicAddress(address)).toBeUndefined();
  });

  it.each([
    ['0.1.2.3', 'unspecified'],
    ['127.255.255.254', 'loopback'],
    ['172.16.0.1', 'private'],
    ['100.127.255.255', 'shared (carrier-grade NAT)'],
    ['192.0.0.170', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['239.255.255.250', 'multicast'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:10.0.100.1', 'private'],
    ['::ffff:10.0.0.10', 'private'],
    ['::ffff:0:0', 'unspecified'],
    ['fc00::1', 'private'],
    ['fec0::1', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['100::1', 'reserved'],
    ['::1.2.3.4', 'reserved'],
    ['client.example', 'invalid'],
    ['', 'invalid'],
  ])('%s is not (%s)', (address, kind) => {
    expect(nonPublicAddress(address)).toBe(kind);
  });
});

describe('the edges of a fetch', () => {
  it('names a failure’s code only when it is one: upper case, digits and underscores, 40 at most', async () => {
    for (const [code, said] of [
      ['ECONNRESET', ' (ECONNRESET)'],
      ['econnreset', ''],
      ['ECONN-RESET', ''],
      ['eECONNRESET', ''],
      ['A'.repeat(41), ''],
      [42, ''],
    ] as const) {
      const { options } = fake(async () => {
        throw Object.assign(new Error('internal detail'), { code });
      });
      expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
        `The client's metadata document could not be fetched${said}.`,
      );
    }
    const { options } = fake(async () => {
      throw null;
    });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      "The client's metadata document could not be fetched.",
    );
  });

  it('refuses every 3xx as a redirect, and a 400 as an answer other than 200', async () => {
    for (const status of [300, 399]) {
      const { options } = fake({ status });
      expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toMatch(
        new RegExp(`answered with a redirect \\(HTTP ${status}\\)`),
      );
    }
    const { options } = fake({ status: 400 });
    expect(await refusedWith(createClientMetadataFetcher(options)(CLIENT_ID))).toBe(
      "The client's metadata document answered HTTP 400 instead of 200.",
    );
  });

  it('takes a document exactly at the size limit, by its declared length too', async () => {
    const body = JSON.stringify(documentFor());
    const padded = `${body.slice(0, -1)}${' '.repeat(CLIENT_METADATA_LIMITS.maxBytes - body.length)}}`;
    expect(padded.length).toBe(CLIENT_METADATA_LIMITS.maxBytes);
    const { options } = fake({
      body: padded,
      headers: { ...JSON_TYPE, 'content-length': String(padded.length) },
    });
    expect((await createClientMetadataFetcher(options)(CLIENT_ID)).ok).toBe(true);
  });

  it('fetches again a document that may not be kept (max-age=0)', async () => {
    const { seen, options } = fake({ headers: { ...JSON_TYPE, 'cache-control': 'max-age=0' } });
    const fetcher = createClientMetadataFetcher(options);
    expect((await fetcher(CLIENT_ID)).ok).toBe(true);
    expect((await fetcher(CLIENT_ID)).ok).toBe(true);
    expect(seen.requests).toHaveLength(2);
  });

  it('reads a max-age directive only when it is the whole directive', () => {
    for (const header of ['smax-age=5', 'max-age=5x', 'max-agex=5'])
      expect(cacheLifetimeMs(header)).toBe(CLIENT_METADATA_LIMITS.defaultCacheMs);
    expect(cacheLifetimeMs('max-age = 5')).toBe(5000);
  });
});
