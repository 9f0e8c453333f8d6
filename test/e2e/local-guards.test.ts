import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commandLine,
  OWN_DYNAMODB_LOCAL,
  type RunningService,
  startService,
} from '#test/support/local-service';

/**
 * What the local service checks before any route (contract §5, §8): its own Host only (DNS
 * rebinding), one Authorization header at most, JSON only on /_dev/*, a request id on every
 * response, and a /health that tells the truth about DynamoDB.
 */
let service: RunningService;
let port: number;

beforeAll(async () => {
  service = await startService(
    { DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-guards-')), ...OWN_DYNAMODB_LOCAL },
    ['--in-memory'],
  );
  port = Number(new URL(service.url).port);
});
afterAll(async () => {
  await service?.stop();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

/** Header values; an array sends the header once per value. */
type RawHeaders = Record<string, string | string[] | undefined>;

/** A request with full control of its headers: any Host, repeated headers (array values). */
function raw(method: string, path: string, headers: RawHeaders = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { host: `127.0.0.1:${port}`, ...headers } as OutgoingHttpHeaders,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };

async function token(sub: string): Promise<string> {
  const reply = await raw('POST', '/_dev/token', json, JSON.stringify({ sub, email_verified: true }));
  expect(reply.status).toBe(200);
  return reply.json().token as string;
}

async function memberWithKey(sub: string) {
  const tok = await token(sub);
  const ws = randomUUID();
  expect((await raw('PUT', `/_dev/memberships/${sub}/${ws}`, json, '{"role":"editor"}')).status).toBe(200);
  const created = await raw(
    'POST',
    '/v1/mcp/api-keys',
    { ...json, authorization: `Bearer ${tok}` },
    JSON.stringify({ name: 'k', workspace_ids: [ws], scopes: ['svc.forms.read'] }),
  );
  expect(created.status).toBe(201);
  return { tok, ws, apiKey: created.json().api_key as string };
}

const mcpCall = (authorization: string | string[]) =>
  raw(
    'POST',
    '/mcp',
    { ...json, accept: 'application/json, text/event-stream', authorization },
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workspaces","arguments":{}}}',
  );

describe('Host: only the service’s own address (DNS rebinding)', () => {
  it.each([
    'attacker.example',
    'attacker.example:PORT',
    'rebind.127.0.0.1.nip.io:PORT',
    'localhost.attacker.example:PORT',
    'localhost:1',
    '127.0.0.1',
    '0.0.0.0:PORT',
  ])('refuses Host %s with 403 before any route runs', async (host) => {
    const h = host.replace('PORT', String(port));
    for (const [method, path, body] of [
      ['GET', '/health', undefined],
      ['GET', '/v1/mcp/api-keys', undefined],
      ['POST', '/_dev/token', '{"sub":"mallory","email_verified":true}'],
      ['PUT', `/_dev/memberships/mallory/${randomUUID()}`, '{"role":"owner"}'],
    ] as const) {
      const reply = await raw(method, path, { ...json, host: h }, body);
      expect(reply.status, `${method} ${path} with Host ${h}`).toBe(403);
      expect(reply.text).not.toContain('token');
    }
  });

  it('refuses a request without a Host header', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /health HTTP/1.0\r\n\r\n'));
      let out = '';
      socket.on('data', (d) => {
        out += d.toString();
      });
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.[01] 403/);
  });

  /** The status line of a request written byte for byte (Node's client sends one Host only). */
  const statusOf = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let out = '';
      socket.on('data', (d) => {
        out += d.toString();
        if (out.includes('\r\n')) socket.destroy();
        resolve(out.split('\r\n')[0] ?? '');
      });
      socket.on('error', reject);
    });

  it.each([
    ['own Host first', ['127.0.0.1:PORT', 'attacker.example']],
    ['foreign Host first', ['attacker.example', '127.0.0.1:PORT']],
    ['the same Host twice', ['127.0.0.1:PORT', '127.0.0.1:PORT']],
  ])('answers 400 to two Host headers (%s), on every kind of route', async (_label, hosts) => {
    const lines = hosts.map((h) => `Host: ${h.replace('PORT', String(port))}\r\n`).join('');
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/health'],
      ['GET', '/v1/mcp/api-keys'],
      ['OPTIONS', '/v1/mcp/leaked-keys'],
      ['POST', '/mcp'],
    ]) {
      const cors =
        method === 'OPTIONS'
          ? 'Origin: http://localhost:3000\r\nAccess-Control-Request-Method: POST\r\n'
          : '';
      const status = await statusOf(`${method} ${path} HTTP/1.1\r\n${lines}${cors}Connection: close\r\n\r\n`);
      expect(status, `${method} ${path}`).toMatch(/^HTTP\/1\.1 400 /);
    }
  });

  it.each(['attacker.example:PORT', 'attacker.example'])(
    'refuses a CORS preflight with Host %s with 403 and no allow headers',
    async (host) => {
      for (const path of ['/v1/mcp/leaked-keys', '/v1/mcp/api-keys', '/v1/mcp/secret-scanning/github']) {
        const reply = await raw('OPTIONS', path, {
          host: host.replace('PORT', String(port)),
          origin: 'http://localhost:3000',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        });
        expect(reply.status, path).toBe(403);
        expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
    },
  );

  it('still answers a preflight from an allowed origin with the own Host', async () => {
    const reply = await raw('OPTIONS', '/v1/mcp/leaked-keys', {
      origin: 'http://localhost:3000',
      'access-control-request-method': 'POST',
    });
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-origin']).toBe('http://localhost:3000');
  });

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT'])(
    'serves Host %s',
    async (host) => {
      const reply = await raw('GET', '/health', { host: host.replace('PORT', String(port)) });
      expect(reply.status).toBe(200);
    },
  );
});

