import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { servedByOAuth } from '#lib/routes/oauth/index';
import { MCP_EDGE, servedByRestApi } from '../api-edge.ts';
import type { localCors } from './emulation/cors.ts';
import { guardHost } from './emulation/guards.ts';
import { send } from './emulation/http.ts';

/** What answers a request that passed the front: the gateways, the dev routes, the page. */
export type LocalRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What the front needs: the host it answers for, the CORS check, and the route once it is built. */
export interface FrontOptions {
  host: string;
  /** OAuth's endpoints answer CORS themselves (any origin, no credentials). */
  oauthOn: boolean;
  cors: ReturnType<typeof localCors>;
  log: (line: string) => void;
  /** The service's route; until it is built, a request is 503. */
  route: () => LocalRoute | undefined;
}

/**
 * The server's request listener, in the order a deployment meets a request: 503 while the service
 * is starting, the access log line, the Host, CORS where the API has it, then the route; an error
 * the route did not answer is a 500 with a fixed message.
 */
export function localFront({ host, oauthOn, cors, log, route }: FrontOptions): RequestListener {
  return (req, res) => {
    const answer = route();
    // Until everything is built, a request (on a fixed port, someone may be early) is 503.
    if (!answer) return send(res, 503, { message: 'Starting; retry shortly' }, { 'retry-after': '1' });
    const started = performance.now();
    res.on('finish', () => {
      // Path only: keys never travel in URLs, and query strings and headers are not printed.
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      log(`${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)}ms`);
    });
    // The Host comes first: a foreign or repeated Host gets no CORS headers, preflights included.
    if (guardHost(req, res, host)) return;
    // The MCP endpoint is on the REST API, which has no CORS configuration.
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    // The OAuth endpoints answer CORS themselves (any origin, no credentials).
    if (!(servedByRestApi(path) && !MCP_EDGE.cors) && !(oauthOn && servedByOAuth(path)) && cors(req, res))
      return;
    answer(req, res).catch((err: unknown) => {
      log(`internal error: ${(err as Error).name}`);
      if (!res.headersSent) send(res, 500, { message: 'Internal Server Error' });
      else res.destroy();
    });
  };
}
