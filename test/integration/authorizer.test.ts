import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayRequestAuthorizerEvent,
  APIGatewaySimpleAuthorizerWithContextResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiAuthorizerEvent, httpApiEvent, lambdaContext } from '#infra/local/apigw';
import { type Handlers, makeHandlers } from '#lib/handlers/index';
import { generateKey } from '#lib/keys/format';
import { revokeKey } from '#lib/keys/lifecycle';
import type { McpAuthContext } from '#lib/mcp/authorizer';
import { denialResponse } from '#lib/mcp/denial';
import type { Runtime } from '#lib/runtime';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';
import { captureOutput } from '#test/support/logs';
import { SecretLedger } from '#test/support/secrets';

let tables: TestTables;
let rt: Runtime;
let authorizer: { handler: Handlers['mcp-authorizer'] };
let mcp: { handler: Handlers['mcp-server'] };
const output = captureOutput();
const secrets = new SecretLedger();
const METHOD_ARN = 'arn:aws:execute-api:us-east-1:123456789012:abc123/prod/POST/mcp';

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  const handlers = makeHandlers(rt);
  authorizer = { handler: handlers['mcp-authorizer'] };
  mcp = { handler: handlers['mcp-server'] };
});
afterAll(async () => {
  output.restore();
  await tables.drop();
});

async function issue() {
  const issued = await issueKey(tables, rt.service, { scopes: ['svc.forms.write'] });
  secrets.add(issued.apiKey, (await rt.service.keys.get(issued.id))?.digest);
  return issued;
}

const httpEvent = (authorization?: string) =>
  httpApiAuthorizerEvent(
    httpApiEvent({
      method: 'POST',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      headers: {
        ...(authorization !== undefined && { Authorization: authorization }),
        'content-type': 'application/json',
      },
    }),
  );
const tokenEvent = (authorizationToken: string): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken,
  methodArn: METHOD_ARN,
});
const restRequestEvent = (authorization?: string) =>
  ({
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    headers: authorization === undefined ? {} : { Authorization: authorization },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

const run = (event: unknown) => authorizer.handler(event as never, lambdaContext('mcp-authorizer'));

describe('HTTP API authorizer (simple responses)', () => {
  it('allows a valid key with its context as strings', async () => {
    const { apiKey, userId, id, workspaceId } = await issue();
    const result = (await run(
      httpEvent(`Bearer ${apiKey}`),
    )) as APIGatewaySimpleAuthorizerWithContextResult<McpAuthContext>;
    expect(result.isAuthorized).toBe(true);
    expect(result.context).toEqual({
      user_id: userId,
      key_id: id,
      scopes: 'svc.forms.read svc.forms.write',
      workspaces: JSON.stringify([
        { id: workspaceId, role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'] },
      ]),
    });
    expect(Object.values(result.context).every((v) => typeof v === 'string')).toBe(true);
  });

  it('accepts the scheme in any case', async () => {
    const { apiKey } = await issue();
    expect(await run(httpEvent(`bearer ${apiKey}`))).toMatchObject({ isAuthorized: true });
  });

  it.each([
    ['no header', undefined],
    ['no scheme', 'KEY'],
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['garbage', 'Bearer svc_mcp_v1_nope'],
    ['an unknown key', 'Bearer GENERATED'],
  ])('denies (never throws) for %s', async (_label, header) => {
    const value = header === 'Bearer GENERATED' ? `Bearer ${generateKey().apiKey}` : header;
    expect(await run(httpEvent(value))).toEqual({ isAuthorized: false });
  });

  it('denies a revoked key on the very next call', async () => {
    const { apiKey, userId, id } = await issue();
    expect(await run(httpEvent(`Bearer ${apiKey}`))).toMatchObject({ isAuthorized: true });
    await revokeKey(rt.service, userId, id);
    expect(await run(httpEvent(`Bearer ${apiKey}`))).toEqual({ isAuthorized: false });
  });

  it('fails closed when DynamoDB fails', async () => {
    const { apiKey } = await issue();
    const doc = rt.doc;
    doc.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('boom'), {
          name: 'InternalServerError',
          $fault: 'server',
          $metadata: {},
        });
      },
      { step: 'initialize', name: 'fault' },
    );
    try {
      expect(await run(httpEvent(`Bearer ${apiKey}`))).toEqual({ isAuthorized: false });
      expect(await run(tokenEvent(`Bearer ${apiKey}`))).toMatchObject({
        policyDocument: { Statement: [{ Effect: 'Deny' }] },
      });
    } finally {
      doc.middlewareStack.remove('fault');
    }
    expect(await run(httpEvent(`Bearer ${apiKey}`))).toMatchObject({ isAuthorized: true });
  });
});

