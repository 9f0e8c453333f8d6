import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Lru } from '#lib/keys/lru';
import { DAY_MS } from '#lib/limits';
import {
  clientNameProblem,
  isMetadataDocumentClientId,
  type OAuthClient,
  redirectUrisProblem,
} from './clients.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; the MCP
 * authorization spec of 2025-11-25; contract §15, "Clients"): a `client_id` that is an `https`
 * URL names a JSON document, fetched from that URL, that describes the client.
 *
 * Fetching a URL someone else chose is a server-side request forgery risk, so the fetch is narrow:
 * - only `https` on port 443, to a domain name (never an IP literal);
 * - the name is resolved once and every address it resolves to must be public (no loopback,
 *   private, link-local or cloud metadata address, nor one of those inside an IPv6 form), and the
 *   connection goes to the address that was checked, never to a second lookup (DNS rebinding),
 *   with the TLS server name and certificate check on the domain name;
 * - no redirects, at most {@link CLIENT_METADATA_LIMITS}' time and size whatever the headers say,
 *   and `application/json` only.
 * Local mode alone may allow `http://127.0.0.1:<port>/…` documents (`allowLoopbackHttp`), for the
 * tests and demos that serve one on loopback; that case skips the public-address rule and nothing
 * else.
 *
 * Descriptions say what was wrong with the document without repeating what it contained: the
 * person reading them may not be the one who wrote it.
 */

export const CLIENT_METADATA_LIMITS = {
  /** The whole fetch, from resolving the name to the last byte. */
  timeoutMs: 3_000,
  /** The largest document read; a larger one is refused, whatever its Content-Length says. */
  maxBytes: 5 * 1024,
  /**
   * How long a document that says nothing of caching is kept: short enough that a client that
   * changes its redirect URIs is not refused for long, long enough that a flow (authorize, consent,
   * token) fetches it once.
   */
  defaultCacheMs: 5 * 60_000,
  /** The longest a document is kept, whatever its `max-age` (contract §15). */
  maxCacheMs: DAY_MS,
  /**
   * How long a refusal is kept: a moment, so that a burst of requests naming a broken or slow
   * document fetches it once, while its author's fix is seen on the next try.
   */
  failureCacheMs: 10_000,
  /** Documents (and refusals) kept in memory; the least recently used is forgotten first. */
  cacheSize: 1_000,
} as const;

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

export type ClientMetadataResult =
  | { ok: true; client: OAuthClient }
  | { ok: false; error_description: string };

export type ClientMetadataFetcher = (clientId: string) => Promise<ClientMetadataResult>;

export interface ClientMetadataFetcherOptions {
  /** @default () => new Date() */
  now?: () => Date;
  /** Resolves a host name to all its addresses. @default `dns.lookup` with `all: true` */
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
  /** Sends the request. @default {@link nodeMetadataTransport} */
  request?: MetadataTransport;
  /** @default CLIENT_METADATA_LIMITS.timeoutMs */
  timeoutMs?: number;
  /** @default CLIENT_METADATA_LIMITS.maxBytes */
  maxBytes?: number;
  /** @default CLIENT_METADATA_LIMITS.cacheSize */
  cacheSize?: number;
  /**
   * Local mode only: also fetch `http://127.0.0.1:<any port>/…` documents, skipping the
   * public-address rule for them alone. @default false
   */
  allowLoopbackHttp?: boolean;
}

/** A result, and how long it may be remembered. */
interface Outcome {
  result: ClientMetadataResult;
  cacheMs: number;
}

const DOCUMENT = "The client's metadata document";

/**
 * A fetcher of Client ID Metadata Documents with its own cache (one per process is enough; two
 * fetchers share nothing). Concurrent fetches of one document share a single request. Never
 * throws: every failure is a refusal with a description.
 */
