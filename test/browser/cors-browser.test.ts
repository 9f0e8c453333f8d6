import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY } from '#test/support/key-page';
import { useKeyPageService, WORKSPACE } from '#test/support/key-page-suite';

/**
 * CORS in local mode: the preflights and answers a dashboard on another local origin gets, and in
 * Chromium a page on another origin that embeds the key page's element and calls the API, beside
 * one on a foreign origin that the browser blocks.
 */
const shared = useKeyPageService('CORS browser tests');
let base: string;
let context: BrowserContext;
beforeAll(async () => {
  base = shared.base;
  context = await shared.browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
});

describe('CORS in local mode', () => {
  const preflight = (origin: string) =>
    fetch(`${base}/v1/mcp/api-keys`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });

  it('answers a preflight from a local dashboard with the deployed methods, headers and max-age', async () => {
    const reply = await preflight('http://localhost:5173');
    expect(reply.status).toBe(204);
    expect(Object.fromEntries([...reply.headers].filter(([h]) => h.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': 'http://localhost:5173',
      'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE',
      'access-control-allow-headers': 'authorization,content-type',
      'access-control-max-age': '3600',
    });
  });

  it('gives a foreign origin no allow header, on the preflight and on the answer', async () => {
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(204);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const answer = await fetch(`${base}/v1/mcp/api-keys`, { headers: { origin: 'https://evil.example' } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('exposes the headers a dashboard reads, on the gateway’s own 401 too', async () => {
    const reply = await fetch(`${base}/v1/mcp/api-keys`, { headers: { origin: 'http://127.0.0.1:5173' } });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
    expect(reply.headers.get('access-control-expose-headers')).toBe(
      'location,x-request-id,retry-after,www-authenticate,apigw-requestid',
    );
  });

  describe('from another local origin, in the browser', () => {
    const servers: Server[] = [];
    /** A page on another origin that embeds the element from the service, as a dashboard would. */
    const dashboard = (user: string) => `<!doctype html><html lang="en"><head><title>Dashboard</title>
      <script type="module" src="${base}/assets/svc-mcp-api-keys.js"></script></head>
      <body><main><h1>Another dashboard</h1><svc-mcp-api-keys base-url="${base}"></svc-mcp-api-keys></main>
      <script type="module">
        const api = (path, init) => fetch('${base}' + path, init);
        const json = { 'content-type': 'application/json' };
        const mint = async (age) => (await (await api('/_dev/token', { method: 'POST', headers: json,
          body: JSON.stringify({ sub: '${user}', auth_age_seconds: age }) })).json()).token;
        const token = await mint(0);
        await customElements.whenDefined('svc-mcp-api-keys');
        document.querySelector('svc-mcp-api-keys').getToken = () => token;
        // What a dashboard reads from an error across origins: the RFC 9470 challenge and the request id.
        const stale = await mint(3600);
        const reply = await api('/v1/mcp/api-keys', { method: 'POST',
          headers: { ...json, authorization: 'Bearer ' + stale },
          body: JSON.stringify({ name: 'x', workspace_ids: ['${WORKSPACE}'], scopes: ['svc.forms.read'] }) });
        window.probe = { status: reply.status, challenge: reply.headers.get('www-authenticate'),
          requestId: reply.headers.get('x-request-id') };
      </script></body></html>`;
    const foreign =
      () => `<!doctype html><html lang="en"><head><title>Elsewhere</title></head><body><main><h1>Elsewhere</h1>
      <script type="module">
        window.probe = await fetch('${base}/_dev/token', { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sub: 'mallory' }) }).then((r) => 'answered ' + r.status, (e) => e.name);
      </script></main></body></html>`;

    async function serve(host: string, html: string): Promise<string> {
      const server = createServer((req, res) => {
        res.writeHead(req.url === '/' ? 200 : 204, { 'content-type': 'text/html; charset=utf-8' });
        res.end(req.url === '/' ? html : '');
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      return `http://${host}:${(server.address() as AddressInfo).port}/`;
    }
    const probe = (p: Page) =>
      p
        .waitForFunction(() => (globalThis as unknown as { probe?: unknown }).probe)
        .then((h) => h.jsonValue());

    afterAll(async () => {
      for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('lets a dashboard on http://127.0.0.1:<other port> embed the element and call the API', async () => {
      const other = await context.newPage();
      const errors: string[] = [];
      other.on(
        'console',
        (m) => m.type() === 'error' && !m.text().includes('status of 401') && errors.push(m.text()),
      );
      // Dev memberships use PUT, which the deployed CORS does not allow: set them up server-side.
      const member = await fetch(`${base}/_dev/memberships/fran/${WORKSPACE}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'editor' }),
      });
      expect(member.status).toBe(200);
      await other.goto(await serve('127.0.0.1', dashboard('fran')));
      expect(await probe(other)).toEqual({
        status: 401,
        challenge: 'Bearer error="insufficient_user_authentication", max_age="900"',
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      await other.getByText('No keys yet').waitFor();
      const created = await fillCreateOn(other, 'From another origin');
      expect(created).toMatch(KEY);
      await other.getByRole('row', { name: /From another origin/ }).waitFor();
      expect(errors).toEqual([]);
      await other.close();
    });

    it('blocks a page on a foreign origin (http://127.0.0.2:<port>)', async () => {
      const other = await context.newPage();
      const errors: string[] = [];
      other.on('console', (m) => errors.push(m.text()));
      await other.goto(await serve('127.0.0.2', foreign()));
      expect(await probe(other)).toBe('TypeError');
      expect(errors.join('\n')).toMatch(/blocked by CORS policy/);
      await other.close();
    });
  });
});

async function fillCreateOn(other: Page, name: string): Promise<string> {
  await other.getByRole('button', { name: 'Create key', exact: true }).click();
  const dialog: Locator = other.getByRole('dialog', { name: 'Create an MCP API key' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Workspace IDs').fill(WORKSPACE);
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const shown = other.getByRole('dialog', { name: 'Copy your new key' });
  const apiKey = await shown.getByLabel(/^MCP API key/).inputValue();
  await shown.getByRole('button', { name: 'Done' }).click();
  return apiKey;
}
