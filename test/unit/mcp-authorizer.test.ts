import { describe, expect, it } from 'vitest';
import type { VerifyResult } from '#lib/keys/verify';
import { type AuthorizerEvent, bearerToken, decide, presentedKey, UNAUTHORIZED } from '#lib/mcp/authorizer';

/**
 * The key authorizer's pure parts (lib/mcp/authorizer.ts): which key a request presents, by event
 * kind, and API Gateway's answer to a verification.
 */
const ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc/prod/POST/mcp';

const tokenEvent = (authorizationToken: string): AuthorizerEvent =>
  ({ type: 'TOKEN', methodArn: ARN, authorizationToken }) as AuthorizerEvent;
const restEvent = (
  headers: Record<string, string | undefined> | null,
  multiValueHeaders: Record<string, (string | undefined)[] | undefined> | null = null,
): AuthorizerEvent =>
  ({ type: 'REQUEST', methodArn: ARN, headers, multiValueHeaders }) as unknown as AuthorizerEvent;
const httpEvent = (headers: Record<string, string | undefined> | undefined, identitySource?: string[]) =>
  ({
    version: '2.0',
    type: 'REQUEST',
    routeArn: ARN,
    ...(headers && { headers }),
    ...(identitySource && { identitySource }),
  }) as unknown as AuthorizerEvent;

describe('the key in an Authorization header', () => {
  it('is the one credential after Bearer, the scheme in any case, spaces around it', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Bearer   abc  ')).toBe('abc');
  });

  it('is none for another scheme, a prefix before it, a second word, or no header', () => {
    for (const header of [
      'Basic abc',
      'xBearer abc',
      'Bearer abc def',
      'Bearer',
      'Bearerabc',
      '',
      null,
      undefined,
    ])
      expect(bearerToken(header)).toBeUndefined();
  });
});

describe('the key a request presents', () => {
  it('TOKEN authorizer: the token’s Bearer credential', () => {
    expect(presentedKey(tokenEvent('Bearer k1'))).toBe('k1');
    expect(presentedKey(tokenEvent('k1'))).toBeUndefined();
  });

  it('REST REQUEST authorizer: the Authorization header in any case; several are never a key', () => {
    expect(presentedKey(restEvent({ Authorization: 'Bearer k1' }))).toBe('k1');
    expect(presentedKey(restEvent({ authorization: 'Bearer k1' }, { authorization: ['Bearer k1'] }))).toBe(
      'k1',
    );
    expect(
      presentedKey(restEvent({ authorization: 'Bearer k2' }, { authorization: ['Bearer k1', 'Bearer k2'] })),
    ).toBe('');
    expect(
      presentedKey(
        restEvent({ Authorization: 'Bearer k1' }, { Authorization: ['Bearer k1'], authorization: undefined }),
      ),
    ).toBe('k1');
    expect(presentedKey(restEvent({ 'x-other': 'Bearer k1' }))).toBeUndefined();
    expect(presentedKey(restEvent(null, null))).toBeUndefined();
  });

  it('HTTP API authorizer: the Authorization header, else the identity source; neither is none', () => {
    expect(presentedKey(httpEvent({ authorization: 'Bearer k1' }, ['Bearer k2']))).toBe('k1');
    expect(presentedKey(httpEvent({ 'x-other': 'v' }, ['Bearer k2']))).toBe('k2');
    expect(presentedKey(httpEvent(undefined, ['Bearer k2']))).toBe('k2');
    expect(presentedKey(httpEvent({ authorization: undefined, Authorization: 'Bearer k3' }))).toBe('k3');
    expect(presentedKey(httpEvent({ 'x-other': 'v' }))).toBeUndefined();
  });
});

describe('API Gateway’s answer to a key check', () => {
  const valid: VerifyResult = {
    outcome: 'valid',
    kind: 'api_key',
    user_id: 'u-1',
    key_id: 'k-1',
    expires_at: '2027-01-01T00:00:00.000Z',
    scopes: ['svc.forms.read'],
    workspaces: [{ id: 'w-1', role: 'viewer', scopes: ['svc.forms.read'] }],
  };
  const context = {
    user_id: 'u-1',
    key_id: 'k-1',
    kind: 'api_key',
    scopes: 'svc.forms.read',
    workspaces: '[{"id":"w-1","role":"viewer","scopes":["svc.forms.read"]}]',
  };
  const denials: (VerifyResult | 'error' | { outcome: 'missing' })[] = [
    'error',
    { outcome: 'not_found' },
    { outcome: 'no_access', key_id: 'k-1' },
    { outcome: 'unavailable' },
    { outcome: 'missing' },
  ];

  it('HTTP API: authorized with the context for a valid key, a plain denial for anything else', () => {
    expect(decide(httpEvent({}), valid)).toEqual({ answer: { isAuthorized: true, context } });
    for (const result of denials)
      expect(decide(httpEvent({}), result as VerifyResult)).toEqual({ answer: { isAuthorized: false } });
  });

  it('REST API: an Allow policy for the method, a Deny for no_access, Unauthorized or a failure thrown', () => {
    const statement = (effect: string) => ({
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: ARN }],
    });
    expect(decide(restEvent({}), valid)).toEqual({
      answer: { principalId: 'u-1', policyDocument: statement('Allow'), context },
    });
    expect(decide(restEvent({}), { outcome: 'no_access', key_id: 'k-1' })).toEqual({
      answer: {
        principalId: 'anonymous',
        policyDocument: statement('Deny'),
        context: { message: "The key's creator no longer has access to any of its workspaces." },
      },
    });
    // A tool it may not call (contract §19): a Deny whose context carries the sentence.
    const refusal: VerifyResult = {
      outcome: 'tool_not_allowed',
      key_id: 'k-1',
      kind: 'api_key',
      tool: 'replace_draft',
      by: 'credential',
      tools: ['list_forms', 'read_draft'],
      workspace_ids: [],
    };
    expect(decide(restEvent({}), refusal)).toEqual({
      answer: {
        principalId: 'anonymous',
        policyDocument: statement('Deny'),
        context: {
          message:
            'This key may not call replace_draft: its tools are list_forms, read_draft. Its owner can create a key for it.',
        },
      },
    });
    expect(decide(httpEvent({}), refusal)).toEqual({ answer: { isAuthorized: false } });
    // The tools it may call reach the MCP server with the context.
    expect(decide(httpEvent({}), { ...valid, tools: ['list_forms', 'read_draft'] })).toEqual({
      answer: { isAuthorized: true, context: { ...context, tools: 'list_forms read_draft' } },
    });
    expect(UNAUTHORIZED).toBe('Unauthorized');
    expect(decide(tokenEvent('x'), { outcome: 'not_found' })).toEqual({ reject: 'Unauthorized' });
    expect(decide(tokenEvent('x'), 'error')).toEqual({ reject: 'key verification failed' });
    expect(decide(tokenEvent('x'), { outcome: 'unavailable' })).toEqual({
      reject: 'key verification failed',
    });
  });
});
