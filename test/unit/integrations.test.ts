import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  InsufficientScopeError,
  InvalidTokenError,
  ServerError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { describe, expect, it } from 'vitest';
import { type AuthInfo, toAuthInfo } from '#lib/integrations/auth-info';
import { createMcpKeyGuard } from '#lib/integrations/guard';
import { mcpSdkTokenVerifier } from '#lib/integrations/mcp-sdk';
import { mcpKeyAuth } from '#lib/integrations/node';
import {
  protectedResourceMetadata,
  protectedResourceMetadataDocument,
  protectedResourceMetadataUrl,
} from '#lib/integrations/resource-metadata';
import type { ValidResult, VerifyResult } from '#lib/keys/verify';
import type { McpKeyVerifier } from '#lib/verifier';

const KEY = `svc_mcp_v1_${'a'.repeat(71)}`;
// Far ahead: the SDK's requireBearerAuth below refuses an AuthInfo whose expiresAt has passed.
const EXPIRES = '2099-12-22T00:47:35.505Z';
const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const INVALID = 'Bearer realm="svc-mcp", error="invalid_token", error_description=';

const VALID: ValidResult = {
  outcome: 'valid',
  kind: 'api_key',
  user_id: 'user-1',
  key_id: 'key-1',
  expires_at: EXPIRES,
  scopes: ['svc.forms.read', 'svc.forms.write'],
  workspaces: [
    { id: 'ws-1', role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'] },
    { id: 'ws-2', role: 'viewer', scopes: ['svc.forms.read'] },
  ],
};

/** What the integrations give for VALID and KEY, resource aside. */
const AUTH: AuthInfo = {
  token: KEY,
  clientId: 'key-1',
  scopes: ['svc.forms.read', 'svc.forms.write'],
  expiresAt: 4101583655,
  extra: { user_id: 'user-1', key_id: 'key-1', kind: 'api_key', workspaces: VALID.workspaces },
};

/** A verifier answering `result` for every credential, and remembering what it was asked. */
function verifierOf(result: VerifyResult, resource?: string): McpKeyVerifier & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    resource: resource === undefined ? undefined : new URL(resource),
    verify: async (raw) => {
      asked.push(raw);
      return result;
    },
  };
}

/**
 * Contract §7, one row per denial the verifier may answer: the verification's outcome, then the
 * status, challenge (none for a 503), JSON-RPC code and message a client must see.
 */
const DENIALS: [string, VerifyResult, number, string | undefined, number, string][] = [
  [
    'malformed',
    { outcome: 'malformed' },
    401,
    `${INVALID}"The API key is malformed"`,
    -32001,
    'The API key is malformed; copy it again in full.',
  ],
  [
    'not found',
    { outcome: 'not_found' },
    401,
    `${INVALID}"The API key is not valid"`,
    -32001,
    'The API key is not valid.',
  ],
  [
    'revoked',
    { outcome: 'revoked', key_id: 'key-1' },
    401,
    `${INVALID}"The API key was revoked"`,
    -32001,
    'The API key was revoked; create or rotate a key.',
  ],
  [
    'expired',
    { outcome: 'expired', key_id: 'key-1', expires_at: EXPIRES },
    401,
    `${INVALID}"The API key expired on ${EXPIRES}"`,
    -32001,
    `The API key expired on ${EXPIRES}; create a new key.`,
  ],
  [
    'a refresh token',
    { outcome: 'refresh_token' },
    401,
    `${INVALID}"This is a refresh token"`,
    -32001,
    'This is a refresh token: send the access token it came with, or refresh it at the token endpoint.',
  ],
  [
    'an access token for another MCP server',
    { outcome: 'wrong_resource', key_id: 'grant-1' },
    401,
    `${INVALID}"The access token was issued for another MCP server"`,
    -32001,
    'The access token was issued for another MCP server; sign in to this one again.',
  ],
  [
    'no access',
    { outcome: 'no_access', key_id: 'key-1' },
    403,
    'Bearer realm="svc-mcp"',
    -32003,
    "The key's creator no longer has access to any of its workspaces.",
  ],
  [
    'unavailable',
    { outcome: 'unavailable' },
    503,
    undefined,
    -32002,
    'The key service is unavailable; retry shortly.',
  ],
];
const MISSING_MESSAGE = 'An MCP API key is required: send Authorization: Bearer svc_mcp_v1_…';

