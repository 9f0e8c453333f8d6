import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { freePort } from '#infra/local/emulation/dynamodb-local';
import { createMcpKeyGuard } from '#lib/integrations/guard';
import { scopeChallenge } from '#lib/integrations/mcp-sdk';
import { createMcpKeyVerifier, type McpKeyVerifierOptions } from '#lib/verifier';
import { DEMO, devToken, KeyPage, launchChromium } from '#test/support/key-page';
import { type RunningService, startService } from '#test/support/local-service';
import { consentInBrowser } from '#test/support/oauth-browser';
import { SecretLedger } from '#test/support/secrets';

/**
 * Scope step-up with the real SDK v2 client (contract §15 revised in turn 5, SEP-2350): an MCP
 * server team's SDK v2 server, verifying in-process against `npm start` with a tool protected by
 * `scopeChallenge('svc.forms.write')`; the official `@modelcontextprotocol/client` signs in for
 * read (the person approving in Chromium), calls the write tool, gets 403 `insufficient_scope`,
 * and its own auth provider sends the person to sign in again: the consent page shows only the
 * added scope, approving widens the grant, and the call then succeeds, on the same one grant.
 */
let service: RunningService;
let base: string;
let browser: Browser;
let mcp: ReturnType<typeof serve>;
let resource: string;
const secrets = new SecretLedger();

/** An SDK v2 MCP server at `port` whose write tool needs svc.forms.write, behind the key guard. */
function mcpServerAt(port: number, options: McpKeyVerifierOptions) {
  const verifier = createMcpKeyVerifier({ ...options, resource });
  const guard = createMcpKeyGuard(verifier, { resource, authorizationServers: [base] });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'forms', version: '1.0.0' });
      server.registerTool(
        'whoami',
        { description: 'Who calls.', inputSchema: z.object({}) },
        async (_args, ctx) => ({
          content: [{ type: 'text', text: JSON.stringify(ctx.http?.authInfo?.scopes ?? []) }],
        }),
      );
      server.registerTool(
        'submit_form',
        {
          description: 'Submit a form.',
          inputSchema: z.object({}),
          scopeChallenge: scopeChallenge('svc.forms.write'),
        },
        async () => ({ content: [{ type: 'text', text: 'submitted' }] }),
      );
      return server;
    },
    { responseMode: 'auto' },
  );
  return serve({
    port,
    hostname: '127.0.0.1',
    fetch: async (request: Request) => {
      const checked = await guard(request);
      if (!checked.ok) return checked.response;
      return handler.fetch(request, { authInfo: checked.auth });
    },
  });
}

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-step-up-')), OAUTH_RESOURCES: resource }),
    launchChromium(),
  ]);
  base = service.url;
  const options = (await (await fetch(`${base}/_dev/verifier`)).json()) as McpKeyVerifierOptions;
  mcp = mcpServerAt(port, options);
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (mcp ? mcp.close(() => resolve()) : resolve()));
  await browser?.close();
  await service?.stop();
});

