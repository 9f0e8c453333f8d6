import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { type Handlers, makeHandlers } from '#lib/handlers/index';
import { generateKey } from '#lib/keys/format';
import { listKeyEvents } from '#lib/keys/history';
import { revokeKey } from '#lib/keys/lifecycle';
import { GITHUB_LIMITS, LEAK_LIMITS } from '#lib/limits';
import type { Runtime } from '#lib/runtime';
import { countCommands } from '#test/support/count';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';
import { captureOutput } from '#test/support/logs';
import { recordAnswer } from '#test/support/route-codes';
import { SecretLedger } from '#test/support/secrets';

/**
 * Leak response (contract §11) against DynamoDB Local: whoever holds a key may kill it, and
 * nothing in the answer says whether a string was a key.
 */
let tables: TestTables;
let rt: Runtime;
let handlers: Handlers;
const output = captureOutput();
const secrets = new SecretLedger();
const github = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    keyIdentifier: 'test-github-key',
    published: () => [
      {
        key_identifier: 'test-github-key',
        key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      },
    ],
    sign: (body: Buffer) => sign('sha256', body, privateKey).toString('base64'),
  };
})();

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  handlers = makeHandlers(rt, { githubKeys: async () => github.published() });
});
afterAll(async () => {
  output.restore();
  await tables.drop();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  raw: string;
  body: unknown;
}

async function post(
  name: 'report-leaked-keys' | 'github-secret-scanning',
  raw: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const path = name === 'report-leaked-keys' ? '/v1/mcp/leaked-keys' : '/v1/mcp/secret-scanning/github';
  const event = httpApiEvent({
    method: 'POST',
    routeKey: `POST ${path}`,
    rawPath: path,
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
  });
  const out = (await handlers[name](event, lambdaContext(name))) as APIGatewayProxyStructuredResultV2;
  const text = out.body ?? '';
  const body = text ? JSON.parse(text) : undefined;
  recordAnswer('POST', path, out.statusCode ?? 200, body);
  return {
    status: out.statusCode ?? 200,
    headers: Object.fromEntries(Object.entries(out.headers ?? {}).map(([k, v]) => [k, String(v)])),
    raw: text,
    body,
  };
}

const report = (keys: string[], source?: string) =>
  post('report-leaked-keys', JSON.stringify({ keys, ...(source && { source }) }));

async function activeKey() {
  const issued = await issueKey(tables, rt.service);
  secrets.add(issued.apiKey, (await rt.service.keys.get(issued.id))?.digest);
  return issued;
}

/** A key with a real id but the wrong secret: parses, then fails the digest. */
const wrongSecret = (apiKey: string) => {
  const forged = generateKey().apiKey;
  return apiKey.slice(0, 33) + forged.slice(33);
};

describe('POST /v1/mcp/leaked-keys', () => {
  it('revokes exactly the genuine active keys of a mixed batch, with key.leak_revoked by public_report', async () => {
    const [a, b, untouched] = [await activeKey(), await activeKey(), await activeKey()];
    const reply = await report(
      [a.apiKey, 'not a key', b.apiKey, wrongSecret(untouched.apiKey), generateKey().apiKey],
      'https://pastebin.example.com/abc',
    );
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ received: 5 });
    for (const k of [a, b]) {
      expect((await rt.verify(k.apiKey)).outcome).toBe('revoked');
      const history = await listKeyEvents(rt.service, { userId: k.userId, keyId: k.id, limit: 10 });
      expect(history.data[0]).toMatchObject({
        type: 'key.leak_revoked',
        key_id: k.id,
        actor: { type: 'public_report', id: null },
        details: { source: 'https://pastebin.example.com/abc' },
      });
    }
    expect((await rt.verify(untouched.apiKey)).outcome).toBe('valid');
  });

  it('answers byte for byte the same for real, garbage, mixed and already revoked batches', async () => {
    const real = [await activeKey(), await activeKey()];
    const revoked = await activeKey();
    await revokeKey(rt.service, revoked.userId, revoked.id);
    const batches = {
      real: real.map((k) => k.apiKey),
      garbage: ['x', generateKey().apiKey],
      mixed: [(await activeKey()).apiKey, 'svc_mcp_v1_short'],
      revoked: [revoked.apiKey, wrongSecret(revoked.apiKey)],
    };
    const answers = await Promise.all(Object.values(batches).map((keys) => report(keys)));
    for (const a of answers) {
      expect(a.status).toBe(202);
      expect(a.raw).toBe('{"received":2}');
      expect(Object.keys(a.headers).sort()).toEqual(Object.keys(answers[0]?.headers ?? {}).sort());
    }
  });

  it('writes nothing for an already revoked key and revokes a key once when reported twice', async () => {
    const k = await activeKey();
    await report([k.apiKey]);
    await report([k.apiKey]);
    const history = await listKeyEvents(rt.service, { userId: k.userId, keyId: k.id, limit: 10 });
    expect(history.data.map((e) => e.type)).toEqual(['key.leak_revoked', 'key.created']);
  });

  it.each([
    ['not JSON', '{', 400, 'invalid_json'],
    ['no keys', '{"keys":[]}', 400, 'validation_failed'],
    [
      '101 strings',
      JSON.stringify({ keys: Array.from({ length: 101 }, () => 'x') }),
      400,
      'validation_failed',
    ],
    ['a source that is not a URL', '{"keys":["x"],"source":"javascript:alert(1)"}', 400, 'validation_failed'],
    ['unknown fields', '{"keys":["x"],"extra":1}', 400, 'validation_failed'],
    [
      'over 64 KiB',
      JSON.stringify({ keys: ['x'.repeat(1000)], pad: 'x'.repeat(66_000) }),
      413,
      'payload_too_large',
    ],
  ])('refuses %s with a problem and changes nothing', async (_label, raw, status, code) => {
    const reply = await post('report-leaked-keys', raw);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/problem+json');
    expect(reply.body).toMatchObject({ code });
  });
});

