import { describe, expect, it } from 'vitest';
import { parseMcpServerConfig } from '#lib/config';
import type { VerifyResult } from '#lib/keys/verify';
import { type DenialCase, denialResponse, MISSING_KEY, mcpDenial } from '#lib/mcp/denial';
import { DENY_MESSAGE, REST_GATEWAY_RESPONSES, renderDenied } from '#lib/mcp/gateway-responses';
import { transportRefusal } from '#lib/mcp/transport';

const EXPIRES = '2026-12-22T00:47:35.505Z';
const INVALID = 'Bearer realm="svc-mcp", error="invalid_token", error_description=';

/** Contract §7, one row per case: status, challenge, JSON-RPC code and message. */
const TABLE: [string, DenialCase, number, string | undefined, number, string][] = [
  [
    'no key',
    MISSING_KEY,
    401,
    'Bearer realm="svc-mcp"',
    -32001,
    'An MCP API key is required: send Authorization: Bearer svc_mcp_v1_…',
  ],
  [
    'malformed',
    { outcome: 'malformed' },
    401,
    `${INVALID}"The API key is malformed"`,
    -32001,
    'The API key is malformed; copy it again in full.',
  ],
  [
    'unknown id or wrong secret',
    { outcome: 'not_found' },
    401,
    `${INVALID}"The API key is not valid"`,
    -32001,
    'The API key is not valid.',
  ],
  [
    'revoked',
    { outcome: 'revoked' },
    401,
    `${INVALID}"The API key was revoked"`,
    -32001,
    'The API key was revoked; create or rotate a key.',
  ],
  [
    'expired',
    { outcome: 'expired', expires_at: EXPIRES },
    401,
    `${INVALID}"The API key expired on ${EXPIRES}"`,
    -32001,
    `The API key expired on ${EXPIRES}; create a new key.`,
  ],
  [
    'no workspace left',
    { outcome: 'no_access' },
    403,
    // No error=: clients read insufficient_scope as an OAuth step-up and hide the message.
    'Bearer realm="svc-mcp"',
    -32003,
    "The key's creator no longer has access to any of its workspaces.",
  ],
  [
    'any 401, undistinguished (what a REST API answers)',
    { outcome: 'unauthorized' },
    401,
    `${INVALID}"The API key or access token is missing, malformed, not valid, revoked or expired"`,
    -32001,
    'The API key or access token is missing, malformed, not valid, revoked or expired: send a current key as ' +
      'Authorization: Bearer svc_mcp_v1_… (create or rotate one if yours was revoked or has expired), ' +
      'or have the app sign in again. ' +
      'An OAuth refresh token is never accepted here: send the access token it came with, or refresh it at the token endpoint.',
  ],
  [
    'verification failed',
    { outcome: 'unavailable' },
    503,
    undefined,
    -32002,
    'The key service is unavailable; retry shortly.',
  ],
];

describe('the denial table (contract §7)', () => {
  it.each(TABLE)(
    '%s: %i with its challenge and a JSON-RPC error a person can read',
    (_label, denial, status, challenge, code, message) => {
      const answer = mcpDenial(denial);
      expect(answer.status).toBe(status);
      expect(answer.headers['www-authenticate']).toBe(challenge);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.body).toBe(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
    },
  );

  it('asks a client to retry a 503 after a few seconds, and sends no challenge with it', () => {
    const answer = mcpDenial({ outcome: 'unavailable' });
    expect(answer.headers).toEqual({ 'content-type': 'application/json', 'retry-after': '2' });
  });

  it('never sends resource_metadata: there is no OAuth server to discover', () => {
    for (const [, denial] of TABLE)
      expect(JSON.stringify(mcpDenial(denial))).not.toContain('resource_metadata');
    for (const answer of Object.values(REST_GATEWAY_RESPONSES))
      expect(JSON.stringify(answer)).not.toContain('resource_metadata');
  });

  it('answers an unknown id and a wrong secret byte for byte alike (both verify as not_found)', () => {
    const unknownId = mcpDenial({ outcome: 'not_found', key_id: 'a' } as DenialCase);
    const wrongSecret = mcpDenial({ outcome: 'not_found', key_id: 'b' } as DenialCase);
    expect(wrongSecret).toEqual(unknownId);
    expect(unknownId.body).not.toMatch(/\b[ab]\b/);
  });

  it('keeps every challenge within RFC 6750’s characters, and free of quotes for static headers', () => {
    const answers = [...TABLE.map(([, d]) => mcpDenial(d)), ...Object.values(REST_GATEWAY_RESPONSES)];
    for (const answer of answers) {
      const challenge = answer.headers['www-authenticate'];
      if (!challenge) continue;
      const description = /error_description="([^"]*)"/.exec(challenge)?.[1] ?? '';
      expect(description).toMatch(/^[\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]*$/);
      expect(challenge).not.toContain("'");
    }
  });

  it('gives in-process servers a Response, and nothing for a valid key', async () => {
    const denied = denialResponse({ outcome: 'revoked', key_id: 'x' });
    expect(denied?.status).toBe(401);
    expect(denied?.headers.get('www-authenticate')).toBe(`${INVALID}"The API key was revoked"`);
    expect(await denied?.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'The API key was revoked; create or rotate a key.' },
    });
    expect(denialResponse(MISSING_KEY)?.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');
    expect(
      denialResponse({
        outcome: 'valid',
        kind: 'api_key',
        user_id: 'u',
        key_id: 'k',
        expires_at: EXPIRES,
        scopes: [],
        workspaces: [],
      }),
    ).toBeUndefined();
  });

  it('answers a verification that could not run (unavailable) with the 503 of contract §7', async () => {
    const unavailable: VerifyResult = { outcome: 'unavailable' };
    const denied = denialResponse(unavailable);
    expect(denied?.status).toBe(503);
    expect(denied?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(denied?.headers.get('www-authenticate')).toBeNull();
    expect(denied?.headers.get('content-type')).toBe('application/json');
    expect(await denied?.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32002, message: 'The key service is unavailable; retry shortly.' },
    });
  });
});

