import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { bare, nonPublicAddress } from './public-address.ts';

/**
 * The network side of the metadata document fetcher (lib/oauth/client-metadata.ts): resolving a
 * name, the request to the one vetted address, and reading what came back within its limits.
 */

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** What the fetcher asks its transport: GET `url`, connecting to `address` and nowhere else. */
export interface MetadataRequest {
  url: URL;
  /** The vetted address to connect to; the transport must not resolve `url`'s host again. */
  address: string;
  family: 4 | 6;
  /** Aborted when the fetch took too long or the body grew too large. */
  signal: AbortSignal;
}

/** The transport's answer; the fetcher reads `body` itself, to stop at its size limit. */
export interface MetadataResponse {
  status: number;
  /** Response headers, by lower-case name. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: AsyncIterable<Uint8Array>;
}

export type MetadataTransport = (request: MetadataRequest) => Promise<MetadataResponse>;

/** Every address `host` resolves to, as the operating system resolves it (hosts file included). */
export async function resolveAll(host: string): Promise<ResolvedAddress[]> {
  const found = await lookup(host, { all: true, order: 'verbatim' });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** How a fetch of a URL someone else chose may connect (see {@link vettedAddress}). */
export interface AddressRules {
  /** Resolves a host name to all its addresses. */
  resolve: (host: string) => Promise<ResolvedAddress[]>;
  /** Local mode only: `http://127.0.0.1:<port>/…` too, skipping the public-address rule for it alone. */
  allowLoopbackHttp: boolean;
}

/**
 * Where to connect for `url`, or why not, as a sentence about `what` ("The client's metadata
 * document"): `https` on port 443 to a domain name (never an IP literal) that resolves only to
 * public addresses; the first of them is the one to connect to, never a second lookup (DNS
 * rebinding). With `allowLoopbackHttp`, `http://127.0.0.1[:port]` as well.
 */
export async function vettedAddress(
  { allowLoopbackHttp, resolve }: AddressRules,
  url: URL,
  what: string,
): Promise<ResolvedAddress | string> {
  if (allowLoopbackHttp && url.protocol === 'http:' && url.hostname === '127.0.0.1')
    return { address: '127.0.0.1', family: 4 };
  if (url.protocol !== 'https:') return `${what} must be served over https.`;
  if (url.port !== '') return `${what} must be served on port 443, not on port ${url.port}.`;
  if (isIP(bare(url.hostname)) !== 0)
    return `${what} must be served from a domain name, not from an IP address.`;
  const lower = lowerFirst(what);
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(url.hostname);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return `The host of ${lower}, ${url.hostname}, could not be resolved.`;
  for (const { address } of addresses) {
    const kind = nonPublicAddress(address);
    if (kind)
      return `The host of ${lower}, ${url.hostname}, resolves to an address that is not public (${kind}); only documents on public addresses are fetched.`;
  }
  return addresses[0] as ResolvedAddress;
}

/**
 * The default transport: `node:https` (or `node:http` for local mode's loopback documents),
 * connecting to the vetted address through a `lookup` that answers only it, with the TLS server
 * name (and so the certificate check) on the URL's host. No agent: no connection is reused, and
 * nothing follows a redirect.
 */
export function nodeMetadataTransport({
  url,
  address,
  family,
  signal,
}: MetadataRequest): Promise<MetadataResponse> {
  const secure = url.protocol === 'https:';
  const pinned: LookupFunction = (_host, options, callback) => {
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent on Node 24, whose connect asks for every address (`all`) when it picks a family itself; the other form is for other callers of a lookup
    if (options.all) callback(null, [{ address, family }]);
    // Stryker disable next-line CallExpression: equivalent on Node 24, as above
    else callback(null, address, family);
  };
  const options: https.RequestOptions = {
    // Stryker disable next-line StringLiteral: equivalent, Node sends GET for a request without a method
    method: 'GET',
    host: bare(url.hostname),
    // Stryker disable next-line ConditionalExpression,StringLiteral: the default ports (443, 80) cannot be listened on by a test; an explicit port is tested
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { accept: 'application/json' },
    agent: false,
    lookup: pinned,
    signal,
    // Stryker disable next-line ObjectLiteral: equivalent, Node names the `host` option (the same name) to the server when no `servername` is given; stated so a change of `host` cannot drop it
    ...(secure ? { servername: url.hostname } : {}),
  };
  return new Promise((settle, fail) => {
    const request = (secure ? https : http).request(options, (response) =>
      settle({ status: response.statusCode ?? 0, headers: response.headers, body: response }),
    );
    request.on('error', fail);
    request.end();
  });
}

/** The body's bytes, or undefined as soon as it grows past `maxBytes` (the rest is not read). */
export async function readAtMost(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A response header, its repeated values joined. */
export function header(headers: MetadataResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `application/json; charset=utf-8` → `application/json`. */
export const mediaType = (contentType: string | undefined) =>
  // Stryker disable next-line OptionalChaining: equivalent, split always gives a first element
  contentType?.split(';')[0]?.trim().toLowerCase();

/** A Node error code (`ECONNREFUSED`, `CERT_HAS_EXPIRED`) in parentheses, never a message. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
}

/** A sentence begun in lower case, to be quoted inside another. */
export const lowerFirst = (sentence: string) => sentence.charAt(0).toLowerCase() + sentence.slice(1);

/**
 * The JSON of a 200 answer about `what` ("The client's metadata document"), or why there is none:
 * served as `application/json`, at most `maxBytes` whatever its `Content-Length` says, read to its
 * end, valid UTF-8 JSON.
 */
export async function readJsonDocument(
  response: MetadataResponse,
  maxBytes: number,
  what: string,
): Promise<{ ok: true; json: unknown } | { ok: false; reason: string }> {
  const refused = (reason: string) => ({ ok: false as const, reason });
  if (mediaType(header(response.headers, 'content-type')) !== 'application/json')
    return refused(`${what} is not served as application/json.`);
  const tooLarge = refused(`${what} is larger than ${maxBytes} bytes.`);
  const declared = Number(header(response.headers, 'content-length') ?? Number.NaN);
  if (declared > maxBytes) return tooLarge;
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readAtMost(response.body, maxBytes);
  } catch (err) {
    return refused(`${what} could not be read to its end${errorCode(err)}.`);
  }
  if (!bytes) return tooLarge;
  try {
    return { ok: true, json: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return refused(`${what} is not valid JSON.`);
  }
}
