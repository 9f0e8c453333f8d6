import { appendFileSync, readFileSync } from 'node:fs';
import { ROUTES } from '#lib/routes/index';

/**
 * Which error codes the tests saw each route answer. Test helpers record every problem answer
 * (in-process handlers and HTTP alike) to the file the route-codes reporter names; the reporter
 * then fails a full run in which a route declares a code no test of that route produced.
 */
export const ROUTE_CODES_FILE_ENV = 'ROUTE_CODES_FILE';

const compiled = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/** The function serving `method path` (a raw path or a route's own template), if any. */
export function routeOf(method: string, path: string): string | undefined {
  const bare = path.split('?')[0] ?? path;
  return compiled.find((c) => c.route.method === method && c.pattern.test(bare))?.route.handler;
}

/** Records a problem answer's code against its route; anything else is not an error answer. */
export function recordAnswer(method: string, path: string, status: number, body: unknown): void {
  const file = process.env[ROUTE_CODES_FILE_ENV];
  if (!file || status < 400) return;
  const code = (body as { code?: unknown } | undefined)?.code;
  const route = routeOf(method, path);
  if (typeof code !== 'string' || !route) return;
  appendFileSync(file, `${JSON.stringify({ route, code })}\n`);
}

/** The recorded pairs, as `route code` strings. */
export function recordedCodes(file: string): Set<string> {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Set();
  }
  return new Set(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const { route, code } = JSON.parse(line) as { route: string; code: string };
        return `${route} ${code}`;
      }),
  );
}