const post = (headers: Record<string, string> = {}, url = 'https://mcp.example.com/mcp') =>
  new Request(url, { method: 'POST', headers });

async function expectDenial(
  response: Response,
  [status, challenge, code, message]: [number, string | undefined, number, string],
) {
  expect(response.status).toBe(status);
  expect(response.headers.get('www-authenticate') ?? undefined).toBe(challenge);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('retry-after')).toBe(status === 503 ? '2' : null);
  expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code, message } });
}

describe('toAuthInfo', () => {
  it('gives an API key’s caller as the MCP SDK’s AuthInfo: the key’s id as clientId, expiresAt in whole seconds', () => {
    expect(toAuthInfo(VALID, KEY)).toEqual(AUTH);
    expect(Number.isInteger(toAuthInfo(VALID, KEY).expiresAt)).toBe(true);
    expect(new Date(toAuthInfo(VALID, KEY).expiresAt * 1000).toISOString()).toBe('2099-12-22T00:47:35.000Z');
  });

  it('gives an OAuth grant’s client as clientId and its access token’s resource', () => {
    const grant = {
      ...VALID,
      kind: 'oauth',
      client_id: 'https://client.example.com/metadata.json',
      resource: RESOURCE,
      expires_at: '2026-01-01T10:00:00.000Z',
    } as unknown as ValidResult;
    expect(toAuthInfo(grant, 'svc_mcp_at_v1_x')).toEqual({
      token: 'svc_mcp_at_v1_x',
      clientId: 'https://client.example.com/metadata.json',
      scopes: VALID.scopes,
      expiresAt: Date.parse('2026-01-01T10:00:00.000Z') / 1000,
      resource: new URL(RESOURCE),
      extra: { user_id: 'user-1', key_id: 'key-1', kind: 'oauth', workspaces: VALID.workspaces },
    });
  });

  it('copies the scopes: a handler changing them changes nothing of the result', () => {
    const auth = toAuthInfo(VALID, KEY);
    auth.scopes.push('svc.forms.generate');
    expect(VALID.scopes).toEqual(['svc.forms.read', 'svc.forms.write']);
  });
});

