import { createPublicKey, verify } from 'node:crypto';
import { DependencyError } from '#lib/errors';
import { SERVICE_NAME } from '#lib/observability';

/**
 * GitHub secret scanning's signing keys and the signature check (contract §11): ECDSA P-256 with
 * SHA-256 over the raw body, the signature DER-encoded and base64'd, the key named by
 * `Github-Public-Key-Identifier`. The check is node:crypto's; nothing here is crypto of our own.
 */

export const GITHUB_PUBLIC_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning';
/** An unknown key identifier refetches the keys at most this often. */
export const REFETCH_INTERVAL_MS = 60_000;

export interface GithubPublicKey {
  key_identifier: string;
  /** PEM (SubjectPublicKeyInfo). */
  key: string;
  is_current?: boolean;
}

/** Where the published keys come from: GitHub's URL when deployed, the dev key in local mode. */
export type KeyFetcher = () => Promise<GithubPublicKey[]>;

/** GitHub's key document is a few kilobytes; an answer larger than this is refused, not buffered. */
export const MAX_KEYS_DOCUMENT_BYTES = 1024 * 1024;

/**
 * Fetches GitHub's published document `{ public_keys: [...] }` from `url`. The request goes
 * through node's own `http`/`https`, which the AWS SDK has already loaded: `fetch` would load
 * undici on first use, about 15 ms of this function's cold start (docs/benchmarks.md).
 */
export function fetchPublishedKeys(url: string, timeoutMs = 5000): KeyFetcher {
  return async () => {
    const { status, body } = await get(
      url,
      { accept: 'application/json', 'user-agent': SERVICE_NAME },
      timeoutMs,
    );
    // node reads past 1xx answers, so every status seen here is at least 200.
    if (status >= 300) throw new Error(`GitHub public keys answered ${status}`);
    const document = JSON.parse(body) as { public_keys?: unknown } | null;
    if (!Array.isArray(document?.public_keys)) throw new Error('GitHub public keys: no public_keys array');
    return document.public_keys.filter(
      (k): k is GithubPublicKey =>
        // Stryker disable next-line ConditionalExpression: JSON has no non-object with string key_identifier and key (this also switches off the chain's other conditions, killed by test/integration/github-keys.test.ts)
        typeof k === 'object' &&
        k !== null &&
        typeof (k as GithubPublicKey).key_identifier === 'string' &&
        typeof (k as GithubPublicKey).key === 'string',
    );
  };
}

/**
 * One GET: its status and its body as text, within `timeoutMs` and `MAX_KEYS_DOCUMENT_BYTES`.
 * Redirects are not followed: GitHub's URL answers directly, and a 3xx is an error.
 *
 * Node's CommonJS modules, not `import`: an ESM import of node:http builds its ESM facade, which
 * reads every export and so loads undici (for `http.WebSocket`), about 15 ms of this function's
 * cold start. They are looked up when a fetch starts, so that merely importing this module (the
 * CDK settings do, for the default URL) needs nothing of the Node version.
 */
function get(url: string, headers: Record<string, string>, timeoutMs: number) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const target = new URL(url);
    const client =
      target.protocol === 'https:'
        ? process.getBuiltinModule('node:https')
        : target.protocol === 'http:'
          ? process.getBuiltinModule('node:http')
          : undefined;
    if (!client) return reject(new Error(`cannot fetch a ${target.protocol} URL`));
    const request = client.get(target, { headers, signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
        if (size <= MAX_KEYS_DOCUMENT_BYTES) return;
        // Refused at once (an `end` that still follows settles nothing), and nothing more is read.
        reject(new Error(`answer over ${MAX_KEYS_DOCUMENT_BYTES} bytes`));
        request.destroy();
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

export interface SignatureInput {
  keyIdentifier: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
}

/**
 * The published keys, cached for the container's life. A signature under an identifier not in
 * the cache refetches them, at most once a minute, so a rotation on GitHub's side is picked up
 * and a flood of made-up identifiers cannot make us hammer GitHub.
 */
export class GithubSignatureVerifier {
  private keys = new Map<string, string>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly fetchKeys: KeyFetcher,
    private readonly now: () => number = Date.now,
  ) {}

  private async refresh(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.now() - this.fetchedAt < REFETCH_INTERVAL_MS) return;
    // The attempt counts even when it fails: GitHub being down must not turn into a fetch per request.
    this.fetchedAt = this.now();
    this.pending = (async () => {
      try {
        const keys = await this.fetchKeys();
        this.keys = new Map(keys.map((k) => [k.key_identifier, k.key]));
      } catch (err) {
        throw new DependencyError(`could not fetch GitHub's public keys: ${(err as Error).message}`);
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  /** Whether `signature` is GitHub's over exactly `rawBody`. A missing header is false. */
  async verify({ keyIdentifier, signature, rawBody }: SignatureInput): Promise<boolean> {
    if (!keyIdentifier || !signature || keyIdentifier.length > 256 || signature.length > 512) return false;
    if (!this.keys.has(keyIdentifier)) await this.refresh();
    const pem = this.keys.get(keyIdentifier);
    // Stryker disable next-line ConditionalExpression: without a key, createPublicKey throws and the check below answers false too
    if (!pem) return false;
    try {
      return verify('sha256', rawBody, createPublicKey(pem), Buffer.from(signature, 'base64'));
    } catch {
      // A malformed key or signature is a failed check, not a server error.
      return false;
    }
  }
}
