import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for local mode, answering as the deployed HTTP API's `corsPreflight` does (contract §8).
 * The lists below are the ones `infra/stacks/stateless.ts` configures; a test keeps them equal.
 */
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type'] as const;
export const CORS_EXPOSE_HEADERS = [
  'location',
  'x-request-id',
  'retry-after',
  'www-authenticate',
  'apigw-requestid',
] as const;
export const CORS_MAX_AGE_SECONDS = 3600;

/** Which origins may call the service from a browser. */
export type CorsOrigins = { kind: 'local-dev' } | { kind: 'list'; origins: ReadonlySet<string> };

/** Any port on these hosts, over plain http: a dashboard's dev server on this machine. */
const LOCAL_DEV_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

/**
 * Parses `CORS_ORIGINS` (comma-separated origins, as the `corsOrigins` deployment setting).
 * Unset: any `http://localhost:<port>` or `http://127.0.0.1:<port>`. Set but empty: no origin.
 * Throws on an entry that is not an origin, so a typo fails at start rather than in a browser.
 */
export function parseCorsOrigins(setting: string | undefined): CorsOrigins {
  if (setting === undefined) return { kind: 'local-dev' };
  const origins = new Set<string>();
  for (const entry of setting.split(',').map((s) => s.trim())) {
    if (!entry) continue;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(
        `CORS_ORIGINS: ${JSON.stringify(entry)} is not an origin like https://dashboard.example.com`,
      );
    }
    if (!/^https?:$/.test(url.protocol) || url.pathname.replace(/\/$/, '') || url.search || url.hash) {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(entry)} is not an origin (scheme://host[:port] only)`);
    }
    origins.add(url.origin);
  }
  return { kind: 'list', origins };
}

export function isAllowedOrigin(allowed: CorsOrigins, origin: string): boolean {
  return allowed.kind === 'local-dev' ? LOCAL_DEV_ORIGIN.test(origin) : allowed.origins.has(origin);
}

export type CorsDecision =
  /** Not a CORS request (no `Origin`): nothing to add. */
  | { kind: 'none' }
  /** A preflight: answer it with `status` and `headers`, without routing the request. */
  | { kind: 'preflight'; status: 204; headers: Record<string, string>; refused: boolean }
  /** An actual request: route it as usual and add `headers` to whatever answers it. */
  | { kind: 'actual'; headers: Record<string, string>; refused: boolean };

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * What CORS asks of one request. Like API Gateway, a preflight (OPTIONS with `Origin` and
 * `Access-Control-Request-Method`) is answered 204 whatever the route; a refused origin gets no
 * `Access-Control-Allow-*` header at all, so the browser blocks the call. The allowed methods and
 * headers are always the configured lists: the browser compares them with what it asked for.
 */
export function corsDecision(
  allowed: CorsOrigins,
  method: string,
  headers: IncomingHttpHeaders,
): CorsDecision {
  const origin = header(headers, 'origin');
  if (!origin) return { kind: 'none' };
  const ok = isAllowedOrigin(allowed, origin);
  const vary = { vary: 'origin' };
  if (method === 'OPTIONS' && header(headers, 'access-control-request-method')) {
    return {
      kind: 'preflight',
      status: 204,
      refused: !ok,
      headers: ok
        ? {
            ...vary,
            'access-control-allow-origin': origin,
            'access-control-allow-methods': CORS_ALLOW_METHODS.join(','),
            'access-control-allow-headers': CORS_ALLOW_HEADERS.join(','),
            'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
          }
        : vary,
    };
  }
  return {
    kind: 'actual',
    refused: !ok,
    headers: ok
      ? {
          ...vary,
          'access-control-allow-origin': origin,
          'access-control-expose-headers': CORS_EXPOSE_HEADERS.join(','),
        }
      : vary,
  };
}

/**
 * The local server's hook: answers a preflight (returns true: the request is done) or sets the
 * CORS headers on the response to come (returns false). A refused origin is logged once, so a
 * developer sees why the browser blocks their calls.
 */
export function localCors(setting: string | undefined, log: (line: string) => void) {
  const allowed = parseCorsOrigins(setting);
  const reported = new Set<string>();
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const decision = corsDecision(allowed, req.method ?? 'GET', req.headers);
    if (decision.kind === 'none') return false;
    const origin = header(req.headers, 'origin') ?? '';
    if (decision.refused && !reported.has(origin) && reported.size < 100) {
      reported.add(origin);
      log(
        `CORS: origin ${JSON.stringify(origin.slice(0, 200))} is not allowed (set CORS_ORIGINS to allow it)`,
      );
    }
    if (decision.kind === 'preflight') {
      res.writeHead(decision.status, { ...decision.headers, 'content-length': 0 });
      res.end();
      return true;
    }
    for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
    return false;
  };
}