describe('POST /v1/mcp/secret-scanning/github', () => {
  const matches = (tokens: string[]) =>
    Buffer.from(
      // GitHub's own spacing: a signature over a re-serialisation would not match these bytes.
      `[${tokens.map((t) => `{"token":"${t}", "type":"svc_mcp_api_key", "url":"https://github.com/o/r/blob/main/.env", "source":"content"}`).join(',')}]`,
    );
  const signed = (body: Buffer, signature = github.sign(body), keyIdentifier = github.keyIdentifier) =>
    post('github-secret-scanning', body.toString(), {
      'github-public-key-identifier': keyIdentifier,
      'github-public-key-signature': signature,
    });

  it('revokes true positives, labels every match by its hash, and never echoes a token', async () => {
    const k = await activeKey();
    const garbage = `svc_mcp_v1_${'A'.repeat(71)}`;
    const reply = await signed(matches([k.apiKey, garbage]));
    expect(reply.status).toBe(200);
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    expect(reply.body).toEqual([
      { token_hash: sha(k.apiKey), token_type: 'svc_mcp_api_key', label: 'true_positive' },
      { token_hash: sha(garbage), token_type: 'svc_mcp_api_key', label: 'false_positive' },
    ]);
    expect(reply.raw).not.toContain(k.apiKey.slice(11));
    expect((await rt.verify(k.apiKey)).outcome).toBe('revoked');
    const history = await listKeyEvents(rt.service, { userId: k.userId, keyId: k.id, limit: 10 });
    expect(history.data[0]).toMatchObject({
      type: 'key.leak_revoked',
      actor: { type: 'github_secret_scanning', id: null },
      details: { source: 'https://github.com/o/r/blob/main/.env' },
    });
  });

  it('is idempotent: a second report still says true_positive and writes no second event', async () => {
    const k = await activeKey();
    const body = matches([k.apiKey]);
    await signed(body);
    const again = await signed(body);
    expect(again.status).toBe(200);
    expect((again.body as { label: string }[])[0]?.label).toBe('true_positive');
    const history = await listKeyEvents(rt.service, { userId: k.userId, keyId: k.id, limit: 10 });
    expect(history.data.filter((e) => e.type === 'key.leak_revoked')).toHaveLength(1);
  });

  it.each([
    [
      'a body changed after signing',
      (b: Buffer) => ({ body: Buffer.from(b.toString().replace('o/r', 'o/x')) }),
    ],
    ['an unknown key identifier', () => ({ keyIdentifier: `unknown-${randomUUID()}` })],
    [
      'a signature over the parsed and re-serialised JSON',
      (b: Buffer) => ({
        signature: github.sign(Buffer.from(JSON.stringify(JSON.parse(b.toString())))),
      }),
    ],
    ['a signature that is not DER', () => ({ signature: 'bm90IGEgc2lnbmF0dXJl' })],
  ])('refuses %s with 401 problem+json and revokes nothing', async (_label, tamper) => {
    const k = await activeKey();
    const body = matches([k.apiKey]);
    const t = tamper(body) as { body?: Buffer; signature?: string; keyIdentifier?: string };
    const reply = await signed(t.body ?? body, t.signature ?? github.sign(body), t.keyIdentifier);
    expect(reply.status).toBe(401);
    expect(reply.headers['content-type']).toBe('application/problem+json');
    expect(reply.body).toMatchObject({ code: 'invalid_signature' });
    expect((await rt.verify(k.apiKey)).outcome).toBe('valid');
  });

  it('answers a signed batch of 1,000 matches (10 real keys): revokes the 10, labels all, in 10 batch reads', async () => {
    const real = await Promise.all(Array.from({ length: 10 }, () => activeKey()));
    const tokens = Array.from({ length: 1000 }, () => generateKey().apiKey);
    real.forEach((k, i) => {
      tokens[i * 97 + 13] = k.apiKey;
    });
    const body = matches(tokens);
    expect(body.length).toBeGreaterThan(LEAK_LIMITS.maxBodyBytes);
    const calls = countCommands(tables.doc);
    try {
      const reply = await signed(body);
      expect(reply.status).toBe(200);
      const labels = reply.body as { token_hash: string; label: string }[];
      expect(labels).toHaveLength(1000);
      const sha = (t: string) => createHash('sha256').update(t).digest('hex');
      expect(labels.map((l) => l.token_hash)).toEqual(tokens.map(sha));
      const truePositives = labels.flatMap((l, i) => (l.label === 'true_positive' ? [i] : []));
      expect(truePositives).toEqual(real.map((_, i) => i * 97 + 13));
      // 1,000 ids at DynamoDB's 100 keys per BatchGetItem; no read one key at a time.
      expect(calls.of('BatchGetItem')).toBe(10);
      expect(calls.of('GetItem')).toBe(0);
      expect(calls.of('TransactWriteItems')).toBe(10);
    } finally {
      calls.remove();
    }
    for (const k of real) expect((await rt.verify(k.apiKey)).outcome).toBe('revoked');
  });

  it('revokes a key reported twice in one batch once, and labels both matches true_positive', async () => {
    const k = await activeKey();
    const reply = await signed(matches([k.apiKey, 'x', k.apiKey]));
    expect((reply.body as { label: string }[]).map((l) => l.label)).toEqual([
      'true_positive',
      'false_positive',
      'true_positive',
    ]);
    const history = await listKeyEvents(rt.service, { userId: k.userId, keyId: k.id, limit: 10 });
    expect(history.data.map((e) => e.type)).toEqual(['key.leak_revoked', 'key.created']);
  });

  it.each([
    [
      `${GITHUB_LIMITS.maxMatches + 1} matches`,
      () => matches(Array.from({ length: GITHUB_LIMITS.maxMatches + 1 }, () => 'x')),
      400,
      'validation_failed',
    ],
    [
      'a body over 2 MiB',
      () => Buffer.from(`[{"token":"x","url":"${'u'.repeat(GITHUB_LIMITS.maxBodyBytes)}"}]`),
      413,
      'payload_too_large',
    ],
  ])('refuses a signed report of %s and revokes nothing', async (_label, make, status, code) => {
    const reply = await signed(make());
    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ code });
  });

  it('refuses a request without the signature headers', async () => {
    const k = await activeKey();
    const reply = await post('github-secret-scanning', matches([k.apiKey]).toString());
    expect(reply.status).toBe(401);
    expect((await rt.verify(k.apiKey)).outcome).toBe('valid');
  });
});

describe('secrets', () => {
  it('no reported key or digest reaches a log line', () => {
    expect(secrets.size).toBeGreaterThan(5);
    expect(output.text()).toContain('leak report');
    expect(secrets.leaksIn(output.text())).toEqual([]);
  });
});
