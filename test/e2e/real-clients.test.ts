import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '#lib/keys/format';
import { mcpDenial } from '#lib/mcp/denial';
import { registrationDescription } from '#lib/mcp/registration';
import {
  devMember,
  jsonClient,
  presentKey,
  type RunningService,
  startService,
} from '#test/support/local-service';
import { assertTerminal, personEnv, runInspector, runProgram } from '#test/support/person-programs';
import { SecretLedger } from '#test/support/secrets';
import { mcpClientConfigs } from '../../web/client/mcp-clients.ts';

/**
 * What a person sees in the MCP clients people run, against `npm start`'s service: the MCP
 * Inspector CLI in a terminal, and mcp-remote (Claude Desktop's bridge to a remote server) driven
 * through its stdio side with exactly the Claude Desktop configuration the key page generates.
 * Both speak OAuth: a refused key sends them to the registration fallback, whose answer they show.
 * The service runs as a deployment without OAuth (`OAUTH=off`, contract §7's turn-3 answers): with
 * OAuth on, the same clients would start the sign-in flow instead.
 */

/** A deployment without an OAuth authorization server (contract §15 "When it is on"). */
const WITHOUT_OAUTH = { OAUTH: 'off' };
/** Usage counts written at the next verification, not a minute later (local mode only). */
const USAGE_NOW = { LOCAL_USAGE_WRITE_SECONDS: '0' };

const modules = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
const MCP_REMOTE = modules('mcp-remote/dist/proxy.js');
const DAY_SECONDS = 86_400;
const NO_ACCESS = JSON.parse(mcpDenial({ outcome: 'no_access' }).body).error.message as string;

const dataDir = mkdtempSync(join(tmpdir(), 'svc-real-clients-'));
const home = mkdtempSync(join(tmpdir(), 'svc-real-clients-home-'));
let service: RunningService;
let base: string;
const secrets = new SecretLedger();
const call = jsonClient(() => base);
/** The sentence each client shows after its key was refused and it tried to register. */
const refusal = () => registrationDescription(`${base}/`);

beforeAll(async () => {
  assertTerminal();
  service = await startService({ DATA_DIR: dataDir, ...WITHOUT_OAUTH, ...USAGE_NOW });
  base = service.url;
});
afterAll(async () => {
  await service?.stop();
});

/** A user who is an editor of one workspace, with a key for it. */
async function member(expiresInDays?: number) {
  const sub = `user-${randomUUID()}`;
  const { token, workspaceId: ws } = await devMember(call, sub);
  const created = await call('POST', '/v1/mcp/api-keys', {
    token,
    body: {
      name: 'laptop',
      workspace_ids: [ws],
      scopes: ['svc.forms.read'],
      expires_in_days: expiresInDays ?? 30,
    },
  });
  expect(created.status).toBe(201);
  secrets.add(token, created.json.api_key);
  return { sub, token, ws, id: created.json.metadata.id as string, apiKey: created.json.api_key as string };
}

/** Another key of the same member, for the same workspace. */
async function keyFor(token: string, ws: string) {
  const created = await call('POST', '/v1/mcp/api-keys', {
    token,
    body: { name: 'old script', workspace_ids: [ws], scopes: ['svc.forms.read'] },
  });
  expect(created.status).toBe(201);
  secrets.add(created.json.api_key);
  return { id: created.json.metadata.id as string, apiKey: created.json.api_key as string };
}

/** `mcp-inspector --cli` in a terminal, calling the tool with the key as header. */
const inspector = (apiKey: string) =>
  runInspector(`${base}/mcp`, apiKey, ['--method', 'tools/call', '--tool-name', 'list_workspaces']);

/**
 * Claude Desktop's part: starts the server exactly as the generated claude_desktop_config.json
 * says (`npx -y mcp-remote` replaced by the installed bin), initializes over stdio and calls the tool.
 */
function claudeDesktop(apiKey: string) {
  const desktop = mcpClientConfigs({ url: `${base}/mcp`, apiKey }).find((c) => c.id === 'claude-desktop');
  const server = JSON.parse(desktop?.text ?? '{}').mcpServers.svc as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  expect([server.command, ...server.args.slice(0, 2)]).toEqual(['npx', '-y', 'mcp-remote']);
  const env = personEnv(home, { ...server.env, MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(home, 'mcp-auth-')) });
  return runProgram(
    process.execPath,
    [MCP_REMOTE, ...server.args.slice(2)],
    env,
    ({ write, output, stop }) => {
      write(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'claude-desktop', version: '1' },
          },
        }),
      );
      const next = setInterval(() => {
        if (!output().includes('"id":1,"result"')) return;
        clearInterval(next);
        write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
        write(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'list_workspaces', arguments: {} },
          }),
        );
      }, 50);
      const done = setInterval(() => {
        if (!output().includes('"id":2,')) return;
        clearInterval(done);
        stop();
      }, 50);
      setTimeout(() => [next, done].forEach(clearInterval), 30_000);
    },
  );
}