/** The app's redirect URI: a loopback server that keeps each callback's query. */
async function callbackServer() {
  const queries: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://app');
    if (target.pathname === '/callback') queries.push(target.searchParams);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>App</title><p>Back in the app.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, queries, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The app's token store and browser opener, as an app on the SDK v2 client keeps them. */
function appProvider(redirectUrl: string, name: string) {
  const opened: URL[] = [];
  let tokens: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
  let information: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  let verifier = '';
  const provider: OAuthClientProvider = {
    redirectUrl,
    get clientMetadata() {
      return {
        client_name: name,
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => information,
    saveClientInformation: (saved) => {
      information = saved;
    },
    tokens: () => tokens,
    saveTokens: (saved) => {
      tokens = saved;
      secrets.add(saved.access_token);
      if (saved.refresh_token) secrets.add(saved.refresh_token);
    },
    redirectToAuthorization: (url) => {
      opened.push(url);
    },
    saveCodeVerifier: (saved) => {
      verifier = saved;
    },
    codeVerifier: () => verifier,
  };
  return { provider, opened, tokens: () => tokens };
}

/**
 * The person approves the step-up on the consent page: only the added scope is asked, and checked;
 * the workspace the app reaches is ticked and fixed, and they add another (issue 59 item 2).
 */
async function approveStepUp(authorizationUrl: URL, user: string, app: string, backAt: string) {
  const kp = await KeyPage.open(browser, base);
  try {
    await kp.page.goto(String(authorizationUrl));
    await kp.page.getByLabel('User id').fill(user);
    await kp.page.getByRole('button', { name: 'Sign in' }).click();
    const consent = kp.page.getByRole('region', { name: `Allow “${app}” to do more?` });
    await consent.waitFor();
    await consent.getByText('is already connected to Acme Marketing, where it may read.').waitFor();
    const connected = consent.getByRole('checkbox', { name: /Acme Marketing/ });
    expect([await connected.isChecked(), await connected.isDisabled()]).toEqual([true, true]);
    await expect.poll(() => connected.locator('xpath=..').textContent()).toContain('(connected)');
    const research = consent.getByRole('checkbox', { name: /Acme Research/ });
    expect(await research.isChecked()).toBe(false);
    await research.check();
    await expect.poll(() => research.locator('xpath=..').textContent()).toContain('(new)');
    expect(await consent.getByRole('checkbox', { name: /Write/ }).isChecked()).toBe(true);
    await kp.expectAccessible('consent, step-up');
    await consent.getByRole('button', { name: 'Approve' }).click();
    await kp.page.waitForURL((url) => url.href.startsWith(backAt));
    await kp.expectNoLeaks();
  } finally {
    await kp.close();
  }
}

describe('scope step-up with the MCP SDK v2 client', () => {
  it('a read-only token calls a write tool: the client re-authorizes for the added scope, the person adds a workspace, the grant is widened, the call succeeds', async () => {
    const callback = await callbackServer();
    const name = 'Forms assistant';
    const user = `step-up-${Date.now().toString(36)}`;
    const app = appProvider(callback.url, name);
    const url = new URL(resource);
    try {
      const first = new Client({ name, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(url, { authProvider: app.provider });
      await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
      const signIn = app.opened.at(-1) as URL;
      expect(signIn.origin).toBe(base);
      expect(signIn.searchParams.get('scope')).toBe('svc.forms.read');
      await consentInBrowser(browser, base, String(signIn), user, name, callback.url);
      await transport.finishAuth(callback.queries.at(-1) as URLSearchParams);

      const client = new Client({ name, version: '1.0.0' });
      const session = new StreamableHTTPClientTransport(url, { authProvider: app.provider });
      await client.connect(session);
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.content).toEqual([{ type: 'text', text: '["svc.forms.read"]' }]);

      // The write tool: 403 insufficient_scope; the client's provider opens the sign-in for the union.
      const opens = app.opened.length;
      await expect(client.callTool({ name: 'submit_form', arguments: {} })).rejects.toThrow();
      expect(app.opened.length).toBe(opens + 1);
      const stepUp = app.opened.at(-1) as URL;
      expect(stepUp.searchParams.get('scope')?.split(' ').sort()).toEqual([
        'svc.forms.read',
        'svc.forms.write',
      ]);
      await approveStepUp(stepUp, user, name, callback.url);
      await session.finishAuth(callback.queries.at(-1) as URLSearchParams);

      expect(await client.callTool({ name: 'submit_form', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'submitted' }],
      });
      expect(app.tokens()?.scope).toBe('svc.forms.read svc.forms.write');

      // One grant, widened: grant.updated in its history.
      const token = await devToken(base, user);
      const listed = (await (
        await fetch(`${base}/v1/mcp/api-keys?limit=50`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        data: { id: string; kind: string; status: string; scopes: string[]; workspace_ids: string[] }[];
      };
      const grants = listed.data.filter((c) => c.kind === 'oauth_grant');
      expect(grants).toHaveLength(1);
      expect(grants[0]).toMatchObject({
        status: 'active',
        scopes: ['svc.forms.read', 'svc.forms.write'],
        workspace_ids: [DEMO.marketing.id, DEMO.research.id],
      });
      const history = (await (
        await fetch(`${base}/v1/mcp/api-keys/${grants[0]?.id}/events?limit=10`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { data: { type: string; details: unknown }[] };
      expect(history.data.map((e) => [e.type, e.details])).toContainEqual([
        'grant.updated',
        { scopes_added: ['svc.forms.write'], workspace_ids_added: [DEMO.research.id] },
      ]);
      await client.close();
    } finally {
      await callback.close();
    }
  }, 180_000);

  it('no token reached the service log', () => {
    expect(secrets.size).toBeGreaterThan(1);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
