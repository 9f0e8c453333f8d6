import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '#infra/local/emulation/dynamodb-local';
import { DEMO, launchChromium } from '#test/support/key-page';
import { type RunningService, startService } from '#test/support/local-service';
import {
  consentInBrowser as consentInBrowserAs,
  revokeOnKeyPage as revokeOnKeyPageAs,
} from '#test/support/oauth-browser';
import { SecretLedger } from '#test/support/secrets';
import { soakOnly } from '#test/support/soak';

/**
 * Real OAuth clients against `npm start` (contract §15 "Proven"): the official TypeScript SDK
 * client (`auth()` through an `OAuthClientProvider`) and `mcp-remote` (Claude Desktop's bridge)
 * each sign in with no key configured, once registering by DCR and once with a client metadata
 * document served on loopback, Chromium driving the consent page as the person; then they call
 * `list_workspaces`. After the person revokes the grant on the key page, the next call is 401 and
 * the client starts the flow again.
 */
const MCP_REMOTE = fileURLToPath(new URL('../../node_modules/mcp-remote/dist/proxy.js', import.meta.url));

let service: RunningService;
let base: string;
let browser: Browser;
let documents: Server;
let documentsBase: string;
const served = new Map<string, unknown>();
const secrets = new SecretLedger();
let people = 0;

beforeAll(async () => {
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-oauth-clients-')) }),
    launchChromium(),
  ]);
  base = service.url;
  // The apps' client metadata documents, on loopback (local mode accepts http://127.0.0.1 ones).
  documents = createServer((req, res) => {
    const document = served.get(req.url ?? '');
    res.writeHead(document ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(document ?? {}));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  documentsBase = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await new Promise<void>((resolve) => (documents ? documents.close(() => resolve()) : resolve()));
});

const person = () => `oauth-client-${++people}-${Date.now().toString(36)}`;