describe('MCP Inspector CLI and mcp-remote, as people run them', () => {
  it('answer the tool with a valid key', async () => {
    const { apiKey, ws } = await member();
    const shown = await inspector(apiKey);
    expect(shown.output).toContain(`"workspace_id": "${ws}"`);
    expect(shown.code).toBe(0);
    const desktop = await claudeDesktop(apiKey);
    expect(desktop.output).toContain(`{"workspaces":[{"workspace_id":"${ws}"`);
  }, 180_000);

  it('what they did shows in the owner’s and the administrator’s usage, a revoked key presented 5 times too', async () => {
    const { apiKey, token, ws, id } = await member();
    expect((await inspector(apiKey)).code).toBe(0);
    expect((await claudeDesktop(apiKey)).output).toContain('"workspaces"');
    // A 2026-07-28 client names its tool in the Mcp-Name header, which the key authorizer counts.
    const modern = new ClientV2(
      { name: 'usage', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new TransportV2(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    await modern.callTool({ name: 'list_workspaces', arguments: {} });
    await modern.close();
    const revoked = await keyFor(token, ws);
    expect((await call('DELETE', `/v1/mcp/api-keys/${revoked.id}`, { token })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect(await presentKey(base, revoked.apiKey)).toBe(401);
    // Counts wait until the next verification writes them: one more call.
    expect(await presentKey(base, apiKey)).not.toBe(401);

    const usage = await call('GET', `/v1/mcp/api-keys/${id}/usage`, { token });
    expect(usage.status, usage.text).toBe(200);
    // The Inspector's and mcp-remote's requests (initialize, notifications, tools/call…) and the SDK client's.
    expect(usage.json.total.calls).toBeGreaterThanOrEqual(6);
    // At least the SDK client's tools/call; a client of the older era sends no Mcp-Name, its call counts without a tool.
    expect(Object.keys(usage.json.total.tools)).toEqual(['list_workspaces']);
    expect(usage.json.total.tools.list_workspaces).toBeGreaterThanOrEqual(1);
    const admin = `admin-${randomUUID()}`;
    expect((await call('PUT', `/_dev/memberships/${admin}/${ws}`, { body: { role: 'owner' } })).status).toBe(
      200,
    );
    const adminToken = (await call('POST', '/_dev/token', { body: { sub: admin, email_verified: true } }))
      .json.token;
    const view = await call('GET', `/v1/mcp/workspaces/${ws}/usage`, { token: adminToken });
    expect(view.status, view.text).toBe(200);
    expect(view.json.groups.map((g: { key: string }) => g.key)).toContain(id);
    expect(view.json.revoked_still_presented).toEqual([
      expect.objectContaining({ credential_id: revoked.id, presented: 5 }),
    ]);
  }, 180_000);

  it('a revoked key: both show the registration refusal, which names the key and its revocation', async () => {
    const { apiKey, token, id } = await member();
    expect((await call('DELETE', `/v1/mcp/api-keys/${id}`, { token })).status).toBe(200);
    await expectRefused(apiKey);
  }, 180_000);

  it('a mistyped key: both show the registration refusal', async () => {
    const { apiKey } = await member();
    const typo = `${apiKey.slice(0, 40)}${apiKey[40] === 'a' ? 'b' : 'a'}${apiKey.slice(41)}`;
    expect(parseKey(typo).ok).toBe(false);
    await expectRefused(typo);
  }, 180_000);

  it('a key whose creator has no workspace left: both show the reason, not an OAuth step-up', async () => {
    const { apiKey, sub, ws } = await member();
    expect((await call('DELETE', `/_dev/memberships/${sub}/${ws}`)).status).toBe(204);
    for (const shown of [await inspector(apiKey), await claudeDesktop(apiKey)]) {
      expect(shown.output).toContain(NO_ACCESS);
      expect(shown.output).not.toMatch(/insufficient.scope/i);
      expect(shown.code).not.toBe(0);
    }
  }, 180_000);

  it('an expired key, on a clock moved past its expiry: both show the registration refusal', async () => {
    const { apiKey } = await member(1);
    // Same data, the functions' clock two days ahead (local mode only).
    expect(await service.stop('SIGINT')).toBe(0);
    service = await startService({
      DATA_DIR: dataDir,
      LOCAL_CLOCK_OFFSET_SECONDS: String(2 * DAY_SECONDS),
      ...WITHOUT_OAUTH,
      ...USAGE_NOW,
    });
    base = service.url;
    await expectRefused(apiKey);
  }, 120_000);

  it('local mode answers the registration fallback and keeps the OAuth discovery documents 404', async () => {
    const registered = await call('POST', '/register', {
      body: { redirect_uris: ['http://localhost:1/cb'] },
    });
    expect(registered.status).toBe(400);
    expect(registered.json).toEqual({ error: 'invalid_client_metadata', error_description: refusal() });
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      expect((await call('GET', path)).status, path).toBe(404);
    }
    expect((await call('GET', '/register')).status).toBe(404);
  });

  it('never let a key or token reach the service log', () => {
    expect(secrets.size).toBeGreaterThan(4);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});

/** What a refused 401 shows in each client: the refusal, with where to get a key, and no tool answer. */
async function expectRefused(apiKey: string) {
  for (const shown of [await inspector(apiKey), await claudeDesktop(apiKey)]) {
    expect(shown.output).toContain(refusal());
    expect(shown.output).toContain('revoked or expired');
    expect(shown.output).not.toContain('"workspaces"');
    expect(shown.code).not.toBe(0);
  }
}