describe('/_dev/* takes only JSON', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['no content type', undefined],
  ])('refuses a token request sent as %s with 415', async (_label, contentType) => {
    const reply = await raw(
      'POST',
      '/_dev/token',
      contentType ? { 'content-type': contentType } : {},
      '{"sub":"mallory","email_verified":true}',
    );
    expect(reply.status).toBe(415);
    expect(reply.text).not.toContain('"token"');
  });

  it('refuses a body-less POST without a JSON content type (a no-cors fetch sends one)', async () => {
    expect((await raw('POST', '/_dev/token')).status).toBe(415);
  });

  it('refuses a membership sent as text/plain, and grants nothing', async () => {
    const ws = randomUUID();
    const refused = await raw(
      'PUT',
      `/_dev/memberships/mallory/${ws}`,
      { 'content-type': 'text/plain' },
      '{"role":"owner"}',
    );
    expect(refused.status).toBe(415);
    const tok = await token('mallory');
    const create = await raw(
      'POST',
      '/v1/mcp/api-keys',
      { ...json, authorization: `Bearer ${tok}` },
      JSON.stringify({ name: 'k', workspace_ids: [ws], scopes: ['svc.forms.read'] }),
    );
    expect(create.status).toBe(403);
    expect(create.json().code).toBe('workspace_access_denied');
  });

  it('still serves JSON requests and body-less deletes', async () => {
    const ws = randomUUID();
    expect((await raw('PUT', `/_dev/memberships/zoe/${ws}`, json, '{"role":"viewer"}')).status).toBe(200);
    expect((await raw('DELETE', `/_dev/memberships/zoe/${ws}`)).status).toBe(204);
    expect(
      (
        await raw(
          'POST',
          '/_dev/token',
          { 'content-type': 'application/json; charset=utf-8' },
          '{"sub":"zoe"}',
        )
      ).status,
    ).toBe(200);
  });
});

describe('two Authorization headers are a 401, whichever comes first', () => {
  it('on the management API', async () => {
    const alice = await token('alice');
    const bob = await token('bob');
    for (const pair of [
      [`Bearer ${alice}`, 'Bearer garbage'],
      ['Bearer garbage', `Bearer ${alice}`],
      [`Bearer ${alice}`, `Bearer ${bob}`],
      [`Bearer ${alice}`, `Bearer ${alice}`],
    ]) {
      const reply = await raw('GET', '/v1/mcp/api-keys', { authorization: pair });
      expect(reply.status, pair.map((p) => p.slice(0, 12)).join(' + ')).toBe(401);
      expect(reply.json()).toEqual({ message: 'Unauthorized' });
    }
    // One header still works.
    expect((await raw('GET', '/v1/mcp/api-keys', { authorization: `Bearer ${alice}` })).status).toBe(200);
  });

  it('on /mcp, naming the resource metadata like every other 401 there (OAuth is on)', async () => {
    const { apiKey } = await memberWithKey(`mcp-${randomUUID()}`);
    expect((await mcpCall(`Bearer ${apiKey}`)).status).toBe(200);
    const metadata = `resource_metadata="${service.url}/.well-known/oauth-protected-resource/mcp"`;
    expect((await mcpCall('Bearer svc_mcp_v1_garbage')).headers['www-authenticate']).toContain(metadata);
    for (const pair of [
      [`Bearer ${apiKey}`, 'Bearer svc_mcp_v1_garbage'],
      ['Bearer svc_mcp_v1_garbage', `Bearer ${apiKey}`],
      [`Bearer ${apiKey}`, `Bearer ${apiKey}`],
    ]) {
      const reply = await mcpCall(pair);
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toContain(metadata);
    }
  });
});

