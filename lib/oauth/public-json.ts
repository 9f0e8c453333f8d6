import type { PublicJsonFetch, PublicJsonResult } from '#lib/identity/key-sets';
import {
  type AddressRules,
  errorCode,
  type MetadataTransport,
  nodeMetadataTransport,
  readJsonDocument,
  resolveAll,
  vettedAddress,
} from './metadata-transport.ts';

/**
 * A JSON document fetched from a URL configured or named by someone else (an identity provider's
 * OpenID configuration and JWKS), with the rules of client metadata documents (contract §15): the
 * vetted public address only, no redirects, a time and a size limit, `application/json`.
 */

export interface PublicJsonOptions extends Partial<AddressRules> {
  request?: MetadataTransport;
  /** @default 3000 */
  timeoutMs?: number;
  /** @default 64 KiB: a JWKS of a few dozen keys */
  maxBytes?: number;
}

/** A fetcher of public JSON documents; never throws, a failure is a reason. */
export function publicJsonFetch(options: PublicJsonOptions = {}): PublicJsonFetch {
  const rules: AddressRules = {
    resolve: options.resolve ?? resolveAll,
    allowLoopbackHttp: options.allowLoopbackHttp === true,
  };
  const transport = options.request ?? nodeMetadataTransport;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  return async (location, what) => {
    if (!URL.canParse(location)) return { ok: false, reason: `${what} has no valid URL.` };
    const url = new URL(location);
    const late = (): PublicJsonResult => ({
      ok: false,
      reason: `${what} did not arrive within ${timeoutMs / 1000} seconds.`,
    });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const target = await vettedAddress(rules, url, what);
      if (typeof target === 'string') return { ok: false, reason: target };
      const response = await transport({ url, ...target, signal: controller.signal });
      if (response.status !== 200)
        return { ok: false, reason: `${what} answered HTTP ${response.status} instead of 200.` };
      const document = await readJsonDocument(response, maxBytes, what);
      if (!document.ok && controller.signal.aborted) return late();
      return document;
    } catch (err) {
      if (controller.signal.aborted) return late();
      return { ok: false, reason: `${what} could not be fetched${errorCode(err)}.` };
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  };
}