export function createClientMetadataFetcher(
  options: ClientMetadataFetcherOptions = {},
): ClientMetadataFetcher {
  const now = options.now ?? (() => new Date());
  const resolve = options.resolve ?? resolveAll;
  const transport = options.request ?? nodeMetadataTransport;
  const timeoutMs = options.timeoutMs ?? CLIENT_METADATA_LIMITS.timeoutMs;
  const maxBytes = options.maxBytes ?? CLIENT_METADATA_LIMITS.maxBytes;
  const allowLoopbackHttp = options.allowLoopbackHttp === true;
  const cache = new Lru<string, { result: ClientMetadataResult; until: number }>(
    options.cacheSize ?? CLIENT_METADATA_LIMITS.cacheSize,
  );
  const inFlight = new Map<string, Promise<ClientMetadataResult>>();

  const refused = (error_description: string): Outcome => ({
    result: { ok: false, error_description },
    cacheMs: CLIENT_METADATA_LIMITS.failureCacheMs,
  });

  const notKept = (error_description: string): Outcome => ({
    result: { ok: false, error_description },
    cacheMs: 0,
  });

  /** Where to connect for `url`, or why not. */
  async function vettedAddress(url: URL): Promise<ResolvedAddress | Outcome> {
    if (allowLoopbackHttp && url.protocol === 'http:' && url.hostname === '127.0.0.1')
      return { address: '127.0.0.1', family: 4 };
    if (url.protocol !== 'https:') return refused(`${DOCUMENT} must be served over https.`);
    if (url.port !== '') return refused(`${DOCUMENT} must be served on port 443, not on port ${url.port}.`);
    if (isIP(bare(url.hostname)) !== 0)
      return refused(`${DOCUMENT} must be served from a domain name, not from an IP address.`);
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(url.hostname);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0)
      return refused(`The host of ${lower(DOCUMENT)}, ${url.hostname}, could not be resolved.`);
    for (const { address } of addresses) {
      const kind = nonPublicAddress(address);
      if (kind)
        return refused(
          `The host of ${lower(DOCUMENT)}, ${url.hostname}, resolves to an address that is not public (${kind}); only documents on public addresses are fetched.`,
        );
    }
    return addresses[0] as ResolvedAddress;
  }

  async function retrieve(clientId: string, url: URL, signal: AbortSignal): Promise<Outcome> {
    const target = await vettedAddress(url);
    if ('result' in target) return target;
    let response: MetadataResponse;
    try {
      response = await transport({ url, ...target, signal });
    } catch (err) {
      return refused(`${DOCUMENT} could not be fetched${errorCode(err)}.`);
    }
    const { status, headers } = response;
    if (status >= 300 && status < 400)
      return refused(
        `${DOCUMENT} answered with a redirect (HTTP ${status}); redirects are not followed: serve it at the client_id URL itself.`,
      );
    if (status !== 200) return refused(`${DOCUMENT} answered HTTP ${status} instead of 200.`);
    if (mediaType(header(headers, 'content-type')) !== 'application/json')
      return refused(`${DOCUMENT} is not served as application/json.`);
    const tooLarge = refused(`${DOCUMENT} is larger than ${maxBytes} bytes.`);
    const declared = Number(header(headers, 'content-length') ?? Number.NaN);
    if (declared > maxBytes) return tooLarge;
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readAtMost(response.body, maxBytes);
    } catch (err) {
      return refused(`${DOCUMENT} could not be read to its end${errorCode(err)}.`);
    }
    if (!bytes) return tooLarge;
    let document: unknown;
    try {
      document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return refused(`${DOCUMENT} is not valid JSON.`);
    }
    const client = clientFromDocument(clientId, url, document);
    if (typeof client === 'string') return refused(client);
    return { result: { ok: true, client }, cacheMs: cacheLifetimeMs(header(headers, 'cache-control')) };
  }

  /** One fetch, within the time limit; the request is torn down whatever the outcome. */
  async function fetchOnce(clientId: string): Promise<Outcome> {
    // Not kept: telling costs nothing, and junk ids must not push documents out of the cache.
    if (!isMetadataDocumentClientId(clientId, { allowLoopbackHttp }))
      return notKept(
        'The client_id is not a metadata document URL: it must be an https URL with a path, written in its canonical form.',
      );
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Outcome>((settle) => {
      timer = setTimeout(
        () => settle(refused(`${DOCUMENT} did not arrive within ${timeoutMs / 1000} seconds.`)),
        timeoutMs,
      );
    });
    try {
      const work = retrieve(clientId, new URL(clientId), controller.signal).catch(() =>
        refused(`${DOCUMENT} could not be fetched.`),
      );
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  return async (clientId) => {
    const kept = cache.get(clientId);
    if (kept && kept.until > now().getTime()) return kept.result;
    const pending = inFlight.get(clientId);
    if (pending) return pending;
    const attempt = fetchOnce(clientId).then(({ result, cacheMs }) => {
      if (cacheMs > 0) cache.set(clientId, { result, until: now().getTime() + cacheMs });
      else cache.delete(clientId);
      return result;
    });
    inFlight.set(clientId, attempt);
    try {
      return await attempt;
    } finally {
      inFlight.delete(clientId);
    }
  };
}

/**
 * The client a document describes, or why it is refused. The document's `client_id` must be the
 * URL exactly; it must list `redirect_uris`; its `client_name` is used when present, else the
 * URL's host; it must be a public client (it must not carry a secret, and it authenticates with
 * `none`, or lists `none` among its `token_endpoint_auth_methods_supported`). Other metadata is
 * ignored.
 */
function clientFromDocument(clientId: string, url: URL, document: unknown): OAuthClient | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    return `${DOCUMENT} is not a JSON object.`;
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId)
    return `The client_id in ${lower(DOCUMENT)} is not exactly the URL it was fetched from.`;
  const urisProblem = redirectUrisProblem(doc.redirect_uris, { echo: false });
  if (urisProblem) return `${DOCUMENT} is refused: ${urisProblem}`;
  if (doc.client_name !== undefined) {
    const nameProblem = clientNameProblem(doc.client_name);
    if (nameProblem) return `${DOCUMENT} is refused: ${nameProblem}`;
  }
  if ('client_secret' in doc || 'client_secret_expires_at' in doc)
    return `${DOCUMENT} carries a client secret; a metadata document describes a public client and must not.`;
  const method = doc.token_endpoint_auth_method;
  const methods = doc.token_endpoint_auth_methods_supported;
  const offersNone = Array.isArray(methods) && methods.includes('none');
  if (method !== undefined && method !== 'none' && !offersNone)
    return `${DOCUMENT} asks for token endpoint authentication; this server accepts public clients only: set token_endpoint_auth_method to "none".`;
  return {
    client_id: clientId,
    client_name: typeof doc.client_name === 'string' ? doc.client_name.trim() : url.host,
    redirect_uris: [...new Set(doc.redirect_uris as string[])],
    verified_domain: url.host,
    registration: 'metadata_document',
  };
}

