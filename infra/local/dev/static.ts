import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { BUNDLES, bundle } from '../../../web/build.ts';

const WEB = new URL('../../../web/', import.meta.url);

/**
 * What local mode serves besides the API: the key page at `/`, the consent page of its OAuth flow
 * at `/consent` (the `consentPageUrl` local mode sets), and the elements' bundles.
 */
const ASSETS: Record<string, { type: string; load: () => Promise<Uint8Array> }> = {
  '/': { type: 'text/html; charset=utf-8', load: () => readFile(new URL('dev/index.html', WEB)) },
  '/consent': { type: 'text/html; charset=utf-8', load: () => readFile(new URL('dev/consent.html', WEB)) },
  '/assets/dev.css': { type: 'text/css; charset=utf-8', load: () => readFile(new URL('dev/dev.css', WEB)) },
  ...Object.fromEntries(
    Object.entries(BUNDLES).map(([name, entry]) => [
      `/assets/${name}`,
      { type: 'text/javascript; charset=utf-8', load: () => bundle(entry) },
    ]),
  ),
};

/**
 * The pages may run only their own scripts and talk only to this origin; a key shown on one (or
 * the request id of the consent page's URL) cannot leak through a referrer, a frame or a cache.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/**
 * Serves the page and its assets (bundled with esbuild in memory on first request, never
 * written to disk). Returns false for any other request, which the API emulation then routes.
 */
export function staticSite(log: (line: string) => void) {
  const cache = new Map<string, Promise<Uint8Array>>();
  return async (method: string, path: string, res: ServerResponse): Promise<boolean> => {
    const asset = ASSETS[path];
    if (!asset || (method !== 'GET' && method !== 'HEAD')) return false;
    let body = cache.get(path);
    if (!body) {
      body = asset.load();
      cache.set(path, body);
    }
    try {
      const bytes = await body;
      res.writeHead(200, { ...PAGE_HEADERS, 'content-type': asset.type, 'content-length': bytes.length });
      res.end(method === 'HEAD' ? undefined : bytes);
    } catch (err) {
      cache.delete(path);
      log(`could not build ${path}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`could not build ${path}\n`);
    }
    return true;
  };
}
