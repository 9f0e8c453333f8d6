import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonMediaType } from '#lib/http/media-type';
import type { DenialOptions } from '#lib/mcp/denial';
import { restGatewayResponses } from '#lib/mcp/gateway-responses';
import { GATEWAY_REQUEST_ID_HEADER, HTTP_API_UNAUTHORIZED, servedByRestApi } from '../../api-edge.ts';
import { send } from './http.ts';

export { GATEWAY_REQUEST_ID_HEADER };

/** Methods a web page can send cross-origin without a CORS preflight. */
const SIMPLE_WRITE_METHODS = new Set(['POST']);

/**
 * The `Host` values that name this service: loopback by name and address, and the configured
 * HOST, each with the port the connection arrived on (contract §8). Port 80 may be left out.
 */
export function ownHosts(host: string, port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host];
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`.toLowerCase());
    if (port === 80) hosts.add(name.toLowerCase());
  }
  return hosts;
}

/** How many times a header occurs; Node keeps only the first `authorization` in `req.headers`. */
function occurrences(req: IncomingMessage, name: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === name) count++;
  return count;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The first checks of every request to the local service, before CORS and any route, in order:
 * - every response gets an `apigw-requestid` header, as API Gateway's do;
 * - more than one `Host` header is refused (400, RFC 9112 §3.2): Node keeps only the first, and
 *   a proxy in front may have read the other;
 * - a `Host` that is not the service's own address is refused (403): a web page reached
 *   through a rebinding domain names that domain, so it cannot drive the service. Preflights
 *   included: a foreign Host gets no CORS allow headers.
 * Returns true when the request was answered and must go no further.
 */
export function guardHost(req: IncomingMessage, res: ServerResponse, configuredHost: string): boolean {
  res.setHeader(GATEWAY_REQUEST_ID_HEADER, randomUUID());

  if (occurrences(req, 'host') > 1) {
    send(res, 400, { message: 'Bad Request: more than one Host header' });
    return true;
  }
  const host = req.headers.host?.toLowerCase();
  if (!host || !ownHosts(configuredHost, req.socket.localPort ?? 0).has(host)) {
    send(res, 403, { message: 'Forbidden: the Host header does not name this service' });
    return true;
  }
  return false;
}

/**
 * The checks after `guardHost` and CORS, before any route:
 * - more than one `Authorization` header is refused (401): neither the first nor the last wins;
 *   `options` are the REST API's, for its 401;
 * - `/_dev/*` takes only JSON (415): a page can POST text/plain or a form cross-origin without
 *   a preflight, but not application/json. The one exception is the development IdP's token
 *   endpoint, form-encoded as every token endpoint (RFC 8693), which does nothing without an ID
 *   token of its own.
 * Returns true when the request was answered and must go no further.
 */
export function guardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: DenialOptions = {},
): boolean {
  const path = new URL(req.url ?? '/', 'http://local').pathname;
  if (occurrences(req, 'authorization') > 1) {
    // /mcp is on the REST API, whose 401 is the contract §7 gateway response (with OAuth on,
    // naming the resource's metadata like every other 401).
    if (servedByRestApi(path)) {
      const { status, headers, body } = restGatewayResponses(options).UNAUTHORIZED;
      send(res, status, body, headers);
    } else send(res, HTTP_API_UNAUTHORIZED.status, HTTP_API_UNAUTHORIZED.body);
    return true;
  }

  const formEndpoint = path === '/_dev/idp/token';
  if (
    path.startsWith('/_dev/') &&
    !formEndpoint &&
    (SIMPLE_WRITE_METHODS.has(req.method ?? '') || hasBody(req))
  ) {
    if (!isJsonMediaType(req.headers['content-type'])) {
      send(res, 415, { message: 'Unsupported Media Type: /_dev/* takes application/json' });
      return true;
    }
  }
  return false;
}

/** The request id the guard gave this response, for the event API Gateway would build. */
export const gatewayRequestId = (res: ServerResponse): string | undefined => {
  const value = res.getHeader(GATEWAY_REQUEST_ID_HEADER);
  return typeof value === 'string' ? value : undefined;
};
