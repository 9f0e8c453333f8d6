import { describe, expect, it } from 'vitest';
import type { RateRefusal, ToolRefusal } from '#lib/keys/verify';
import { MCP_ERROR_CODES } from '#lib/mcp/answer';
import { type AuthorizerEvent, contextOf, decide, mcpCallOf } from '#lib/mcp/authorizer';
import { denialResponse, mcpDenial } from '#lib/mcp/denial';
import { DENY_MESSAGE, REST_GATEWAY_RESPONSES, renderDenied } from '#lib/mcp/gateway-responses';

/**
 * What an MCP client sees when a tool is refused or a limit reached (contract §19; lib/mcp/
 * denial.ts, authorizer.ts, gateway-responses.ts): 403 with the tool's sentence and no OAuth
 * step-up, 429 with `Retry-After` and the limit's sentence, and the REST API's Deny carrying
 * either sentence into its ACCESS_DENIED body.
 */

const ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc/prod/POST/mcp';
const META = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

const tool: ToolRefusal = {
  outcome: 'tool_not_allowed',
  key_id: 'k-1',
  kind: 'oauth',
  tool: 'replace_draft',
  by: 'policy',
  tools: ['list_forms'],
  workspace_ids: ['w1'],
};
const TOOL_SENTENCE = 'Workspace w1 does not allow replace_draft for AI clients.';

const limited: RateRefusal = {
  outcome: 'rate_limited',
  key_id: 'k-1',
  kind: 'api_key',
  window: 'day',
  limit: 1000,
  by: 'credential',
  until: '2026-12-07T00:00:00.000Z',
  retry_after: 49_458,
};
const RATE_SENTENCE =
  'This key made its 1,000 calls for today, the limit its owner set; it can call again at 00:00 UTC.';

const body = (answer: { body: string }) =>
  JSON.parse(answer.body) as { error: { code: number; message: string } };

describe('a tool the credential may not call', () => {
  it('403 with its sentence, a challenge without an RFC 6750 code (no step-up), even with OAuth on', () => {
    for (const options of [{}, { resourceMetadataUrl: META }]) {
      const answer = mcpDenial(tool, options);
      expect(answer.status).toBe(403);
      expect(answer.headers).toEqual({
        'content-type': 'application/json',
        'www-authenticate': 'Bearer realm="svc-mcp"',
      });
      expect(body(answer).error).toEqual({ code: MCP_ERROR_CODES.forbidden, message: TOOL_SENTENCE });
    }
  });
});

describe('a call over a limit', () => {
  it('429 with Retry-After in seconds, the limit’s sentence, and no challenge', () => {
    const answer = mcpDenial(limited, { resourceMetadataUrl: META });
    expect(answer.status).toBe(429);
    expect(answer.headers).toEqual({ 'content-type': 'application/json', 'retry-after': '49458' });
    expect(body(answer).error).toEqual({ code: MCP_ERROR_CODES.rateLimited, message: RATE_SENTENCE });
  });

  it('as an in-process server answers it', async () => {
    const response = denialResponse(limited) as Response;
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('49458');
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(RATE_SENTENCE);
  });
});