describe('REST API authorizer (TOKEN and REQUEST)', () => {
  it('allows a valid key with an IAM policy for the method ARN', async () => {
    const { apiKey, userId } = await issue();
    for (const event of [tokenEvent(`Bearer ${apiKey}`), restRequestEvent(`Bearer ${apiKey}`)]) {
      const result = (await run(event)) as APIGatewayAuthorizerResult;
      expect(result.principalId).toBe(userId);
      expect(result.policyDocument.Statement).toEqual([
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: METHOD_ARN },
      ]);
      expect(result.context?.user_id).toBe(userId);
    }
  });

  it('throws Unauthorized (API Gateway 401) for a missing or malformed key', async () => {
    await expect(run(tokenEvent(''))).rejects.toThrow('Unauthorized');
    await expect(run(tokenEvent('Bearer nope'))).rejects.toThrow('Unauthorized');
    await expect(run(restRequestEvent())).rejects.toThrow('Unauthorized');
  });

  it('returns a Deny policy (API Gateway 403) for a revoked key', async () => {
    const { apiKey, userId, id } = await issue();
    await revokeKey(rt.service, userId, id);
    const result = (await run(tokenEvent(`Bearer ${apiKey}`))) as APIGatewayAuthorizerResult;
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: METHOD_ARN },
    ]);
  });
});

describe('reference MCP function', () => {
  const mcpEvent = (context: Partial<McpAuthContext> | undefined, body: unknown) => {
    const event = httpApiEvent({
      method: 'POST',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        host: 'localhost',
      },
      body: JSON.stringify(body),
    }) as unknown as APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<McpAuthContext>>;
    (event.requestContext as { authorizer?: unknown }).authorizer = context ? { lambda: context } : undefined;
    return event;
  };

  it('answers list_workspaces from the authorizer context only', async () => {
    const { apiKey } = await issue();
    const allowed = (await run(
      httpEvent(`Bearer ${apiKey}`),
    )) as APIGatewaySimpleAuthorizerWithContextResult<McpAuthContext>;
    const reply = await mcp.handler(
      mcpEvent(allowed.context, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_workspaces', arguments: {} },
      }),
    );
    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body ?? '{}');
    expect(body.result.structuredContent.workspaces).toEqual(
      JSON.parse(allowed.context.workspaces).map((w: { id: string; role: string; scopes: string[] }) => ({
        workspace_id: w.id,
        role: w.role,
        scopes: w.scopes,
      })),
    );
  });

  it('refuses with 403 when the authorizer context is missing or forged-looking', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await mcp.handler(mcpEvent(undefined, call))).statusCode).toBe(403);
    expect(
      (await mcp.handler(mcpEvent({ user_id: 'u', key_id: 'k', workspaces: 'not json' }, call))).statusCode,
    ).toBe(403);
  });
});

describe('in-process verification answer', () => {
  it('is 401 with a Bearer challenge for a denied key and nothing for a valid one', async () => {
    const denied = denialResponse({ outcome: 'revoked', key_id: 'x' });
    expect(denied?.status).toBe(401);
    expect(denied?.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(
      denialResponse({ outcome: 'valid', user_id: 'u', key_id: 'k', scopes: [], workspaces: [] }),
    ).toBeUndefined();
  });
});

describe('authorizer logs', () => {
  it('record decisions without any key or digest', () => {
    const logs = output.text();
    expect(logs).toContain('mcp key decision');
    expect(secrets.size).toBeGreaterThan(5);
    expect(secrets.leaksIn(logs)).toEqual([]);
  });
});
