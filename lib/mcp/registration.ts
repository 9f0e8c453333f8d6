import type { McpAnswer } from './answer.ts';

/**
 * Where clients that speak OAuth register themselves when the MCP server advertises no OAuth
 * metadata: RFC 7591 dynamic client registration at the origin's root (the MCP authorization
 * spec's fallback).
 */
export const REGISTRATION_PATH = '/register';

/**
 * The sentence a person reads in a client that tried OAuth after its key was refused (contract
 * §7, "Clients that speak OAuth"). The 401 that sent the client here does not say which case it
 * was, so the sentence names them all and where to get a new key.
 */
export const registrationDescription = (keysPageUrl: string): string =>
  'This MCP server takes an API key, not OAuth: send Authorization: Bearer svc_mcp_v1_…. ' +
  `The key sent was missing, malformed, not valid, revoked or expired: create or rotate one at ${keysPageUrl}.`;

/**
 * The answer to `POST /register`: RFC 7591 §3.2.2's error response, `invalid_client_metadata`,
 * whose description clients show in full. The OAuth discovery documents stay 404: a client that
 * finds OAuth metadata may start OAuth and ignore the configured key.
 */
export function registrationRefusal(keysPageUrl: string): McpAnswer {
  return {
    status: 400,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({
      error: 'invalid_client_metadata',
      error_description: registrationDescription(keysPageUrl),
    }),
  };
}
