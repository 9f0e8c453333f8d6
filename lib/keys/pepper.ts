import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Where the HMAC pepper comes from. Implementations derive each version at most once per
 * process and never cache a failure.
 */
export interface PepperSource {
  /** The version new digests are made with. */
  readonly currentVersion: number;
  pepper(version: number): Promise<Buffer>;
}

export interface KeyDigest {
  digest: string;
  pepperVersion: number;
}

const hmac = (pepper: Buffer, apiKey: string): Buffer => createHmac('sha256', pepper).update(apiKey).digest();

/** HMAC-SHA256(pepper, full key), base64; the only form in which a key is ever stored. */
export async function digestKey(peppers: PepperSource, apiKey: string): Promise<KeyDigest> {
  const pepperVersion = peppers.currentVersion;
  const pepper = await peppers.pepper(pepperVersion);
  return { digest: hmac(pepper, apiKey).toString('base64'), pepperVersion };
}

/**
 * What an unknown id or a string that is no key is compared against, so that it costs the same
 * digest and comparison as a wrong secret: no key has this digest (an HMAC is never all zeros in
 * practice).
 */
export const NO_DIGEST = Buffer.alloc(32).toString('base64');

/** Constant-time comparison of a presented key against a stored digest. */
export async function matchesDigest(
  peppers: PepperSource,
  apiKey: string,
  stored: KeyDigest,
): Promise<boolean> {
  const pepper = await peppers.pepper(stored.pepperVersion);
  const expected = Buffer.from(stored.digest, 'base64');
  const actual = hmac(pepper, apiKey);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Memoises a derivation per version; a rejected derivation is forgotten so the next call retries. */
export function memoisePepper(
  derive: (version: number) => Promise<Buffer>,
): (version: number) => Promise<Buffer> {
  const cache = new Map<number, Promise<Buffer>>();
  return (version) => {
    let pending = cache.get(version);
    if (!pending) {
      pending = derive(version);
      cache.set(version, pending);
      pending.catch(() => cache.delete(version));
    }
    return pending;
  };
}
