import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyEvent } from '#lib/events/model';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';

/**
 * Leak response through `npm start` (contract §11): a key posted to either endpoint fails its
 * very next MCP call, its history says who reported it, and the event is published.
 */
let service: RunningService;
const timings: Record<string, number> = {};

beforeAll(async () => {
  service = await startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-e2e-leaks-')) });
});
afterAll(async () => {
  // What the closing note quotes: report sent → the key's next MCP call refused.
  console.log(`leak response, report to refusal: ${JSON.stringify(timings)}`);
  await service?.stop();
});

const call = jsonClient(() => service.url);
/** Sends `body` as is: the GitHub route is signed over exactly these bytes. */
const http = (
  method: string,
  path: string,
  init: { token?: string; body?: string; headers?: Record<string, string> } = {},
) =>
  call(method, path, {
    ...(init.token && { token: init.token }),
    ...(init.body !== undefined && { raw: init.body }),
    ...(init.headers && { headers: init.headers }),
  });

async function keyOf(sub: string) {
  const { token, workspaceId } = await devMember(call, sub);
  const created = await http('POST', '/v1/mcp/api-keys', {
    token,
    body: JSON.stringify({ name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] }),
  });
  expect(created.status).toBe(201);
  return { token, apiKey: created.json.api_key as string, id: created.json.metadata.id as string };
}

const listWorkspaces = (apiKey: string) =>
  http('POST', '/mcp', {
    token: apiKey,
    headers: { accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workspaces","arguments":{}}}',
  });

/** Reports the key, then calls MCP with it at once: the call must be refused. */
async function reportThenCall(apiKey: string, report: () => Promise<{ status: number }>, label: string) {
  expect((await listWorkspaces(apiKey)).status).toBe(200);
  const started = performance.now();
  await report();
  const refused = await listWorkspaces(apiKey);
  timings[label] = Math.round(performance.now() - started);
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  expect(refused.json.error.message).toContain('revoked');
}

async function published(keyId: string): Promise<KeyEvent> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const events = (await http('GET', '/_dev/events')).json.data as KeyEvent[];
    const found = events.find((e) => e.key_id === keyId && e.type === 'key.leak_revoked');
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`key.leak_revoked of ${keyId} was not published`);
}

describe('leak response through npm start', () => {
  it('a publicly reported key fails its next MCP call, and its history and the published events say so', async () => {
    const { token, apiKey, id } = await keyOf('leaky-alice');
    await reportThenCall(
      apiKey,
      async () => {
        const reply = await http('POST', '/v1/mcp/leaked-keys', {
          body: JSON.stringify({ keys: [apiKey, 'noise'], source: 'https://paste.example.com/1' }),
        });
        expect(reply.status).toBe(202);
        expect(reply.json).toEqual({ received: 2 });
        return reply;
      },
      'public report',
    );
    const history = await http('GET', `/v1/mcp/api-keys/${id}/events`, { token });
    expect(history.json.data[0]).toMatchObject({
      type: 'key.leak_revoked',
      actor: { type: 'public_report', id: null },
      details: { source: 'https://paste.example.com/1' },
    });
    expect(await published(id)).toMatchObject({ actor: { type: 'public_report' } });
  });

  it('a key GitHub reports, signed with the dev key, fails its next MCP call', async () => {
    const { token, apiKey, id } = await keyOf('leaky-bob');
    const keys = await http('GET', '/_dev/github/public-keys');
    expect(keys.json.public_keys[0]).toMatchObject({
      key_identifier: expect.any(String),
      key: expect.stringContaining('PUBLIC KEY'),
    });
    const body = `[{"token":"${apiKey}","type":"svc_mcp_api_key","url":"https://github.com/o/r/blob/main/.env","source":"content"}]`;
    await reportThenCall(
      apiKey,
      async () => {
        const signature = await http('POST', '/_dev/github/sign', { body });
        const reply = await http('POST', '/v1/mcp/secret-scanning/github', {
          body,
          headers: {
            'github-public-key-identifier': signature.json.key_identifier,
            'github-public-key-signature': signature.json.signature,
          },
        });
        expect(reply.status).toBe(200);
        expect(reply.json[0]).toMatchObject({ token_type: 'svc_mcp_api_key', label: 'true_positive' });
        expect(reply.text).not.toContain(apiKey);
        return reply;
      },
      'GitHub report',
    );
    const history = await http('GET', `/v1/mcp/api-keys/${id}/events`, { token });
    expect(history.json.data[0]).toMatchObject({
      type: 'key.leak_revoked',
      actor: { type: 'github_secret_scanning' },
      details: { source: 'https://github.com/o/r/blob/main/.env' },
    });
    expect(await published(id)).toMatchObject({ actor: { type: 'github_secret_scanning' } });
  });

  it('an unsigned GitHub report is 401 problem+json and the key keeps working', async () => {
    const { apiKey } = await keyOf('careful-carol');
    const reply = await http('POST', '/v1/mcp/secret-scanning/github', {
      body: `[{"token":"${apiKey}","type":"svc_mcp_api_key","url":"","source":"content"}]`,
    });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('content-type')).toBe('application/problem+json');
    expect((await listWorkspaces(apiKey)).status).toBe(200);
  });
});
