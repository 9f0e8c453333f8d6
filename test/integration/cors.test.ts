import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CORS_EXPOSE_HEADERS,
  corsDecision,
  isAllowedOrigin,
  localCors,
  parseCorsOrigins,
} from '#infra/local/emulation/cors';

const preflight = (origin: string, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization,content-type',
});

describe('CORS origins setting', () => {
  it('allows any localhost or 127.0.0.1 port over http when CORS_ORIGINS is unset', () => {
    const allowed = parseCorsOrigins(undefined);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://localhost']) {
      expect(isAllowedOrigin(allowed, origin), origin).toBe(true);
    }
    for (const origin of [
      'https://localhost:5173',
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io:5173',
      'http://evil.example',
      'null',
      'http://[::1]:5173',
    ]) {
      expect(isAllowedOrigin(allowed, origin), origin).toBe(false);
    }
  });

  it('allows exactly the listed origins when CORS_ORIGINS is set, normalised like URLs', () => {
    const allowed = parseCorsOrigins(' https://Dashboard.Example.com/ , http://localhost:8080');
    expect(isAllowedOrigin(allowed, 'https://dashboard.example.com')).toBe(true);
    expect(isAllowedOrigin(allowed, 'http://localhost:8080')).toBe(true);
    expect(isAllowedOrigin(allowed, 'http://localhost:5173')).toBe(false);
    expect(isAllowedOrigin(parseCorsOrigins(''), 'http://localhost:5173')).toBe(false);
  });

  it('refuses a setting that is not a list of origins, naming the bad entry', () => {
    expect(() => parseCorsOrigins('dashboard.example.com')).toThrow(
      /"dashboard.example.com" is not an origin/,
    );
    expect(() => parseCorsOrigins('https://a.example.com/app')).toThrow(/scheme:\/\/host/);
    expect(() => parseCorsOrigins('ftp://a.example.com')).toThrow(/is not an origin/);
  });
});

describe('CORS decision', () => {
  const allowed = parseCorsOrigins(undefined);

  it('answers an allowed preflight 204 with the deployed methods, headers and max-age', () => {
    expect(corsDecision(allowed, 'OPTIONS', preflight('http://localhost:5173'))).toEqual({
      kind: 'preflight',
      status: 204,
      refused: false,
      headers: {
        vary: 'origin',
        'access-control-allow-origin': 'http://localhost:5173',
        'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE',
        'access-control-allow-headers': 'authorization,content-type',
        'access-control-max-age': '3600',
      },
    });
  });

  it('answers a foreign preflight 204 without any allow header, so the browser blocks the call', () => {
    const decision = corsDecision(allowed, 'OPTIONS', preflight('http://evil.example'));
    expect(decision).toEqual({ kind: 'preflight', status: 204, refused: true, headers: { vary: 'origin' } });
  });

  it('adds the allowed origin and the exposed headers to an actual request', () => {
    const decision = corsDecision(allowed, 'GET', { origin: 'http://127.0.0.1:5173' });
    expect(decision).toEqual({
      kind: 'actual',
      refused: false,
      headers: {
        vary: 'origin',
        'access-control-allow-origin': 'http://127.0.0.1:5173',
        'access-control-expose-headers': 'location,x-request-id,retry-after,www-authenticate,apigw-requestid',
      },
    });
    expect(CORS_EXPOSE_HEADERS).toContain('www-authenticate'); // the RFC 9470 challenge must be readable
  });

  it('leaves requests without an Origin alone, and routes an OPTIONS that is not a preflight', () => {
    expect(corsDecision(allowed, 'GET', {})).toEqual({ kind: 'none' });
    expect(corsDecision(allowed, 'OPTIONS', { origin: 'http://localhost:5173' }).kind).toBe('actual');
  });
});

describe('the local server hook, over real HTTP', () => {
  let server: Server;
  let base: string;
  const logged: string[] = [];

  beforeAll(async () => {
    const cors = localCors('https://dashboard.example.com', (line) => logged.push(line));
    server = createServer((req, res) => {
      if (cors(req, res)) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"routed":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers a preflight from a configured origin without routing it', async () => {
    const reply = await fetch(`${base}/v1/mcp/api-keys`, {
      method: 'OPTIONS',
      headers: preflight('https://dashboard.example.com', 'DELETE'),
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
    expect(reply.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE');
    expect(await reply.text()).toBe('');
  });

  it('refuses an origin the setting does not list, and logs why once', async () => {
    for (let i = 0; i < 2; i++) {
      const reply = await fetch(`${base}/v1/mcp/api-keys`, {
        method: 'OPTIONS',
        headers: preflight('http://localhost:5173'),
      });
      expect(reply.status).toBe(204);
      expect([...reply.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    expect(logged.filter((l) => l.includes('http://localhost:5173'))).toHaveLength(1);
    expect(logged[0]).toContain('CORS_ORIGINS');
  });

  it('adds the headers to the routed answer of an actual request', async () => {
    const reply = await fetch(`${base}/v1/mcp/api-keys`, {
      headers: { origin: 'https://dashboard.example.com' },
    });
    expect(await reply.json()).toEqual({ routed: true });
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
    expect(reply.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  });
});