describe('the key authorizer', () => {
  const rest = (headers: Record<string, string> = {}) =>
    ({ type: 'REQUEST', methodArn: ARN, headers, multiValueHeaders: null }) as unknown as AuthorizerEvent;
  const deny = (message: string) => ({
    answer: {
      principalId: 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: ARN }],
      },
      context: { message },
    },
  });

  it('REST API: a call over a limit is a Deny carrying its sentence, as a refused tool is', () => {
    expect(decide(rest(), limited)).toEqual(deny(RATE_SENTENCE));
    expect(decide(rest(), tool)).toEqual(deny(TOOL_SENTENCE));
  });

  it('HTTP API: both are a plain denial', () => {
    const http = {
      version: '2.0',
      type: 'REQUEST',
      routeArn: ARN,
      headers: {},
    } as unknown as AuthorizerEvent;
    expect(decide(http, limited)).toEqual({ answer: { isAuthorized: false } });
    expect(decide(http, tool)).toEqual({ answer: { isAuthorized: false } });
  });

  it('hands the MCP server the tools it may call and those its owner limited it to, when it has them', () => {
    const valid = {
      outcome: 'valid' as const,
      kind: 'api_key' as const,
      user_id: 'u-1',
      key_id: 'k-1',
      expires_at: '2027-01-01T00:00:00.000Z',
      scopes: ['svc.forms.read' as const],
      workspaces: [
        { id: 'w1', role: 'editor' as const, scopes: ['svc.forms.read' as const], tools: ['list_forms'] },
      ],
    };
    const base = {
      user_id: 'u-1',
      key_id: 'k-1',
      kind: 'api_key',
      scopes: 'svc.forms.read',
      workspaces: JSON.stringify(valid.workspaces),
    };
    expect(contextOf(valid)).toEqual(base);
    expect(contextOf({ ...valid, tools: ['list_forms'], own_tools: ['list_forms', 'read_draft'] })).toEqual({
      ...base,
      tools: 'list_forms',
      own_tools: 'list_forms read_draft',
    });
  });

  it('reads the call from Mcp-Method and Mcp-Name, in any case; none without a method or for a TOKEN authorizer', () => {
    expect(mcpCallOf(rest({ 'Mcp-Method': 'tools/call', 'MCP-NAME': 'list_forms' }))).toEqual({
      method: 'tools/call',
      name: 'list_forms',
    });
    expect(mcpCallOf(rest({ 'mcp-method': 'tools/list' }))).toEqual({
      method: 'tools/list',
      name: undefined,
    });
    expect(mcpCallOf(rest({ 'mcp-name': 'list_forms' }))).toBeUndefined();
    const token = { type: 'TOKEN', methodArn: ARN, authorizationToken: 'Bearer k' } as AuthorizerEvent;
    expect(mcpCallOf(token)).toBeUndefined();
  });
});

describe('the REST API’s ACCESS_DENIED body', () => {
  it('is the Deny’s sentence, whichever refusal it is', () => {
    const denied = REST_GATEWAY_RESPONSES.ACCESS_DENIED;
    expect(body({ body: renderDenied(denied.body, { message: TOOL_SENTENCE }) }).error).toEqual({
      code: MCP_ERROR_CODES.forbidden,
      message: TOOL_SENTENCE,
    });
    expect(body({ body: renderDenied(denied.body, { message: RATE_SENTENCE }) }).error.message).toBe(
      RATE_SENTENCE,
    );
  });

  it('a context without a sentence leaves the message empty; only the placeholder is replaced', () => {
    const denied = REST_GATEWAY_RESPONSES.ACCESS_DENIED;
    expect(body({ body: renderDenied(denied.body, { message: 42 }) }).error.message).toBe('');
    expect(body({ body: renderDenied(denied.body, {}) }).error.message).toBe('');
    expect(renderDenied('no placeholder', { message: 'x' })).toBe('no placeholder');
    expect(renderDenied(`${DENY_MESSAGE} and ${DENY_MESSAGE}`, { message: 'x' })).toBe(
      `x and ${DENY_MESSAGE}`,
    );
  });
});

describe('a missing scope', () => {
  it('names every scope the operation needs, in the challenge and the sentence', () => {
    const app = mcpDenial({
      outcome: 'insufficient_scope',
      scopes: ['svc.forms.write', 'svc.forms.generate'],
      kind: 'oauth',
    });
    expect(app.headers['www-authenticate']).toContain('scope="svc.forms.write svc.forms.generate"');
    expect(body(app).error.message).toBe(
      'This app was not allowed svc.forms.write, svc.forms.generate, which this operation needs: it asks you to allow it.',
    );
    const key = mcpDenial({
      outcome: 'insufficient_scope',
      scopes: ['svc.forms.write', 'svc.forms.generate'],
      kind: 'api_key',
    });
    expect(body(key).error.message).toBe(
      'This API key lacks svc.forms.write, svc.forms.generate, which this operation needs: create a key with it.',
    );
  });
});
