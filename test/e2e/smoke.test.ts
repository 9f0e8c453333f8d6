import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, runToExit, startService } from '#test/support/local-service';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-smoke-'));
let service: RunningService;
let token: string;
const USER = 'smoke-user';

beforeAll(async () => {
  service = await startService({ DATA_DIR: dataDir });
  const issued = await fetch(`${service.url}/_dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: USER, email_verified: true }),
  });
  token = ((await issued.json()) as { token: string }).token;
});
afterAll(async () => {
  await service?.stop();
});

async function memberOf(role = 'viewer'): Promise<string> {
  const workspace = randomUUID();
  const reply = await fetch(`${service.url}/_dev/memberships/${USER}/${workspace}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role }),
  });
  expect(reply.status).toBe(200);
  return workspace;
}

/** `npm run smoke -- …args`, as an operator runs it; resolves with its exit code and output. */
const smoke = (args: string[], env: Record<string, string> = {}) =>
  runToExit(env, ['npm', 'run', 'smoke', '--', ...args]);

async function keysOf(status?: string) {
  const reply = await fetch(`${service.url}/v1/mcp/api-keys${status ? `?status=${status}` : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await reply.json()) as { data: { id: string; status: string }[] }).data;
}

const FULL_KEY = /svc_mcp_v1_[0-9A-Za-z]{8,}/;

describe('npm run smoke against npm start', () => {
  it('passes the seed’s flow, prints each step, never a key or the token, and leaves no active key', async () => {
    const workspace = await memberOf();
    const run = await smoke(['--base-url', service.url, '--workspace', workspace], { SMOKE_TOKEN: token });
    expect(run.code, run.output).toBe(0);
    const steps = [
      '1/7 create a key',
      '2/7 list_workspaces over MCP with the key',
      '3/7 rotate the key',
      '4/7 the old key is refused',
      '5/7 the new key works',
      '6/7 revoke the new key',
      '7/7 the revoked key is refused',
    ];
    const lines = run.output.split('\n');
    const positions = steps.map((step) => lines.findIndex((l) => l.startsWith(step) && /\sok\b/.test(l)));
    expect(
      positions.every((p) => p >= 0),
      run.output,
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(run.output).toMatch(/4\/7 the old key is refused\s+ok {2}answered (401|403)/);
    expect(run.output).toMatch(/^smoke: passed \(7 steps in [\d.]+ s\)$/m);
    expect(run.output).toContain('svc_mcp_v1_…'); // hints only
    expect(run.output).not.toMatch(FULL_KEY);
    expect(run.output).not.toContain(token);
    expect(await keysOf('active')).toEqual([]);
    expect((await keysOf()).map((k) => k.status)).toEqual(['revoked', 'revoked']);
  }, 60_000);

  it('fails clearly with a bad user token, having created nothing', async () => {
    const before = (await keysOf()).length;
    const run = await smoke(['--base-url', service.url, '--token', 'not-a-jwt', '--workspace', randomUUID()]);
    expect(run.code).toBe(1);
    expect(run.output).toMatch(
      /^1\/7 create a key FAILED: POST \/v1\/mcp\/api-keys answered 401 .*the user token was refused/m,
    );
    expect(run.output).toMatch(/^smoke: FAILED at step 1 \(create a key\)$/m);
    expect((await keysOf()).length).toBe(before);
  }, 60_000);

  it('revokes what it created when a later step fails', async () => {
    const workspace = await memberOf();
    const run = await smoke(
      ['--base-url', service.url, '--workspace', workspace, '--mcp-url', `${service.url}/not-mcp`],
      { SMOKE_TOKEN: token },
    );
    expect(run.code).toBe(1);
    expect(run.output).toMatch(
      /^2\/7 list_workspaces over MCP with the key FAILED: MCP call to .*(404|Not Found)/m,
    );
    expect(run.output).toMatch(/^cleanup: revoked key [0-9a-f-]{36}$/m);
    expect(run.output).not.toMatch(FULL_KEY);
    expect(await keysOf('active')).toEqual([]);
  }, 60_000);

  it('explains its arguments and exits 2 when they are wrong', async () => {
    const run = await smoke(['--base-url', 'ftp://example.com', '--workspace', 'nope']);
    expect(run.code).toBe(2);
    expect(run.output).toContain('--base-url must be an http(s) URL');
    expect(run.output).toContain('--token (or SMOKE_TOKEN) is required');
    expect(run.output).toContain('--workspace must be a workspace id (a UUID)');
    expect(run.output).toContain('usage: npm run smoke --');
  }, 30_000);
});
