import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayRequestAuthorizerEvent,
  APIGatewaySimpleAuthorizerWithContextResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { restProxyEvent } from '#infra/local/emulation/rest-api-events';
import type { Scope } from '#lib/access/scopes';
import { REFERENCE_TOOLS, toolsOfScopes } from '#lib/access/tools';
import { type Handlers, makeHandlers } from '#lib/handlers/index';
import { mcpAuthorizerHandler } from '#lib/handlers/mcp-authorizer';
import { assembleKey, generateKey, secretField } from '#lib/keys/format';
import { revokeKey } from '#lib/keys/lifecycle';
import type { McpAuthContext } from '#lib/mcp/authorizer';
import { mcpDenial } from '#lib/mcp/denial';
import { mcpServerHandler } from '#lib/routes/mcp';
import type { Runtime } from '#lib/runtime';
import { httpApiAuthorizerEvent } from '#test/support/authorizer-events';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
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
const restRequestEvent = (...authorization: string[]) =>
  ({
    type: 'REQUEST',
    methodArn: METHOD_ARN,
    headers: authorization.length === 0 ? {} : { Authorization: authorization.at(-1) },
    multiValueHeaders: authorization.length === 0 ? {} : { Authorization: authorization },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

const run = (event: unknown) => authorizer.handler(event as never, lambdaContext('mcp-authorizer'));

describe('HTTP API authorizer (simple responses)', () => {
  it('allows a valid key with its context as strings', async () => {
    const { apiKey, userId, id, workspaceId } = await issue();
    const result = (await run(
      httpEvent(`Bearer ${apiKey}`),
    )) as APIGatewaySimpleAuthorizerWithContextResult<McpAuthContext>;
    expect(result.isAuthorized).toBe(true);
    // The tools it may call come with the context (contract §19): every tool its scopes allow.
    const tools = [
      'list_workspaces',
      'list_forms',
      'read_draft',
      'compile_dsl',
      'validate_definition',
      'create_form',
      'replace_draft',
    ];
    expect(result.context).toEqual({
      user_id: userId,
      key_id: id,
      kind: 'api_key',
      scopes: 'svc.forms.read svc.forms.write',
      workspaces: JSON.stringify([
        { id: workspaceId, role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'], tools },
      ]),
      tools: tools.join(' '),
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
    const doc = tables.doc;
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
      // REST: any error but `Unauthorized` is an authorizer failure, never a 401 (contract §6).
      await expect(run(tokenEvent(`Bearer ${apiKey}`))).rejects.toThrow('key verification failed');
      await expect(run(restRequestEvent(`Bearer ${apiKey}`))).rejects.toThrow('key verification failed');
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

  it.each([
    ['no header', []],
    ['a Basic credential', ['Basic dXNlcjpwYXNz']],
    ['a malformed key', ['Bearer svc_mcp_v1_nope']],
    ['an unknown key', ['Bearer UNKNOWN']],
    ['two Authorization headers, each with a valid key', ['Bearer VALID', 'Bearer VALID']],
  ])('throws Unauthorized (API Gateway 401) for %s', async (_label, headers) => {
    const { apiKey } = await issue();
    const values = headers.map((h) => h.replace('VALID', apiKey).replace('UNKNOWN', generateKey().apiKey));
    await expect(run(restRequestEvent(...values))).rejects.toThrow(/^Unauthorized$/);
    if (values.length <= 1) await expect(run(tokenEvent(values[0] ?? ''))).rejects.toThrow(/^Unauthorized$/);
  });

  it('throws Unauthorized for a key with a known id and the wrong secret', async () => {
    const [a, b] = [await issue(), await issue()];
    const forged = assembleKey(a.id, secretField(b.apiKey));
    await expect(run(restRequestEvent(`Bearer ${forged}`))).rejects.toThrow(/^Unauthorized$/);
  });

  it('throws Unauthorized for a revoked key, on the very next call', async () => {
    const { apiKey, userId, id } = await issue();
    expect(await run(restRequestEvent(`Bearer ${apiKey}`))).toMatchObject({ principalId: userId });
    await revokeKey(rt.service, userId, id);
    await expect(run(restRequestEvent(`Bearer ${apiKey}`))).rejects.toThrow(/^Unauthorized$/);
  });

  it('throws Unauthorized for an expired key', async () => {
    const clock = manualClock(new Date());
    const timed = mcpAuthorizerHandler(tables.runtime({ now: clock.now }));
    const { apiKey } = await issue();
    clock.advance(31 * 86_400_000);
    await expect(timed(restRequestEvent(`Bearer ${apiKey}`) as never, lambdaContext('t'))).rejects.toThrow(
      /^Unauthorized$/,
    );
  });

  it('returns a Deny policy (API Gateway 403 ACCESS_DENIED) when no workspace is left', async () => {
    const { apiKey, userId, workspaceId } = await issue();
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.membershipsTable, Key: { pk: userId, sk: workspaceId } }),
    );
    for (const event of [tokenEvent(`Bearer ${apiKey}`), restRequestEvent(`Bearer ${apiKey}`)]) {
      const result = (await run(event)) as APIGatewayAuthorizerResult;
      expect(result.policyDocument.Statement).toEqual([
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: METHOD_ARN },
      ]);
      // The sentence ACCESS_DENIED shows, and nothing of the key (no id, no user, no scopes).
      expect(result.context).toEqual({
        message: "The key's creator no longer has access to any of its workspaces.",
      });
    }
  });

  it('refuses a tools/call of a tool the key may not call from Mcp-Name, with the sentence (contract §19)', async () => {
    const { apiKey } = await issue();
    const narrowed = { 'mcp-method': 'tools/call', 'mcp-name': 'generate_form_preview' };
    const result = (await run({
      ...restRequestEvent(`Bearer ${apiKey}`),
      headers: { Authorization: `Bearer ${apiKey}`, ...narrowed },
    })) as APIGatewayAuthorizerResult;
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: METHOD_ARN },
    ]);
    expect(result.context?.message).toBe(
      'This key may not call generate_form_preview: its tools are list_workspaces, list_forms, read_draft, compile_dsl, validate_definition, create_form, replace_draft. Its owner can create a key for it.',
    );
    // The same key calling a tool it holds is allowed, and without Mcp-Name its tools go in the context.
    const allowed = (await run({
      ...restRequestEvent(`Bearer ${apiKey}`),
      headers: { Authorization: `Bearer ${apiKey}`, 'mcp-method': 'tools/call', 'mcp-name': 'create_form' },
    })) as APIGatewayAuthorizerResult;
    expect(allowed.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(String(allowed.context?.tools)).toContain('create_form');
  });
});

describe('what a denied key hears', () => {
  it('is byte for byte the same for an unknown id and a known id with the wrong secret', async () => {
    const [a, b] = [await issue(), await issue()];
    const unknownId = mcpDenial((await rt.verify(generateKey().apiKey)) as Parameters<typeof mcpDenial>[0]);
    const wrongSecret = mcpDenial(
      (await rt.verify(assembleKey(a.id, secretField(b.apiKey)))) as Parameters<typeof mcpDenial>[0],
    );
    expect(wrongSecret).toEqual(unknownId);
    expect(unknownId.body).toContain('The API key is not valid.');
  });

  it('names revoked and expired once the whole secret matched', async () => {
    const clock = manualClock(new Date());
    const timed = tables.runtime({ now: clock.now });
    const { apiKey } = await issue();
    const revoked = await issue();
    await revokeKey(rt.service, revoked.userId, revoked.id);
    expect(mcpDenial((await timed.verify(revoked.apiKey)) as never).body).toContain('was revoked');
    clock.advance(31 * 86_400_000);
    const expired = await timed.verify(apiKey);
    expect(expired.outcome).toBe('expired');
    expect(mcpDenial(expired as never).body).toMatch(
      /The API key expired on \d{4}-\d\d-\d\dT[^;]+; create a new key\./,
    );
  });
});

describe('reference MCP function', () => {
  const listWorkspaces = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'list_workspaces', arguments: {} },
  };
  const HEADERS = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Host: 'localhost',
  };

  /** What an HTTP API (payload 2.0) hands the function: the context under `authorizer.lambda`. */
  const httpApiMcpEvent = (context: Partial<McpAuthContext> | undefined, body: unknown) => {
    const event = httpApiEvent({
      method: 'POST',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      headers: HEADERS,
      body: JSON.stringify(body),
    }) as unknown as APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<McpAuthContext>>;
    (event.requestContext as { authorizer?: unknown }).authorizer = context ? { lambda: context } : undefined;
    return event;
  };

  /** What a REST API (payload 1.0) hands the function: the context's keys on `authorizer`. */
  const restMcpEvent = (
    context: Partial<McpAuthContext> & Record<string, string>,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    restProxyEvent(
      {
        method: init.method ?? 'POST',
        resource: '/mcp',
        path: '/mcp',
        rawHeaders: Object.entries({ ...HEADERS, ...init.headers }).flat(),
        query: new URLSearchParams(),
        body: Buffer.from(init.body === undefined ? '' : JSON.stringify(init.body)),
        sourceIp: '127.0.0.1',
        requestId: randomUUID(),
      },
      context,
    );

  async function allowedContext() {
    const { apiKey } = await issue();
    const allowed = (await run(restRequestEvent(`Bearer ${apiKey}`))) as APIGatewayAuthorizerResult;
    return allowed.context as unknown as McpAuthContext & Record<string, string>;
  }
  // list_workspaces shows per workspace the tools the credential may call there (contract §19).
  const workspacesOf = (context: McpAuthContext) =>
    JSON.parse(context.workspaces).map(
      (w: { id: string; role: string; scopes: Scope[]; tools?: string[] }) => ({
        workspace_id: w.id,
        role: w.role,
        scopes: w.scopes,
        tools: w.tools ?? toolsOfScopes(REFERENCE_TOOLS, w.scopes),
      }),
    );

  it('answers list_workspaces from a REST API authorizer context (payload 1.0)', async () => {
    const context = await allowedContext();
    const reply = await mcp.handler(
      restMcpEvent({ ...context, principalId: context.user_id }, { body: listWorkspaces }),
    );
    expect(reply.statusCode).toBe(200);
    expect(JSON.parse(reply.body).result.structuredContent.workspaces).toEqual(workspacesOf(context));
  });

  it('answers list_workspaces from an HTTP API authorizer context (payload 2.0)', async () => {
    const { apiKey } = await issue();
    const allowed = (await run(
      httpEvent(`Bearer ${apiKey}`),
    )) as APIGatewaySimpleAuthorizerWithContextResult<McpAuthContext>;
    const reply = await mcp.handler(httpApiMcpEvent(allowed.context, listWorkspaces));
    expect(reply.statusCode).toBe(200);
    expect(JSON.parse(reply.body).result.structuredContent.workspaces).toEqual(workspacesOf(allowed.context));
  });

  it('answers GET and DELETE with 405 and Allow: POST (no SSE stream, no sessions)', async () => {
    const context = await allowedContext();
    for (const method of ['GET', 'DELETE']) {
      const reply = await mcp.handler(
        restMcpEvent(context, { method, headers: { Accept: 'text/event-stream' } }),
      );
      expect(reply.statusCode).toBe(405);
      expect(reply.headers.allow).toBe('POST');
      expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    }
  });

  it('refuses an Origin that is not allowed, and serves one that is', async () => {
    const context = await allowedContext();
    const evil = await mcp.handler(
      restMcpEvent(context, { body: listWorkspaces, headers: { Origin: 'https://evil.example' } }),
    );
    expect(evil.statusCode).toBe(403);
    const allowing = mcpServerHandler({ allowedOrigins: ['https://app.example.com'] });
    const ok = await allowing(
      restMcpEvent(context, { body: listWorkspaces, headers: { Origin: 'https://app.example.com' } }),
    );
    expect(ok.statusCode).toBe(200);
  });

  it('refuses with 403 when the authorizer context is missing or forged-looking', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await mcp.handler(httpApiMcpEvent(undefined, call))).statusCode).toBe(403);
    expect(
      (await mcp.handler(httpApiMcpEvent({ user_id: 'u', key_id: 'k', workspaces: 'not json' }, call)))
        .statusCode,
    ).toBe(403);
    expect((await mcp.handler(restMcpEvent({}, { body: call }))).statusCode).toBe(403);
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