describe('protectedResourceMetadata', () => {
  it('builds the RFC 9728 document of contract §15', () => {
    expect(
      protectedResourceMetadataDocument(RESOURCE, { authorizationServers: ['https://keys.example.com'] }),
    ).toEqual({
      resource: RESOURCE,
      authorization_servers: ['https://keys.example.com'],
      scopes_supported: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
      bearer_methods_supported: ['header'],
    });
    // No authorization server named: none listed (the caller decides which one issues tokens).
    expect(protectedResourceMetadataDocument(new URL(RESOURCE))).not.toHaveProperty('authorization_servers');
  });

  it('answers it as JSON any origin may read', async () => {
    const response = protectedResourceMetadata(RESOURCE, {
      authorizationServers: ['https://keys.example.com'],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual(
      protectedResourceMetadataDocument(RESOURCE, { authorizationServers: ['https://keys.example.com'] }),
    );
  });

  it('is served under /.well-known/oauth-protected-resource followed by the resource’s path', () => {
    expect(protectedResourceMetadataUrl(RESOURCE)).toBe(METADATA_URL);
    expect(protectedResourceMetadataUrl('https://mcp.example.com')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example.com:8443/team/mcp?x=1')).toBe(
      'https://mcp.example.com:8443/.well-known/oauth-protected-resource/team/mcp',
    );
    expect(protectedResourceMetadataUrl(RESOURCE, '/prm')).toBe('https://mcp.example.com/prm');
  });

  it('refuses a resource that cannot name an MCP server', () => {
    for (const bad of ['mcp.example.com/mcp', 'https://mcp.example.com/mcp#x', 'ftp://mcp.example.com/'])
      expect(() => protectedResourceMetadataDocument(bad)).toThrow(TypeError);
  });
});

describe('createMcpKeyGuard', () => {
  it('lets a valid key through with its AuthInfo, resource the verifier’s', async () => {
    const verifier = verifierOf(VALID, RESOURCE);
    const checked = await createMcpKeyGuard(verifier)(post({ authorization: `Bearer ${KEY}` }));
    expect(checked).toEqual({ ok: true, auth: { ...AUTH, resource: new URL(RESOURCE) } });
    expect(verifier.asked).toEqual([KEY]);
  });

  it('answers a request without a key (no header, another scheme) 401 with §7’s message, asking nothing', async () => {
    const verifier = verifierOf(VALID);
    const guard = createMcpKeyGuard(verifier);
    const requests: Record<string, string>[] = [
      {},
      { authorization: `Basic ${KEY}` },
      { authorization: 'Bearer' },
    ];
    for (const headers of requests) {
      const checked = await guard(post(headers));
      if (checked.ok) throw new Error('let through');
      await expectDenial(checked.response, [401, 'Bearer realm="svc-mcp"', -32001, MISSING_MESSAGE]);
    }
    expect(verifier.asked).toEqual([]);
  });

  for (const [name, result, ...expected] of DENIALS)
    it(`answers ${name} ${expected[0]} with §7’s challenge and message`, async () => {
      const checked = await createMcpKeyGuard(verifierOf(result))(post({ authorization: `Bearer ${KEY}` }));
      if (checked.ok) throw new Error('let through');
      await expectDenial(checked.response, expected);
    });

  it('with a resource, serves its metadata at its own path and the root form, to GET only', async () => {
    const guard = createMcpKeyGuard(verifierOf(VALID), {
      resource: RESOURCE,
      authorizationServers: ['https://keys.example.com'],
    });
    const document = protectedResourceMetadataDocument(RESOURCE, {
      authorizationServers: ['https://keys.example.com'],
    });
    for (const url of [METADATA_URL, 'https://mcp.example.com/.well-known/oauth-protected-resource']) {
      const checked = await guard(new Request(url));
      if (checked.ok) throw new Error('not served');
      expect(checked.response.status).toBe(200);
      expect(checked.response.headers.get('content-type')).toBe('application/json');
      expect(await checked.response.json()).toEqual(document);
    }
    // Another method at that path, or another path, is an MCP request like any other.
    const posted = await guard(post({}, METADATA_URL));
    expect(posted.ok || posted.response.status).toBe(401);
    const other = await guard(new Request('https://mcp.example.com/.well-known/oauth-authorization-server'));
    expect(other.ok || other.response.status).toBe(401);
  });

  it('without a resource serves no metadata (contract §7: no OAuth to discover)', async () => {
    const checked = await createMcpKeyGuard(verifierOf(VALID))(new Request(METADATA_URL));
    if (checked.ok) throw new Error('let through');
    await expectDenial(checked.response, [401, 'Bearer realm="svc-mcp"', -32001, MISSING_MESSAGE]);
  });

  it('with a resource, names the metadata in every 401 (and the scope when no key was sent), not in a 403 or 503', async () => {
    const options = { resource: RESOURCE };
    const missing = await createMcpKeyGuard(verifierOf(VALID), options)(post());
    if (missing.ok) throw new Error('let through');
    await expectDenial(missing.response, [
      401,
      `Bearer realm="svc-mcp", resource_metadata="${METADATA_URL}", scope="svc.forms.read"`,
      -32001,
      MISSING_MESSAGE,
    ]);
    for (const [, result, status, challenge, code, message] of DENIALS) {
      const checked = await createMcpKeyGuard(
        verifierOf(result),
        options,
      )(post({ authorization: `Bearer ${KEY}` }));
      if (checked.ok) throw new Error('let through');
      const expected = status === 401 ? `${challenge}, resource_metadata="${METADATA_URL}"` : challenge;
      await expectDenial(checked.response, [status, expected, code, message]);
    }
  });

  it('puts the metadata where resourceMetadataPath says, and its resource in AuthInfo', async () => {
    const guard = createMcpKeyGuard(verifierOf(VALID), {
      resource: RESOURCE,
      resourceMetadataPath: '/team/.well-known/oauth-protected-resource',
    });
    const served = await guard(
      new Request('https://mcp.example.com/team/.well-known/oauth-protected-resource'),
    );
    expect(served.ok || served.response.status).toBe(200);
    const denied = await guard(post());
    expect(denied.ok || denied.response.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://mcp.example.com/team/.well-known/oauth-protected-resource"',
    );
    const valid = await guard(post({ authorization: `Bearer ${KEY}` }));
    expect(valid).toEqual({
      ok: true,
      auth: {
        ...AUTH,
        resource: new URL(RESOURCE),
        resourceMetadataUrl: 'https://mcp.example.com/team/.well-known/oauth-protected-resource',
      },
    });
  });

  it('refuses options that cannot work at once', () => {
    expect(() => createMcpKeyGuard(verifierOf(VALID), { resource: '/mcp' })).toThrow(TypeError);
    expect(() =>
      createMcpKeyGuard(verifierOf(VALID), { resource: RESOURCE, resourceMetadataPath: 'prm' }),
    ).toThrow(TypeError);
  });
});

/** A Node request and response as `mcpKeyAuth` uses them, recording what was written. */
function nodeExchange(init: { method?: string; url?: string; originalUrl?: string; authorization?: string }) {
  const req = {
    method: init.method ?? 'POST',
    url: init.url ?? '/mcp',
    ...(init.originalUrl && { originalUrl: init.originalUrl }),
    headers: init.authorization ? { authorization: init.authorization } : {},
  } as unknown as IncomingMessage & { auth?: AuthInfo };
  const written: { status?: number; headers?: Record<string, string>; body?: string } = {};
  const res = {
    writeHead(status: number, headers: Record<string, string>) {
      Object.assign(written, { status, headers });
      return this;
    },
    end(body: string) {
      written.body = body;
      return this;
    },
  } as unknown as ServerResponse;
  const nexts: unknown[][] = [];
  const next = (...args: unknown[]) => void nexts.push(args);
  return { req, res, next, written, nexts };
}

describe('mcpKeyAuth', () => {
  it('sets req.auth for a valid key and calls next()', async () => {
    const { req, res, next, written, nexts } = nodeExchange({ authorization: `Bearer ${KEY}` });
    await mcpKeyAuth(verifierOf(VALID))(req, res, next);
    expect(req.auth).toEqual(AUTH);
    expect(nexts).toEqual([[]]);
    expect(written).toEqual({});
  });

  it('answers a missing key and every denial as §7 says, without calling next()', async () => {
    const cases: [VerifyResult | undefined, number, string | undefined, number, string][] = [
      [undefined, 401, 'Bearer realm="svc-mcp"', -32001, MISSING_MESSAGE],
      ...DENIALS.map(([, result, ...rest]): (typeof cases)[number] => [result, ...rest]),
    ];
    for (const [result, status, challenge, code, message] of cases) {
      const exchange = nodeExchange(result ? { authorization: `Bearer ${KEY}` } : {});
      await mcpKeyAuth(verifierOf(result ?? VALID))(exchange.req, exchange.res, exchange.next);
      expect(exchange.nexts).toEqual([]);
      expect(exchange.req.auth).toBeUndefined();
      expect(exchange.written.status).toBe(status);
      expect(exchange.written.headers?.['www-authenticate']).toBe(challenge);
      expect(exchange.written.headers?.['retry-after']).toBe(status === 503 ? '2' : undefined);
      expect(JSON.parse(exchange.written.body ?? '')).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code, message },
      });
    }
  });

  it('serves the metadata at the full path under a mount point (Express’s originalUrl), and names it in 401s', async () => {
    const auth = mcpKeyAuth(verifierOf(VALID), { resource: RESOURCE });
    const served = nodeExchange({
      method: 'GET',
      url: '/mcp',
      originalUrl: '/.well-known/oauth-protected-resource/mcp?x=1',
    });
    await auth(served.req, served.res, served.next);
    expect(served.written.status).toBe(200);
    expect(JSON.parse(served.written.body ?? '')).toEqual(protectedResourceMetadataDocument(RESOURCE));
    const denied = nodeExchange({});
    await auth(denied.req, denied.res, denied.next);
    expect(denied.written.headers?.['www-authenticate']).toBe(
      `Bearer realm="svc-mcp", resource_metadata="${METADATA_URL}", scope="svc.forms.read"`,
    );
    const valid = nodeExchange({ authorization: `Bearer ${KEY}` });
    await auth(valid.req, valid.res, valid.next);
    expect(valid.req.auth).toEqual({
      ...AUTH,
      resource: new URL(RESOURCE),
      resourceMetadataUrl: METADATA_URL,
    });
  });

  it('hands a verifier’s failure to next(error)', async () => {
    const failure = new Error('boom');
    const exchange = nodeExchange({ authorization: `Bearer ${KEY}` });
    const throwing: McpKeyVerifier = { resource: undefined, verify: () => Promise.reject(failure) };
    await mcpKeyAuth(throwing)(exchange.req, exchange.res, exchange.next);
    expect(exchange.nexts).toEqual([[failure]]);
    expect(exchange.written).toEqual({});
  });
});

