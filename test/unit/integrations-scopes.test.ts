import { InsufficientScopeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { describe, expect, it } from 'vitest';
import type { AuthInfo } from '#lib/integrations/auth-info';
import { requireScopes as requireScopesSdk, scopeChallenge } from '#lib/integrations/mcp-sdk';
import { answerMissingScopes, type McpAuthenticatedRequest } from '#lib/integrations/node';
import { missingScopes, requireScopes } from '#lib/integrations/scopes';

/**
 * Scopes per operation in the verifier integrations (contract §15 revised in turn 5): an OAuth
 * credential lacking one is told to step up (403 `insufficient_scope` naming only what the
 * operation needs, and the metadata), an API key gets contract §7's 403 with a sentence.
 */
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

const caller = (kind: 'api_key' | 'oauth', scopes = ['svc.forms.read']): AuthInfo => ({
  token: 'svc_mcp_at_v1_x',
  clientId: kind === 'oauth' ? 'https://app.example.com/client.json' : 'key-1',
  scopes,
  expiresAt: 1797900455,
  resourceMetadataUrl: METADATA_URL,
  extra: { user_id: 'user-1', key_id: 'key-1', kind, workspaces: [] },
});

const bodyOf = async (response: Response) =>
  (await response.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };

describe('requireScopes (fetch-style servers)', () => {
  it('lets a credential with every scope through', () => {
    expect(
      requireScopes(caller('oauth', ['svc.forms.read', 'svc.forms.write']), ['svc.forms.write']),
    ).toBeUndefined();
    expect(missingScopes(caller('oauth'), ['svc.forms.read', 'svc.forms.write'])).toEqual([
      'svc.forms.write',
    ]);
  });

  it('asks an OAuth credential to step up: 403 insufficient_scope with only the needed scopes and the metadata', async () => {
    const refused = requireScopes(caller('oauth'), ['svc.forms.write']) as Response;
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="svc-mcp", error="insufficient_scope", error_description="The app needs more access for this operation", ' +
        `scope="svc.forms.write", resource_metadata="${METADATA_URL}"`,
    );
    expect(await bodyOf(refused)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32003,
        message:
          'This app was not allowed svc.forms.write, which this operation needs: it asks you to allow it.',
      },
    });
  });

  it('refuses an API key with contract §7’s 403: no error= (a key cannot step up), the sentence in the body', async () => {
    const refused = requireScopes(caller('api_key'), ['svc.forms.write', 'svc.forms.generate']) as Response;
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');
    expect((await bodyOf(refused)).error.message).toBe(
      'This API key lacks svc.forms.write, svc.forms.generate, which this operation needs: create a key with it.',
    );
  });
});

describe('answerMissingScopes (Node and Express)', () => {
  it('writes the refusal and says so, or writes nothing', () => {
    const written: unknown[] = [];
    const res = {
      writeHead: (status: number, headers: Record<string, string>) => {
        written.push(status, headers['www-authenticate']);
        return { end: (body: string) => written.push(JSON.parse(body).error.code) };
      },
    } as never;
    const req = (auth: AuthInfo | undefined) => ({ auth }) as McpAuthenticatedRequest;
    expect(answerMissingScopes(req(caller('oauth', ['svc.forms.write'])), res, ['svc.forms.write'])).toBe(
      false,
    );
    expect(answerMissingScopes(req(undefined), res, ['svc.forms.write'])).toBe(false);
    expect(written).toEqual([]);
    expect(answerMissingScopes(req(caller('oauth')), res, ['svc.forms.write'])).toBe(true);
    expect(written[0]).toBe(403);
    expect(written[1]).toContain('error="insufficient_scope", error_description=');
    expect(written[2]).toBe(-32003);
  });
});

describe('the MCP SDK entry', () => {
  it('requireScopes throws the SDK’s InsufficientScopeError with the sentence, and returns with the scopes', () => {
    expect(() => requireScopesSdk(caller('oauth', ['svc.forms.write']), ['svc.forms.write'])).not.toThrow();
    expect(() => requireScopesSdk(caller('api_key'), ['svc.forms.write'])).toThrow(InsufficientScopeError);
    expect(() => requireScopesSdk(caller('api_key'), ['svc.forms.write'])).toThrow(
      'This API key lacks svc.forms.write, which this operation needs: create a key with it.',
    );
  });

  it('scopeChallenge gives the SDK v2 a tool’s challenge: the scopes it needs, only when the caller lacks one', () => {
    const challenge = scopeChallenge('svc.forms.write');
    expect(challenge({ authInfo: caller('oauth') })).toEqual({
      scopes: ['svc.forms.write'],
      errorDescription:
        'This app was not allowed svc.forms.write, which this operation needs: it asks you to allow it.',
    });
    expect(challenge({ authInfo: caller('oauth', ['svc.forms.read', 'svc.forms.write']) })).toBeUndefined();
    // No credential: the SDK's authentication gate answers, not the challenge.
    expect(challenge({})).toBeUndefined();
    // The SDK's own AuthInfo, without this verifier's kind, is read as an API key's.
    expect(challenge({ authInfo: { scopes: [], extra: {} } })?.errorDescription).toMatch(
      /^This API key lacks/,
    );
  });
});
