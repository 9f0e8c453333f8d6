import {
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';
import type { IdentityProvider } from './providers.ts';

/** A JSON document fetched from a URL, or why not (the SSRF-safe fetch is lib/oauth/public-json.ts). */
export type PublicJsonResult = { ok: true; json: unknown } | { ok: false; reason: string };
/** Fetches the JSON at `url`; `what` names it in the reason of a failure. Never throws. */
export type PublicJsonFetch = (url: string, what: string) => Promise<PublicJsonResult>;

/**
 * The signing keys of the trusted identity providers (contract §17): each IdP's JWKS, fetched with
 * the SSRF rules of `public-json.ts`, kept for an hour, and fetched again before that only when a
 * token names a key it lacks (an IdP rotating its keys), at most once per five minutes, so that
 * tokens naming made-up keys cannot make this service hammer the IdP.
 */
export const KEY_SET_LIMITS = {
  /** How long a fetched JWKS is used without asking again. */
  maxAgeMs: 60 * 60_000,
  /** The least time between two fetches of one IdP's JWKS. */
  refetchAfterMs: 5 * 60_000,
  /** How long a failed fetch is answered from memory (an IdP's outage is not hammered either). */
  failureCacheMs: 10_000,
} as const;

/** Why an IdP's keys could not be had: the IdP's side, not the token's. */
export class KeySetUnavailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'KeySetUnavailable';
  }
}

/** What `jwtVerify` calls for the key of a token's header. */
export type KeyResolver = (
  header?: JWSHeaderParameters,
  token?: FlattenedJWSInput,
) => ReturnType<ReturnType<typeof createLocalJWKSet>>;

interface Kept {
  keys: KeyResolver;
  fetchedAt: number;
}

const isKeySet = (value: unknown): value is JSONWebKeySet =>
  Array.isArray((value as { keys?: unknown } | null | undefined)?.keys);

/** The key sets of the trusted IdPs, one cache per process. */
export class IdentityKeySets {
  private readonly kept = new Map<string, Kept>();
  private readonly pending = new Map<string, Promise<Kept>>();
  private readonly failed = new Map<string, { at: number; error: KeySetUnavailable }>();

  constructor(
    private readonly fetchJson: PublicJsonFetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** A key resolver for `jwtVerify` over `provider`'s keys. */
  resolverFor(provider: IdentityProvider): KeyResolver {
    return async (header?: JWSHeaderParameters, token?: FlattenedJWSInput) => {
      let entry = await this.current(provider);
      try {
        return await entry.keys(header, token);
      } catch (err) {
        if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
        if (this.now() - entry.fetchedAt < KEY_SET_LIMITS.refetchAfterMs) throw err;
        entry = await this.load(provider);
        return entry.keys(header, token);
      }
    };
  }

  /** The kept keys while fresh; else fetched again, the old ones still used while the IdP cannot be reached. */
  private async current(provider: IdentityProvider): Promise<Kept> {
    const entry = this.kept.get(provider.issuer);
    if (entry && this.now() - entry.fetchedAt < KEY_SET_LIMITS.maxAgeMs) return entry;
    try {
      return await this.load(provider);
    } catch (err) {
      if (entry && err instanceof KeySetUnavailable) return entry;
      throw err;
    }
  }

  /** Fetches the IdP's JWKS once, however many verifications wait for it; a failure is kept a moment. */
  private load(provider: IdentityProvider): Promise<Kept> {
    const failure = this.failed.get(provider.issuer);
    if (failure && this.now() - failure.at < KEY_SET_LIMITS.failureCacheMs)
      return Promise.reject(failure.error);
    const waiting = this.pending.get(provider.issuer);
    if (waiting) return waiting;
    const attempt = this.fetchKeys(provider)
      .catch((err: unknown) => {
        const error =
          err instanceof KeySetUnavailable
            ? err
            : new KeySetUnavailable('The identity provider’s keys could not be read.');
        this.failed.set(provider.issuer, { at: this.now(), error });
        throw error;
      })
      .finally(() => this.pending.delete(provider.issuer));
    this.pending.set(provider.issuer, attempt);
    return attempt;
  }

  private async fetchKeys(provider: IdentityProvider): Promise<Kept> {
    const jwksUri = provider.jwksUri ?? (await this.discover(provider));
    const fetched = await this.fetchJson(jwksUri, 'The identity provider’s key set (JWKS)');
    if (!fetched.ok) throw new KeySetUnavailable(fetched.reason);
    if (!isKeySet(fetched.json))
      throw new KeySetUnavailable('The identity provider’s key set (JWKS) has no list of keys.');
    let keys: KeyResolver;
    try {
      keys = createLocalJWKSet(fetched.json);
    } catch {
      throw new KeySetUnavailable('The identity provider’s key set (JWKS) is not a valid JWKS.');
    }
    const entry = { keys, fetchedAt: this.now() };
    this.kept.set(provider.issuer, entry);
    // Stryker disable next-line CallExpression: equivalent, a fetch succeeds only once the failure kept is 10 s old, and then it never counts again
    this.failed.delete(provider.issuer);
    return entry;
  }

  /** The `jwks_uri` of the IdP's OpenID configuration, whose `issuer` must be the IdP's. */
  private async discover(provider: IdentityProvider): Promise<string> {
    const base = provider.issuer.endsWith('/') ? provider.issuer : `${provider.issuer}/`;
    const at = new URL('.well-known/openid-configuration', base).href;
    const fetched = await this.fetchJson(at, 'The identity provider’s OpenID configuration');
    if (!fetched.ok) throw new KeySetUnavailable(fetched.reason);
    const config = fetched.json as { issuer?: unknown; jwks_uri?: unknown } | null;
    if (config?.issuer !== provider.issuer)
      throw new KeySetUnavailable('The identity provider’s OpenID configuration names another issuer.');
    if (typeof config.jwks_uri !== 'string')
      throw new KeySetUnavailable('The identity provider’s OpenID configuration has no jwks_uri.');
    return config.jwks_uri;
  }
}