describe('every response carries apigw-requestid', () => {
  it('success, gateway refusals, handler errors, dev routes and guard refusals alike', async () => {
    const { tok } = await memberWithKey(`rid-${randomUUID()}`);
    const answers: [string, Answer][] = [
      ['health', await raw('GET', '/health')],
      ['openapi', await raw('GET', '/openapi.json')],
      ['jwks', await raw('GET', '/.well-known/jwks.json')],
      ['unknown route', await raw('GET', '/nope')],
      ['gateway 401 (no token)', await raw('GET', '/v1/mcp/api-keys')],
      ['gateway 401 (bad token)', await raw('GET', '/v1/mcp/api-keys', { authorization: 'Bearer x' })],
      ['/mcp without a key', await raw('POST', '/mcp', json, '{}')],
      ['/mcp with a bad key', await mcpCall('Bearer svc_mcp_v1_garbage')],
      ['list', await raw('GET', '/v1/mcp/api-keys', { authorization: `Bearer ${tok}` })],
      [
        'handler 400',
        await raw('POST', '/v1/mcp/api-keys', { ...json, authorization: `Bearer ${tok}` }, '{"name":""}'),
      ],
      ['dev token', await raw('POST', '/_dev/token', json, '{"sub":"x"}')],
      ['dev 415', await raw('POST', '/_dev/token', { 'content-type': 'text/plain' }, '{}')],
      ['Host refused', await raw('GET', '/health', { host: 'attacker.example' })],
      ['two Authorization headers', await raw('GET', '/v1/mcp/api-keys', { authorization: ['a', 'b'] })],
    ];
    const ids = new Set<string>();
    for (const [label, answer] of answers) {
      const id = answer.headers['apigw-requestid'];
      expect(typeof id === 'string' && id.length > 0, label).toBe(true);
      ids.add(id as string);
    }
    expect(ids.size).toBe(answers.length);
  });

  it('is the request id the handler saw (x-request-id and the problem body)', async () => {
    const { tok } = await memberWithKey(`rid-${randomUUID()}`);
    const reply = await raw('POST', '/v1/mcp/api-keys', { ...json, authorization: `Bearer ${tok}` }, '{}');
    expect(reply.status).toBe(400);
    expect(reply.headers['x-request-id']).toBe(reply.headers['apigw-requestid']);
    expect(reply.json().request_id).toBe(reply.headers['apigw-requestid']);
  });
});

describe('/health tells the truth about DynamoDB', () => {
  it('answers 503 while DynamoDB Local does not answer, and 200 again once it does', async () => {
    expect((await raw('GET', '/health')).status).toBe(200);
    const jvms = service.dynamoDbLocal();
    expect(jvms.length).toBeGreaterThan(0);
    // Freeze DynamoDB Local (a child of the service this test started): it accepts connections
    // but answers nothing, the way a hung or overloaded database behaves.
    for (const pid of jvms) process.kill(pid, 'SIGSTOP');
    try {
      const down = await raw('GET', '/health');
      expect(down.status).toBe(503);
      expect(down.headers['retry-after']).toBeDefined();
      expect(down.json()).toMatchObject({ status: 'unavailable' });
      expect((await raw('GET', '/health')).status).toBe(503);
    } finally {
      for (const pid of jvms) process.kill(pid, 'SIGCONT');
    }
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await raw('GET', '/health')).status;
    }
    expect(status).toBe(200);
  });
});

describe('the service’s DynamoDB Local', () => {
  it('shows its tables to no other credentials, from loopback or the machine’s other addresses', async () => {
    // DynamoDB Local's port, from the command line of the JVM the service started.
    const ports = service
      .dynamoDbLocal()
      .map(commandLine)
      .map((args) => args[args.indexOf('-port') + 1])
      .filter((p): p is string => p !== undefined);
    expect(ports).toHaveLength(1);
    const hosts = [
      '127.0.0.1',
      ...Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && a.family === 'IPv4')
        .map((a) => a?.address as string),
    ];
    let answered = 0;
    for (const host of hosts) {
      for (const accessKeyId of ['local', 'AKIAIOSFODNN7EXAMPLE', 'x']) {
        const probe = new DynamoDBClient({
          region: 'us-east-1',
          endpoint: `http://${host}:${ports[0]}`,
          credentials: { accessKeyId, secretAccessKey: 'x' },
          maxAttempts: 1,
        });
        try {
          const names = (await probe.send(new ListTablesCommand({}))).TableNames ?? [];
          answered++;
          expect(names, `${host} as ${accessKeyId}`).toEqual([]);
        } catch (err) {
          // Not reachable from that address is private too.
          expect((err as NodeJS.ErrnoException).code, String(err)).toMatch(
            /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH/,
          );
        } finally {
          probe.destroy();
        }
      }
    }
    expect(answered).toBeGreaterThanOrEqual(3);
  });
});
