import { Lru } from '#lib/keys/lru';
import { DAY_MS } from '#lib/limits';
import { isMetadataDocumentClientId, type OAuthClient } from './clients.ts';
import { clientFromDocument, DOCUMENT } from './metadata-document.ts';
import {
  errorCode,
  header,
  type MetadataResponse,
  type MetadataTransport,
  nodeMetadataTransport,
  type ResolvedAddress,
  readJsonDocument,
  resolveAll,
  vettedAddress,
} from './metadata-transport.ts';

export type {
  MetadataRequest,
  MetadataResponse,
  MetadataTransport,
  ResolvedAddress,
} from './metadata-transport.ts';

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

/** A fetcher's settings, its options with their defaults. */
interface FetcherSettings {
  now: () => Date;
  resolve: (host: string) => Promise<ResolvedAddress[]>;
  transport: MetadataTransport;
  timeoutMs: number;
  maxBytes: number;
  allowLoopbackHttp: boolean;
}

function fetcherSettings(options: ClientMetadataFetcherOptions): FetcherSettings {
  return {
    now: options.now ?? (() => new Date()),
    resolve: options.resolve ?? resolveAll,
    transport: options.request ?? nodeMetadataTransport,
    timeoutMs: options.timeoutMs ?? CLIENT_METADATA_LIMITS.timeoutMs,
    maxBytes: options.maxBytes ?? CLIENT_METADATA_LIMITS.maxBytes,
    allowLoopbackHttp: options.allowLoopbackHttp === true,
  };
}

/** A refusal, kept for a moment (`failureCacheMs`). */
const refused = (error_description: string): Outcome => ({
  result: { ok: false, error_description },
  cacheMs: CLIENT_METADATA_LIMITS.failureCacheMs,
});

/** A refusal not kept at all. */
const notKept = (error_description: string): Outcome => ({
  result: { ok: false, error_description },
  cacheMs: 0,
});

/** The document at `url`, fetched from its vetted address, as a result. */
async function retrieve(
  settings: FetcherSettings,
  clientId: string,
  url: URL,
  signal: AbortSignal,
): Promise<Outcome> {
  const target = await vettedAddress(settings, url, DOCUMENT);
  if (typeof target === 'string') return refused(target);
  let response: MetadataResponse;
  try {
    response = await settings.transport({ url, ...target, signal });
  } catch (err) {
    return refused(`${DOCUMENT} could not be fetched${errorCode(err)}.`);
  }
  return documentOutcome(settings.maxBytes, clientId, url, response);
}

/** What a response says: the client its document describes, or why it is refused. */
async function documentOutcome(
  maxBytes: number,
  clientId: string,
  url: URL,
  response: MetadataResponse,
): Promise<Outcome> {
  const { status, headers } = response;
  if (status >= 300 && status < 400)
    return refused(
      `${DOCUMENT} answered with a redirect (HTTP ${status}); redirects are not followed: serve it at the client_id URL itself.`,
    );
  if (status !== 200) return refused(`${DOCUMENT} answered HTTP ${status} instead of 200.`);
  const document = await readJsonDocument(response, maxBytes, DOCUMENT);
  if (!document.ok) return refused(document.reason);
  const client = clientFromDocument(clientId, url, document.json);
  if (typeof client === 'string') return refused(client);
  return { result: { ok: true, client }, cacheMs: cacheLifetimeMs(header(headers, 'cache-control')) };
}

/** One fetch, within the time limit; the request is torn down whatever the outcome. */
async function fetchOnce(settings: FetcherSettings, clientId: string): Promise<Outcome> {
  const { allowLoopbackHttp, timeoutMs } = settings;
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
    const work = retrieve(settings, clientId, new URL(clientId), controller.signal).catch(() =>
      refused(`${DOCUMENT} could not be fetched.`),
    );
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/**
 * A fetcher of Client ID Metadata Documents with its own cache (one per process is enough; two
 * fetchers share nothing). Concurrent fetches of one document share a single request. Never
 * throws: every failure is a refusal with a description.
 */
export function createClientMetadataFetcher(
  options: ClientMetadataFetcherOptions = {},
): ClientMetadataFetcher {
  const settings = fetcherSettings(options);
  const cache = new Lru<string, { result: ClientMetadataResult; until: number }>(
    options.cacheSize ?? CLIENT_METADATA_LIMITS.cacheSize,
  );
  const inFlight = new Map<string, Promise<ClientMetadataResult>>();

  return async (clientId) => {
    const kept = cache.get(clientId);
    if (kept && kept.until > settings.now().getTime()) return kept.result;
    const pending = inFlight.get(clientId);
    if (pending) return pending;
    const attempt = fetchOnce(settings, clientId).then(({ result, cacheMs }) => {
      if (cacheMs > 0) cache.set(clientId, { result, until: settings.now().getTime() + cacheMs });
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