/**
 * How long a document may be kept, from its `Cache-Control`: its `max-age` up to
 * {@link CLIENT_METADATA_LIMITS}.maxCacheMs, nothing for `no-store` or `no-cache` (nothing here
 * revalidates), the default when it says nothing of its age. `Expires` is not read.
 */
export function cacheLifetimeMs(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return CLIENT_METADATA_LIMITS.defaultCacheMs;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((directive) => directive.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0;
  for (const directive of directives) {
    const seconds = /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)?.[1];
    if (seconds !== undefined) return Math.min(Number(seconds) * 1000, CLIENT_METADATA_LIMITS.maxCacheMs);
  }
  return CLIENT_METADATA_LIMITS.defaultCacheMs;
}

/** The body's bytes, or undefined as soon as it grows past `maxBytes` (the rest is not read). */
async function readAtMost(
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

function header(headers: MetadataResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `application/json; charset=utf-8` → `application/json`. */
const mediaType = (contentType: string | undefined) => contentType?.split(';')[0]?.trim().toLowerCase();

const lower = (sentence: string) => sentence.charAt(0).toLowerCase() + sentence.slice(1);

/** A Node error code (`ECONNREFUSED`, `CERT_HAS_EXPIRED`) in parentheses, never a message. */
function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
}

/** `[::1]` → `::1`: URL keeps an IPv6 host in brackets. */
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address `host` resolves to, as the operating system resolves it (hosts file included). */
async function resolveAll(host: string): Promise<ResolvedAddress[]> {
  const found = await lookup(host, { all: true, order: 'verbatim' });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
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
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const options: https.RequestOptions = {
    method: 'GET',
    host: bare(url.hostname),
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { accept: 'application/json' },
    agent: false,
    lookup: pinned,
    signal,
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

/** An IPv4 address as a number, or an IPv6 address as a bigint, and the width in bits. */
type Ip = { value: bigint; bits: 32 | 128 };

function ipv4(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function ipv6(address: string): bigint {
  let text = address.split('%')[0] as string;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const v4 = ipv4(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const [head = '', tail] = text.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const hextets = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return hextets.reduce((acc, hextet) => (acc << 16n) | BigInt(Number.parseInt(hextet, 16)), 0n);
}

function parseIp(address: string): Ip | undefined {
  const family = isIP(address);
  if (family === 4) return { value: ipv4(address), bits: 32 };
  if (family === 6) return { value: ipv6(address), bits: 128 };
  return undefined;
}

/** A range of addresses that are not public, most specific first. */
type Range = { ip: Ip; prefix: number; kind: string };

const range = (cidr: string, kind: string): Range => {
  const [address = '', prefix = ''] = cidr.split('/');
  return { ip: parseIp(address) as Ip, prefix: Number(prefix), kind };
};

/** IANA's IPv4 special-purpose registry, by what a description calls each kind. */
const IPV4_RANGES: readonly Range[] = [
  range('169.254.169.254/32', 'cloud metadata'),
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared (carrier-grade NAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

/** IPv6 forms that carry an IPv4 address, and where in them it is. */
const IPV4_CARRIERS: readonly { range: Range; shift: bigint }[] = [
  { range: range('::ffff:0:0/96', 'IPv4-mapped'), shift: 0n },
  { range: range('64:ff9b::/96', 'NAT64'), shift: 0n },
  { range: range('2002::/16', '6to4'), shift: 80n },
];

const IPV6_RANGES: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fd00:ec2::254/128', 'cloud metadata'),
  range('fc00::/7', 'private'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'),
  range('ff00::/8', 'multicast'),
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'reserved'),
];
/** Only global unicast (2000::/3) is public; the rest of the IPv6 space is reserved. */
const GLOBAL_UNICAST = range('2000::/3', 'global unicast');

const within = ({ value, bits }: Ip, r: Range) =>
  bits === r.ip.bits && value >> BigInt(bits - r.prefix) === r.ip.value >> BigInt(bits - r.prefix);

/**
 * What kind of non-public address `address` is (`loopback`, `private`, `link-local`,
 * `cloud metadata`…), or undefined when it is public. An IPv6 address that carries an IPv4 one
 * (IPv4-mapped, NAT64, 6to4) is judged by the IPv4 address; something that is not an IP address
 * is not public.
 */
export function nonPublicAddress(address: string): string | undefined {
  const ip = parseIp(address);
  if (!ip) return 'invalid';
  if (ip.bits === 32) return IPV4_RANGES.find((r) => within(ip, r))?.kind;
  const carrier = IPV4_CARRIERS.find(({ range: r }) => within(ip, r));
  if (carrier) {
    const embedded: Ip = { value: (ip.value >> carrier.shift) & 0xffff_ffffn, bits: 32 };
    return IPV4_RANGES.find((r) => within(embedded, r))?.kind;
  }
  const kind = IPV6_RANGES.find((r) => within(ip, r))?.kind;
  if (kind) return kind;
  return within(ip, GLOBAL_UNICAST) ? undefined : 'reserved';
}