/** A client metadata document on loopback for an app whose redirect URI is `redirectUri`. */
function metadataDocument(name: string, redirectUri: string): string {
  const path = `/${name.toLowerCase().replace(/[^a-z]+/g, '-')}.json`;
  const clientId = `${documentsBase}${path}`;
  served.set(path, {
    client_id: clientId,
    client_name: name,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  return clientId;
}

const consentInBrowser = (url: string, user: string, app: string, backAt: string) =>
  consentInBrowserAs(browser, base, url, user, app, backAt);
const revokeOnKeyPage = (user: string, app: string) => revokeOnKeyPageAs(browser, base, user, app);

/** An app's token store and browser opener, as an SDK-based app keeps them. */
class AppProvider implements OAuthClientProvider {
  opened: URL[] = [];
  saved: OAuthTokens | undefined;
  information: OAuthClientInformationMixed | undefined;
  private verifier = '';

  constructor(
    readonly redirectUrl: string,
    readonly name: string,
    staticClientId?: string,
  ) {
    if (staticClientId) this.information = { client_id: staticClientId };
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    secrets.add(tokens.access_token);
    if (tokens.refresh_token) secrets.add(tokens.refresh_token);
  }
  redirectToAuthorization(url: URL) {
    this.opened.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
  }
}

/** The app's redirect URI: a loopback server that hands over each code it receives. */
async function callbackServer() {
  const codes: string[] = [];
  const server = createServer((req, res) => {
    const code = new URL(req.url ?? '/', 'http://app').searchParams.get('code');
    if (code) codes.push(code);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>App</title><p>Back in the app.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, codes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const workspacesOf = (result: object) =>
  (
    result as { structuredContent: { workspaces: { workspace_id: string }[] } }
  ).structuredContent.workspaces.map((w) => w.workspace_id);

/** The SDK client signs in (the person approving in Chromium) and calls the tool; returns the connected client. */
async function sdkSignIn(
  provider: AppProvider,
  user: string,
  callback: Awaited<ReturnType<typeof callbackServer>>,
) {
  const url = new URL(`${base}/mcp`);
  const first = new Client({ name: provider.name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.opened.at(-1);
  expect(authorizationUrl?.origin).toBe(base);
  await consentInBrowser(String(authorizationUrl), user, provider.name, provider.redirectUrl);
  const code = callback.codes.at(-1) as string;
  expect(code).toMatch(/^svc_mcp_ac_v1_/);
  await transport.finishAuth(code);
  const client = new Client({ name: provider.name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

describe('the official TypeScript SDK client', () => {
  for (const registration of ['dcr', 'metadata document'] as const) {
    // One registration path each in `npm test` (this one DCR, mcp-remote's the metadata document).
    (registration === 'dcr' ? it : soakOnly)(
      `signs in (${registration}), calls the tool, and after a revocation on the key page starts the flow again`,
      async () => {
        const callback = await callbackServer();
        const name = `SDK app (${registration})`;
        const provider = new AppProvider(
          callback.url,
          name,
          registration === 'dcr' ? undefined : metadataDocument(name, callback.url),
        );
        const user = person();
        try {
          const client = await sdkSignIn(provider, user, callback);
          expect(workspacesOf(await client.callTool({ name: 'list_workspaces', arguments: {} }))).toEqual([
            DEMO.marketing.id,
          ]);
          expect(provider.saved?.access_token).toMatch(/^svc_mcp_at_v1_/);
          if (registration === 'dcr') expect(provider.information?.client_id).toMatch(/^[0-9a-f-]{36}$/);

          await revokeOnKeyPage(user, name);
          const opensBefore = provider.opened.length;
          // The revoked grant's next call is 401; the client refreshes (refused) and opens the sign-in again.
          await expect(client.callTool({ name: 'list_workspaces', arguments: {} })).rejects.toThrow();
          expect(provider.opened.length).toBe(opensBefore + 1);
          expect(provider.opened.at(-1)?.pathname).toBe('/oauth/authorize');
          await client.close();
        } finally {
          await callback.close();
        }
      },
      120_000,
    );
  }
});

/** `mcp-remote` as Claude Desktop starts it for a URL with no key, its browser opener a stub that hands the URL to the test. */
function mcpRemote(callbackPort: number, extra: string[] = []) {
  const home = mkdtempSync(join(tmpdir(), 'svc-mcp-remote-'));
  const bin = join(home, 'bin');
  const openedFile = join(home, 'opened.txt');
  writeFileSync(openedFile, '');
  mkdirSync(bin);
  // Each opener mcp-remote tries on Linux (its bundled \`open\` runs xdg-open; then x-www-browser).
  for (const opener of ['xdg-open', 'x-www-browser']) {
    const stub = join(bin, opener);
    writeFileSync(stub, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${openedFile}'\n`);
    chmodSync(stub, 0o755);
  }
  const child = spawn(process.execPath, [MCP_REMOTE, `${base}/mcp`, String(callbackPort), ...extra], {
    env: {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      MCP_REMOTE_CONFIG_DIR: join(home, 'mcp-auth'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const write = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const until = async (predicate: () => boolean, what: string, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`mcp-remote: no ${what}:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /**
   * The sign-ins mcp-remote started: it prints each authorization URL, then tries to open it (the
   * stub records those it is handed; on a busy machine mcp-remote may take its bundled opener's
   * slow start for a browser and never call the stub, so the printed URLs are what counts).
   */
  const opened = () => [
    ...new Set([
      ...[...output.matchAll(/Please authorize this client by visiting:\s*\n(\S+)/g)].map(
        (m) => m[1] as string,
      ),
      ...readFileSync(openedFile, 'utf8').split('\n').filter(Boolean),
    ]),
  ];
  return {
    write,
    until,
    opened,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'claude-desktop', version: '1' },
  },
};
const CALL = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'list_workspaces', arguments: {} },
});

describe('mcp-remote (Claude Desktop’s bridge)', () => {
  for (const registration of ['dcr', 'metadata document'] as const) {
    (registration === 'metadata document' ? it : soakOnly)(
      `signs in (${registration}) through the consent page in Chromium, calls the tool, and signs in again after a revocation`,
      async () => {
        const port = await freePort();
        const redirect = `http://localhost:${port}/oauth/callback`;
        const name = `mcp-remote (${registration})`;
        const extra =
          registration === 'dcr'
            ? ['--static-oauth-client-metadata', JSON.stringify({ client_name: name })]
            : ['--static-oauth-client-info', JSON.stringify({ client_id: metadataDocument(name, redirect) })];
        const remote = mcpRemote(port, extra);
        const user = person();
        try {
          remote.write(INITIALIZE);
          await remote.until(() => remote.opened().length === 1, 'browser opened');
          const authorizationUrl = remote.opened()[0] as string;
          expect(new URL(authorizationUrl).origin).toBe(base);
          await consentInBrowser(authorizationUrl, user, name, redirect);
          await remote.until(() => remote.output().includes('"id":1,"result"'), 'initialize answer');
          remote.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
          remote.write(CALL(2));
          await remote.until(() => remote.output().includes('"id":2,'), 'tool answer');
          expect(remote.output()).toContain(`{"workspaces":[{"workspace_id":"${DEMO.marketing.id}"`);

          await revokeOnKeyPage(user, name);
          remote.write(CALL(3));
          // The revoked grant's 401 sends mcp-remote to the sign-in again: it opens the browser once more.
          await remote.until(() => remote.opened().length === 2, 'second sign-in');
          expect(new URL(remote.opened()[1] as string).pathname).toBe('/oauth/authorize');
        } finally {
          await remote.stop();
        }
      },
      150_000,
    );
  }
});

describe('what the clients left behind', () => {
  it('no token reached the service log', () => {
    expect(secrets.size).toBeGreaterThan(1);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
