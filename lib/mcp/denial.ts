import type { VerifyResult } from '#lib/keys/verify';

/**
 * The HTTP answer an MCP server that verifies in-process should give a denied key: 401 with a
 * `WWW-Authenticate: Bearer` challenge, as the MCP authorization spec expects of a protected
 * resource (RFC 6750 `invalid_token`). Undefined for a valid key.
 */
export function denialResponse(result: VerifyResult): Response | undefined {
  if (result.outcome === 'valid') return undefined;
  const description =
    result.outcome === 'no_access'
      ? 'The key reaches no workspace'
      : 'The API key is invalid, revoked or expired';
  return new Response(JSON.stringify({ error: 'invalid_token', error_description: description }), {
    status: 401,
    headers: {
      'content-type': 'application/json',
      'www-authenticate': `Bearer error="invalid_token", error_description="${description}"`,
    },
  });
}
