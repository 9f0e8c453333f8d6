import { describe, expect, it } from 'vitest';
import { jsonRpcError, MCP_ERROR_CODES, toResponse } from '#lib/mcp/answer';
import { mcpDenial } from '#lib/mcp/denial';
import { REST_GATEWAY_RESPONSES, restGatewayResponses } from '#lib/mcp/gateway-responses';
import { REGISTRATION_PATH, registrationDescription, registrationRefusal } from '#lib/mcp/registration';
import { accessFromContext } from '#lib/mcp/server';
import { transportRefusal } from '#lib/mcp/transport';

/** The MCP endpoint's fixed answers (lib/mcp/): JSON-RPC errors, the registration refusal, the REST gateway responses. */
describe('a JSON-RPC error answer', () => {
  it('is JSON with id null, the code and the message, and extra headers beside the content type', () => {
    const answer = jsonRpcError(405, MCP_ERROR_CODES.transport, 'no', { allow: 'POST' });
    expect(answer).toEqual({
      status: 405,
      headers: { 'content-type': 'application/json', allow: 'POST' },
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no"}}',
    });
    expect(jsonRpcError(403, MCP_ERROR_CODES.forbidden, 'Forbidden').headers).toEqual({
      'content-type': 'application/json',
    });
  });

  it('becomes a Response with the same status, headers and body', async () => {
    const response = toResponse(
      jsonRpcError(503, MCP_ERROR_CODES.unavailable, 'later', { 'retry-after': '5' }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32002, message: 'later' },
    });
  });
});

describe('the answer to a client that tries OAuth registration on a key-only server', () => {
  it('is RFC 7591’s invalid_client_metadata, never cached, naming the keys page', () => {
    expect(REGISTRATION_PATH).toBe('/register');
    const answer = registrationRefusal('https://app.example.com/keys');
    expect(answer.status).toBe(400);
    expect(answer.headers).toEqual({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(JSON.parse(answer.body)).toEqual({
      error: 'invalid_client_metadata',
      error_description: registrationDescription('https://app.example.com/keys'),
    });
    expect(registrationDescription('https://app.example.com/keys')).toBe(
      'This MCP server takes an API key, not OAuth: send Authorization: Bearer svc_mcp_v1_…. ' +
        'The key sent was missing, malformed, not valid, revoked or expired: create or rotate one at https://app.example.com/keys.',
    );
  });
});

describe('the REST gateway responses of an API with OAuth on', () => {
  it('name the Protected Resource Metadata in the 401 only; the rest are those of an API without OAuth', () => {
    const url = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
    const withOAuth = restGatewayResponses({ resourceMetadataUrl: url });
    expect(withOAuth.UNAUTHORIZED).toEqual(
      mcpDenial({ outcome: 'unauthorized' }, { resourceMetadataUrl: url }),
    );
    expect(withOAuth.UNAUTHORIZED.headers['www-authenticate']).toContain(`resource_metadata="${url}"`);
    // A 401 that may follow a request without any key names the scope to ask for.
    expect(withOAuth.UNAUTHORIZED.headers['www-authenticate']).toContain('scope="svc.forms.read"');
    const { UNAUTHORIZED: _a, ...rest } = withOAuth;
    const { UNAUTHORIZED: _b, ...fixed } = REST_GATEWAY_RESPONSES;
    expect(rest).toEqual(fixed);
    expect(REST_GATEWAY_RESPONSES.UNAUTHORIZED).toEqual(mcpDenial({ outcome: 'unauthorized' }));
    expect(JSON.parse(REST_GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN.body).error).toEqual({
      code: -32000,
      message: 'Not found: this API has no such path or method; check the MCP server URL.',
    });
  });
});

describe('the caller an MCP function reads from the authorizer context', () => {
  const workspaces = [{ id: 'ws-1', role: 'editor', scopes: ['svc.forms.read'] }];
  const context = {
    user_id: 'u-1',
    key_id: 'k-1',
    scopes: 'svc.forms.read',
    workspaces: JSON.stringify(workspaces),
  };

  it('is the user, the key and the workspaces the authorizer wrote', () => {
    expect(accessFromContext(context)).toEqual({ userId: 'u-1', keyId: 'k-1', workspaces });
  });

  it('carries the credential’s kind, the tools per workspace and their union when the authorizer wrote them', () => {
    const withTools = [
      { id: 'ws-1', role: 'editor', scopes: ['svc.forms.read'], tools: ['list_forms'] },
      { id: 'ws-2', role: 'viewer', scopes: ['svc.forms.read'] },
    ];
    const full = {
      ...context,
      kind: 'oauth',
      workspaces: JSON.stringify(withTools),
      tools: 'list_forms read_draft',
    };
    expect(accessFromContext(full as typeof context)).toEqual({
      userId: 'u-1',
      keyId: 'k-1',
      kind: 'oauth',
      workspaces: withTools,
      tools: ['list_forms', 'read_draft'],
    });
    // A union that names nothing is an empty list, never "no restriction"; a kind unknown is left out.
    expect(accessFromContext({ ...context, kind: 'cookie', tools: '' } as typeof context)).toEqual({
      userId: 'u-1',
      keyId: 'k-1',
      workspaces,
      tools: [],
    });
    expect(
      accessFromContext({ ...context, workspaces: '[{"id":"w","role":"editor","scopes":[],"tools":"all"}]' }),
    ).toBeUndefined();
  });

  it('is missing when any part is missing or not what the authorizer writes', () => {
    expect(accessFromContext(undefined)).toBeUndefined();
    expect(accessFromContext({ ...context, user_id: '' })).toBeUndefined();
    expect(accessFromContext({ ...context, key_id: '' })).toBeUndefined();
    expect(accessFromContext({ ...context, workspaces: undefined })).toBeUndefined();
    expect(accessFromContext({ ...context, workspaces: 'not json' })).toBeUndefined();
    expect(
      accessFromContext({ ...context, workspaces: '[{"id":"","role":"editor","scopes":[]}]' }),
    ).toBeUndefined();
    expect(
      accessFromContext({ ...context, workspaces: '[{"id":"w","role":"boss","scopes":[]}]' }),
    ).toBeUndefined();
    expect(
      accessFromContext({ ...context, workspaces: '[{"id":"w","role":"editor","scopes":["svc.all"]}]' }),
    ).toBeUndefined();
  });
});

describe('the transport’s refusals', () => {
  it('say why, in a sentence a person can act on', () => {
    const messageOf = (answer: ReturnType<typeof transportRefusal>) =>
      (JSON.parse(answer?.body ?? '{}') as { error: { message: string } }).error.message;
    expect(messageOf(transportRefusal({ method: 'POST', origin: 'https://evil.example' }, []))).toBe(
      'Forbidden: requests from this origin are not allowed.',
    );
    expect(messageOf(transportRefusal({ method: 'GET', origin: undefined }, []))).toBe(
      'Method not allowed: this server has no SSE stream and no sessions; send JSON-RPC messages with POST.',
    );
  });
});