/** An Express response as `requireBearerAuth` writes it. */
function expressResponse() {
  const written: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const res = {
    set(name: string, value: string) {
      written.headers[name.toLowerCase()] = value;
      return this;
    },
    status(status: number) {
      written.status = status;
      return this;
    },
    json(body: unknown) {
      written.body = body;
      return this;
    },
  };
  return { res: res as unknown as ExpressResponse, written };
}

describe('mcpSdkTokenVerifier', () => {
  it('gives the AuthInfo of a valid key, with the verifier’s resource', async () => {
    await expect(mcpSdkTokenVerifier(verifierOf(VALID, RESOURCE)).verifyAccessToken(KEY)).resolves.toEqual({
      ...AUTH,
      resource: new URL(RESOURCE),
    });
  });

  for (const [name, result, status, , , message] of DENIALS)
    it(`rejects ${name} with the SDK’s error for a ${status}, carrying §7’s sentence`, async () => {
      const rejected = mcpSdkTokenVerifier(verifierOf(result)).verifyAccessToken(KEY);
      const expected =
        status === 401 ? InvalidTokenError : status === 403 ? InsufficientScopeError : ServerError;
      await expect(rejected).rejects.toBeInstanceOf(expected);
      // The sentence, sendable in a header (below).
      await expect(rejected).rejects.toThrow(message.replace('…', '...'));
    });

  it('plugs into the SDK’s requireBearerAuth: the request gets req.auth, a denial its status and sentence', async () => {
    const cases: [VerifyResult, number, string, string | undefined][] = [
      [
        { outcome: 'revoked', key_id: 'key-1' },
        401,
        'The API key was revoked; create or rotate a key.',
        `Bearer error="invalid_token", error_description="The API key was revoked; create or rotate a key.", resource_metadata="${METADATA_URL}"`,
      ],
      [
        { outcome: 'no_access', key_id: 'key-1' },
        403,
        "The key's creator no longer has access to any of its workspaces.",
        `Bearer error="insufficient_scope", error_description="The key's creator no longer has access to any of its workspaces.", resource_metadata="${METADATA_URL}"`,
      ],
      [{ outcome: 'unavailable' }, 500, 'The key service is unavailable; retry shortly.', undefined],
    ];
    for (const [result, status, message, challenge] of cases) {
      const middleware = requireBearerAuth({
        verifier: mcpSdkTokenVerifier(verifierOf(result)),
        resourceMetadataUrl: METADATA_URL,
      });
      const { res, written } = expressResponse();
      const nexts: unknown[] = [];
      await middleware(
        { headers: { authorization: `Bearer ${KEY}` } } as ExpressRequest,
        res,
        (...args: unknown[]) => nexts.push(args),
      );
      expect(nexts).toEqual([]);
      expect(written.status).toBe(status);
      expect(written.headers['www-authenticate']).toBe(challenge);
      expect(written.body).toMatchObject({ error_description: message });
    }
    const req = { headers: { authorization: `Bearer ${KEY}` } } as ExpressRequest;
    const nexts: unknown[] = [];
    await requireBearerAuth({ verifier: mcpSdkTokenVerifier(verifierOf(VALID)) })(
      req,
      expressResponse().res,
      (...args: unknown[]) => nexts.push(args),
    );
    expect(nexts).toEqual([[]]);
    expect(req.auth).toEqual(AUTH);
  });

  it('keeps a sentence the SDK also puts in a header sendable: ASCII, no quote or backslash', async () => {
    // Node refuses the ellipsis in a header: the SDK would answer 500 instead of the 401.
    const rejected = mcpSdkTokenVerifier(
      verifierOf({ outcome: 'expired', key_id: 'k', expires_at: 'soon…' }),
    ).verifyAccessToken(KEY);
    await expect(rejected).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(rejected).rejects.toThrow(/^The API key expired on soon\.\.\.; create a new key\.$/);
    // A refresh token's own sentence, as it is.
    await expect(
      mcpSdkTokenVerifier(verifierOf({ outcome: 'refresh_token' })).verifyAccessToken(KEY),
    ).rejects.toThrow(
      /^This is a refresh token: send the access token it came with, or refresh it at the token endpoint\.$/,
    );
    const quoted = mcpSdkTokenVerifier({
      resource: undefined,
      verify: async () => ({ outcome: 'expired', key_id: 'k', expires_at: 'the 1st “of” "May"\\' }),
    }).verifyAccessToken(KEY);
    await expect(quoted).rejects.toThrow(/^The API key expired on the 1st of 'May'\/; create a new key\.$/);
  });
});
