import { describe, expect, it } from 'vitest';
import { generateKey } from '#lib/keys/format';
import { describeError, redactEvent, scrub } from '#lib/redact';

const { apiKey } = generateKey();
const JWT =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhbGljZSIsImV4cCI6MjAwMDAwMDAwMH0.c2lnbmF0dXJlLXBhcnQtaGVyZQ';
const text = (value: unknown) => JSON.stringify(value);

describe('scrub', () => {
  it('masks key- and JWT-shaped substrings anywhere in a string', () => {
    const out = scrub(`key=${apiKey}&token=${JWT} end`);
    expect(out).toBe('key=svc_mcp_v1_[redacted]&token=[redacted] end');
  });

  it('leaves ordinary text alone', () => {
    expect(scrub('GET /v1/mcp/api-keys 200')).toBe('GET /v1/mcp/api-keys 200');
  });
});

describe('redactEvent', () => {
  it('redacts credential headers in any case, cookies and bodies, and keeps the rest', () => {
    const event = {
      version: '2.0',
      rawPath: '/v1/mcp/api-keys',
      headers: { Authorization: `Bearer ${JWT}`, 'X-Api-Key': apiKey, 'user-agent': 'curl/8' },
      multiValueHeaders: { authorization: [`Bearer ${apiKey}`, `Bearer ${JWT}`] },
      cookies: [`session=${JWT}`],
      body: '{"name":"laptop"}',
      requestContext: { requestId: 'r-1', authorizer: { jwt: { claims: { sub: 'alice' } } } },
    };
    const out = redactEvent(event) as typeof event;
    expect(out.headers).toEqual({
      Authorization: '[redacted]',
      'X-Api-Key': '[redacted]',
      'user-agent': 'curl/8',
    });
    expect(out.multiValueHeaders.authorization).toBe('[redacted]');
    expect(out.cookies).toBe('[redacted]');
    expect(out.body).toBe('[redacted]');
    expect(out.requestContext).toEqual(event.requestContext);
    expect(out.rawPath).toBe('/v1/mcp/api-keys');
    // A deep copy: the handler still sees the original event.
    expect(event.headers.Authorization).toBe(`Bearer ${JWT}`);
  });

  it.each([
    [
      'HTTP API authorizer',
      { identitySource: [`Bearer ${apiKey}`], headers: { authorization: `Bearer ${apiKey}` } },
    ],
    ['REST TOKEN authorizer', { type: 'TOKEN', authorizationToken: `Bearer ${apiKey}` }],
    ['GitHub secret scanning', { headers: { 'Github-Public-Key-Signature': 'MEUCIQ' }, body: apiKey }],
  ])('leaves no credential in a %s event', (_label, event) => {
    const out = text(redactEvent(event));
    expect(out).not.toContain(apiKey.slice(11));
    expect(out).not.toContain('MEUCIQ');
  });

  it('masks keys and JWTs that arrive in fields it does not know', () => {
    const out = text(
      redactEvent({
        queryStringParameters: { cursor: apiKey },
        rawQueryString: `t=${JWT}`,
        pathParameters: { id: JWT },
      }),
    );
    expect(out).not.toContain(apiKey.slice(11));
    expect(out).not.toContain(JWT.split('.')[1]);
  });

  it('keeps lists as lists, masking keys in their items', () => {
    const out = redactEvent({ stageVariables: { hosts: ['a.example', `k=${apiKey}`] } });
    expect(out).toEqual({ stageVariables: { hosts: ['a.example', 'k=svc_mcp_v1_[redacted]'] } });
  });

  it('keeps null, numbers and booleans as they are', () => {
    expect(redactEvent({ a: null, b: 1, c: true, d: undefined })).toEqual({
      a: null,
      b: 1,
      c: true,
      d: undefined,
    });
  });
});

describe('describeError', () => {
  it('keeps name, message and stack, scrubbed, and drops the cause and SDK fields', () => {
    const err = Object.assign(
      new Error(`transaction cancelled for ${apiKey}`, { cause: { digest: 'c2VjcmV0' } }),
      {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: { digest: { S: 'c2VjcmV0' } } }],
        $metadata: { httpStatusCode: 400 },
      },
    );
    const out = describeError(err);
    expect(Object.keys(out).sort()).toEqual(['message', 'name', 'stack']);
    expect(out.name).toBe('TransactionCanceledException');
    expect(out.message).toBe('transaction cancelled for svc_mcp_v1_[redacted]');
    expect(text(out)).not.toContain(apiKey.slice(11));
    expect(text(out)).not.toContain('c2VjcmV0');
  });

  it('says only the type of a thrown non-error', () => {
    expect(describeError(`oops ${apiKey}`)).toEqual({ name: 'string' });
    expect(describeError({ token: JWT })).toEqual({ name: 'object' });
  });
});
