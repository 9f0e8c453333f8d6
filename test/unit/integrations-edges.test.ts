import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { authInfoFor } from '#lib/integrations/auth-info';
import { createMcpKeyGuard } from '#lib/integrations/guard';
import { mcpKeyAuth } from '#lib/integrations/node';
import { resourceUrl } from '#lib/integrations/resource-metadata';
import { requireScopes } from '#lib/integrations/scopes';
import type { ValidResult } from '#lib/keys/verify';
import type { McpKeyVerifier } from '#lib/verifier';

/**
 * The integrations' edges (lib/integrations/): what a credential's resource becomes when it does
 * not parse, the metadata to HEAD, and a Node request without a method or a URL.
 */
const RESOURCE = 'https://mcp.example.com/mcp';
const VALID: ValidResult = {
  outcome: 'valid',
  kind: 'oauth',
  user_id: 'user-1',
  key_id: 'grant-1',
  expires_at: '2026-12-22T00:47:35.505Z',
  scopes: ['svc.forms.read'],
  workspaces: [{ id: 'ws-1', role: 'editor', scopes: ['svc.forms.read'] }],
};
const verifier: McpKeyVerifier = { resource: undefined, verify: async () => VALID };

describe('AuthInfo’s resource', () => {
  it('is the server’s when the credential’s own does not parse as a URL, and absent when neither does', () => {
    const odd = { ...VALID, resource: 'not a url' } as ValidResult;
    expect(authInfoFor(odd, 't', new URL(RESOURCE)).resource).toEqual(new URL(RESOURCE));
    expect('resource' in authInfoFor(odd, 't', undefined)).toBe(false);
  });
});

describe('createMcpKeyGuard with a resource', () => {
  it('puts its metadata URL in AuthInfo, which a scope refusal names', async () => {
    const guard = createMcpKeyGuard(verifier, { resource: RESOURCE });
    const checked = await guard(
      new Request(RESOURCE, { method: 'POST', headers: { authorization: 'Bearer x' } }),
    );
    if (!checked.ok) throw new Error('refused');
    const metadataUrl = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
    expect(checked.auth.resourceMetadataUrl).toBe(metadataUrl);
    expect(requireScopes(checked.auth, ['svc.forms.write'])?.headers.get('www-authenticate')).toContain(
      `resource_metadata="${metadataUrl}"`,
    );
  });

  it('answers a HEAD of the metadata as a GET', async () => {
    const guard = createMcpKeyGuard(verifier, { resource: RESOURCE });
    const checked = await guard(
      new Request('https://mcp.example.com/.well-known/oauth-protected-resource/mcp', { method: 'HEAD' }),
    );
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.response.status).toBe(200);
  });

  it('says what a metadata path must be', () => {
    expect(() => createMcpKeyGuard(verifier, { resource: RESOURCE, resourceMetadataPath: 'prm' })).toThrow(
      new TypeError('`resourceMetadataPath` must be a path starting with /'),
    );
  });
});

describe('mcpKeyAuth on a bare node:http request', () => {
  it('reads a request without a method as a GET and one without a URL as the root', async () => {
    const auth = mcpKeyAuth(verifier, {
      resource: 'https://mcp.example.com/',
      resourceMetadataPath: '/',
    });
    const written: { status?: number } = {};
    const res = {
      writeHead(status: number) {
        written.status = status;
        return this;
      },
      end() {
        return this;
      },
    } as unknown as ServerResponse;
    const nexts: unknown[] = [];
    await auth({ headers: {} } as IncomingMessage, res, (e) => void nexts.push(e));
    // The metadata is served at `/` to a GET: both defaults were taken.
    expect(written.status).toBe(200);
    expect(nexts).toEqual([]);
  });
});

describe('the resource of an MCP server', () => {
  it('is an http or https URL; anything else is refused, the value named', () => {
    expect(resourceUrl('http://localhost:3000/mcp').href).toBe('http://localhost:3000/mcp');
    expect(resourceUrl('https://mcp.example.com/mcp').href).toBe('https://mcp.example.com/mcp');
    expect(() => resourceUrl('ftp://mcp.example.com/mcp')).toThrow(
      new TypeError(
        'the resource must be the MCP server\'s absolute http(s) URL without a fragment, not "ftp://mcp.example.com/mcp"',
      ),
    );
  });
});
