import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorizerContext, toRequest } from '#lib/mcp/request';

/**
 * What the reference MCP function makes of API Gateway's two payload versions (lib/mcp/request.ts):
 * the Web `Request` the MCP transport reads, and the key authorizer's context.
 */
function restEvent(
  init: Partial<APIGatewayProxyEvent> & { authorizer?: unknown } = {},
): APIGatewayProxyEvent {
  const { authorizer, ...rest } = init;
  return {
    httpMethod: 'POST',
    path: '/mcp',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    resource: '/mcp',
    body: null,
    isBase64Encoded: false,
    requestContext: { domainName: 'api.example.com', ...(authorizer !== undefined && { authorizer }) },
    ...rest,
  } as unknown as APIGatewayProxyEvent;
}

function httpApiEvent(
  init: Partial<APIGatewayProxyEventV2> & { method?: string; authorizer?: unknown } = {},
): APIGatewayProxyEventV2 {
  const { method, authorizer, ...rest } = init;
  return {
    version: '2.0',
    routeKey: 'POST /mcp',
    rawPath: '/mcp',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      domainName: 'api.example.com',
      http: { method: method ?? 'POST' },
      ...(authorizer !== undefined && { authorizer }),
    },
    ...rest,
  } as unknown as APIGatewayProxyEventV2;
}

describe('the Request an MCP function hands the transport', () => {
  it('from a REST API event: method, path, every value of a repeated query parameter', async () => {
    const request = toRequest(
      restEvent({
        httpMethod: 'POST',
        path: '/mcp',
        headers: { host: 'mcp.example.com' },
        multiValueQueryStringParameters: { a: ['1', '2'], b: ['x y'] },
        body: '{"jsonrpc":"2.0"}',
      }),
    );
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://mcp.example.com/mcp?a=1&a=2&b=x+y');
    expect(await request.text()).toBe('{"jsonrpc":"2.0"}');
  });

  it('from a REST API event without a query: no question mark', () => {
    expect(toRequest(restEvent({ headers: { host: 'h.example' } })).url).toBe('https://h.example/mcp');
    expect(
      toRequest(
        restEvent({
          headers: { host: 'h.example' },
          multiValueQueryStringParameters: { a: [], b: undefined },
        }),
      ).url,
    ).toBe('https://h.example/mcp');
  });

  it('keeps every value of a repeated REST header, and a single-valued one', () => {
    const request = toRequest(
      restEvent({
        headers: { accept: 'text/event-stream', 'x-single': 'one', 'x-empty': 'kept' },
        multiValueHeaders: { accept: ['application/json', 'text/event-stream'], 'x-empty': [] },
      }),
    );
    expect(request.headers.get('accept')).toBe('application/json, text/event-stream');
    expect(request.headers.get('x-single')).toBe('one');
    expect(request.headers.get('x-empty')).toBe('kept');
  });

  it('reads REST headers without multiValueHeaders, and neither list at all', () => {
    const one = toRequest(restEvent({ headers: { 'x-a': 'b' }, multiValueHeaders: undefined as never }));
    expect(one.headers.get('x-a')).toBe('b');
    const none = toRequest(restEvent({ headers: null as never, multiValueHeaders: null as never }));
    expect([...none.headers.keys()]).toEqual([]);
    expect(none.url).toBe('https://api.example.com/mcp');
  });

  it('from an HTTP API event: method, raw path and raw query, headers', async () => {
    const request = toRequest(
      httpApiEvent({
        method: 'POST',
        rawPath: '/mcp',
        rawQueryString: 'a=1&a=2',
        headers: { host: 'mcp.example.com', 'content-type': 'application/json', skipped: undefined },
        body: '{}',
      }),
    );
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://mcp.example.com/mcp?a=1&a=2');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(request.headers.has('skipped')).toBe(false);
    expect(await request.text()).toBe('{}');
  });

  it('from an HTTP API event without a query: no question mark', () => {
    expect(toRequest(httpApiEvent({ headers: { host: 'h.example' } })).url).toBe('https://h.example/mcp');
  });

  it('takes the host from the Host header, else the API domain, else localhost', () => {
    expect(new URL(toRequest(restEvent({ headers: { host: 'a.example' } })).url).host).toBe('a.example');
    expect(new URL(toRequest(restEvent()).url).host).toBe('api.example.com');
    const bare = restEvent();
    (bare.requestContext as { domainName?: string }).domainName = undefined;
    expect(new URL(toRequest(bare).url).host).toBe('localhost');
  });

  it('decodes a base64 body to its bytes', async () => {
    const bytes = Buffer.from([0x7b, 0x7d, 0xe2, 0x80, 0xa6]);
    const request = toRequest(restEvent({ body: bytes.toString('base64'), isBase64Encoded: true }));
    expect(Buffer.from(await request.arrayBuffer())).toEqual(bytes);
    const plain = toRequest(restEvent({ body: 'e30=', isBase64Encoded: false }));
    expect(await plain.text()).toBe('e30=');
  });

  it('drops a header whose value is missing', () => {
    const request = toRequest(restEvent({ headers: { 'x-gone': undefined as never, 'x-kept': 'v' } }));
    expect(request.headers.has('x-gone')).toBe(false);
    expect(request.headers.get('x-kept')).toBe('v');
  });

  it('sends no body for an event without one, even one marked base64', () => {
    expect(toRequest(restEvent({ body: null, isBase64Encoded: true })).body).toBeNull();
    expect(toRequest(httpApiEvent({ body: undefined, isBase64Encoded: true })).body).toBeNull();
  });

  it('sends no body for GET or HEAD, nor when the event has none', async () => {
    expect(toRequest(restEvent({ httpMethod: 'GET', body: 'ignored' })).body).toBeNull();
    expect(toRequest(restEvent({ httpMethod: 'HEAD', body: 'ignored' })).body).toBeNull();
    expect(toRequest(restEvent({ httpMethod: 'DELETE', body: 'sent' })).body).not.toBeNull();
    expect(toRequest(restEvent({ body: null })).body).toBeNull();
    expect(toRequest(httpApiEvent({ body: undefined })).body).toBeNull();
    expect(await toRequest(restEvent({ body: '' })).text()).toBe('');
  });
});

describe('the key authorizer context an MCP function trusts', () => {
  const context = { user_id: 'u', key_id: 'k', scopes: 's', workspaces: '[]' };

  it('is the REST authorizer itself, and the HTTP API authorizer’s lambda field', () => {
    expect(authorizerContext(restEvent({ authorizer: context }))).toEqual(context);
    expect(authorizerContext(httpApiEvent({ authorizer: { lambda: context } }))).toEqual(context);
  });

  it('is missing without an authorizer, or when it is not an object', () => {
    expect(authorizerContext(restEvent())).toBeUndefined();
    expect(authorizerContext(restEvent({ authorizer: null }))).toBeUndefined();
    expect(authorizerContext(httpApiEvent({ authorizer: { lambda: 'forged' } }))).toBeUndefined();
    expect(authorizerContext(httpApiEvent({ authorizer: {} }))).toBeUndefined();
    // An HTTP API event's context is under `lambda`: the authorizer object itself is not it.
    expect(authorizerContext(httpApiEvent({ authorizer: context }))).toBeUndefined();
  });
});