describe('REST API gateway responses', () => {
  it('give every 401 case one answer whose message names them all, for a key and an access token alike', () => {
    const { UNAUTHORIZED } = REST_GATEWAY_RESPONSES;
    expect(UNAUTHORIZED.status).toBe(401);
    expect(UNAUTHORIZED.headers['www-authenticate']).toMatch(
      /^Bearer realm="svc-mcp", error="invalid_token"/,
    );
    const message = JSON.parse(UNAUTHORIZED.body).error.message as string;
    for (const word of [
      'missing',
      'malformed',
      'not valid',
      'revoked',
      'expired',
      'Bearer svc_mcp_v1_',
      'access token',
    ])
      expect(message).toContain(word);
  });

  it('answer ACCESS_DENIED and both authorizer failures exactly as the table does', () => {
    // ACCESS_DENIED says the Deny's own sentence: no access, or a tool it may not call (contract §19).
    const denied = REST_GATEWAY_RESPONSES.ACCESS_DENIED;
    const noAccess = mcpDenial({ outcome: 'no_access' });
    expect(denied.status).toBe(403);
    expect(denied.headers).toEqual(noAccess.headers);
    expect(
      renderDenied(denied.body, {
        message: "The key's creator no longer has access to any of its workspaces.",
      }),
    ).toBe(noAccess.body);
    expect(renderDenied(denied.body, undefined)).toContain('"message":""');
    expect(REST_GATEWAY_RESPONSES.AUTHORIZER_FAILURE).toEqual(mcpDenial({ outcome: 'unavailable' }));
    expect(REST_GATEWAY_RESPONSES.AUTHORIZER_CONFIGURATION_ERROR).toEqual(
      mcpDenial({ outcome: 'unavailable' }),
    );
  });

  it('answer a path or method the API lacks with 404, not with a misleading 403', () => {
    expect(REST_GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN.status).toBe(404);
  });

  it('hold no `$` that API Gateway would read as a template variable, but ACCESS_DENIED’s sentence', () => {
    for (const answer of Object.values(REST_GATEWAY_RESPONSES))
      expect(answer.body.replace(DENY_MESSAGE, '')).not.toContain('$');
    expect(REST_GATEWAY_RESPONSES.ACCESS_DENIED.body).toContain(`"message":"${DENY_MESSAGE}"`);
  });
});

describe('transport rules (Streamable HTTP)', () => {
  it('refuse GET and DELETE with 405 and Allow: POST', () => {
    for (const method of ['GET', 'DELETE']) {
      const refused = transportRefusal({ method, origin: null }, []);
      expect(refused?.status).toBe(405);
      expect(refused?.headers.allow).toBe('POST');
    }
    expect(transportRefusal({ method: 'POST', origin: null }, [])).toBeUndefined();
  });

  it('refuse an Origin unless allowed, and leave requests without one alone', () => {
    expect(transportRefusal({ method: 'POST', origin: 'https://evil.example' }, [])?.status).toBe(403);
    expect(transportRefusal({ method: 'POST', origin: 'null' }, [])?.status).toBe(403);
    expect(
      transportRefusal({ method: 'POST', origin: 'https://app.example.com' }, ['https://app.example.com']),
    ).toBeUndefined();
    expect(transportRefusal({ method: 'POST', origin: undefined }, [])).toBeUndefined();
  });

  it('read allowed origins from MCP_ALLOWED_ORIGINS, none by default, and refuse non-origins', () => {
    expect(parseMcpServerConfig({})).toEqual({ allowedOrigins: [] });
    expect(
      parseMcpServerConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example.com, http://localhost:6274' }),
    ).toEqual({ allowedOrigins: ['https://a.example.com', 'http://localhost:6274'] });
    expect(() => parseMcpServerConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example.com/path' })).toThrow(
      /MCP_ALLOWED_ORIGINS/,
    );
  });
});
