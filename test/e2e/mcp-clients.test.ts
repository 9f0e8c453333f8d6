import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleKey, parseKey, secretField } from '#lib/keys/format';
import { mcpDenial } from '#lib/mcp/denial';
import { REST_GATEWAY_RESPONSES } from '#lib/mcp/gateway-responses';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { SecretLedger } from '#test/support/secrets';

/**
 * What a person sees in a real MCP client when a key fails: the official TypeScript SDK client
 * against the local service, whose /mcp answers exactly as the deployed REST API does. The
 * service runs without OAuth (`OAUTH=off`), as a deployment that configures no authorization
 * server: contract §7's answers, with no `resource_metadata` to start discovery from. With OAuth
 * on, the same refusals are in test/e2e/oauth.test.ts.
 */

/** A deployment without an OAuth authorization server (contract §15 "When it is on"). */
const WITHOUT_OAUTH = { OAUTH: 'off' };

const dataDir = mkdtempSync(join(tmpdir(), 'svc-mcp-clients-'));
let service: RunningService;
let base: string;
const secrets = new SecretLedger();
const DAY_SECONDS = 86_400;

const UNAUTHORIZED = REST_GATEWAY_RESPONSES.UNAUTHORIZED;
const unauthorizedMessage = JSON.parse(UNAUTHORIZED.body).error.message as string;
const NO_ACCESS = mcpDenial({ outcome: 'no_access' });
const noAccessMessage = JSON.parse(NO_ACCESS.body).error.message as string;

beforeAll(async () => {
  service = await startService({ DATA_DIR: dataDir, ...WITHOUT_OAUTH });
  base = service.url;
});
afterAll(async () => {
  await service?.stop();
});

const call = jsonClient(() => base);

/** A user who is an editor of one workspace, with a key for it. */
async function member(expiresInDays?: number) {
  const sub = `user-${randomUUID()}`;
  const { token, workspaceId: ws } = await devMember(call, sub);
  secrets.add(token);
  const created = await call('POST', '/v1/mcp/api-keys', {
    token,
    body: {
      name: 'laptop',
      workspace_ids: [ws],
      scopes: ['svc.forms.read'],
      ...(expiresInDays && { expires_in_days: expiresInDays }),
    },
  });
  expect(created.status).toBe(201);
  secrets.add(created.json.api_key);
  return { sub, token, ws, id: created.json.metadata.id as string, apiKey: created.json.api_key as string };
}

/** Connects the official SDK client with `apiKey` (or none) and calls list_workspaces. */
async function useKey(apiKey: string | undefined) {
  const client = new Client({ name: 'e2e-person', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    ...(apiKey !== undefined && { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
    return result.structuredContent as { workspaces: { workspace_id: string }[] };
  } finally {
    await client.close();
  }
}

/** The error the SDK client raises for `apiKey`, and the raw answer behind it. */
async function failure(apiKey: string | undefined) {
  const error = await useKey(apiKey).then(
    () => {
      throw new Error('the client was not refused');
    },
    (err: unknown) => err as Error & { code?: number },
  );
  const raw = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(apiKey !== undefined && { authorization: `Bearer ${apiKey}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return {
    error,
    status: raw.status,
    challenge: raw.headers.get('www-authenticate'),
    body: await raw.text(),
  };
}

/** The error docs/using-keys.md quotes the SDK client raising, on the line after `label`. */
function quoted(label: string): string | undefined {
  const page = readFileSync('docs/using-keys.md', 'utf8');
  const lines = (/```text\n([\s\S]*?)```/.exec(page)?.[1] ?? '').split('\n');
  return lines[lines.findIndex((line) => line.startsWith(label)) + 1];
}

function expectUnauthorized(seen: Awaited<ReturnType<typeof failure>>) {
  expect(seen.status).toBe(401);
  expect(seen.error.code).toBe(401);
  expect(seen.challenge).toBe(UNAUTHORIZED.headers['www-authenticate']);
  expect(seen.challenge).toMatch(/^Bearer realm="svc-mcp", error="invalid_token"/);
  expect(seen.challenge).not.toContain('resource_metadata');
  expect(seen.body).toBe(UNAUTHORIZED.body);
  expect(seen.error.message).toContain(unauthorizedMessage);
}

describe('what the official TypeScript SDK client shows when a key fails', () => {
  it('works with a valid key', async () => {
    const { apiKey, ws } = await member();
    expect((await useKey(apiKey)).workspaces).toEqual([expect.objectContaining({ workspace_id: ws })]);
  });

  it('a revoked key: 401 invalid_token, and the error says revoked', async () => {
    const { apiKey, token, id } = await member();
    expect((await call('DELETE', `/v1/mcp/api-keys/${id}`, { token })).status).toBe(200);
    const seen = await failure(apiKey);
    expectUnauthorized(seen);
    expect(seen.error.message).toContain('revoked');
    // What the person sees, as the page quotes it.
    expect(seen.error.message).toBe(quoted('revoked, expired, mistyped or no key'));
  });

  it('a mistyped key: 401 invalid_token, with no database read needed to say so', async () => {
    const { apiKey } = await member();
    const typo = `${apiKey.slice(0, 40)}${apiKey[40] === 'a' ? 'b' : 'a'}${apiKey.slice(41)}`;
    expect(parseKey(typo).ok).toBe(false);
    const seen = await failure(typo);
    expectUnauthorized(seen);
    expect(seen.error.message).toContain('malformed');
  });

  it('no key: 401 with a Bearer challenge and no resource_metadata (no OAuth discovery)', async () => {
    const seen = await failure(undefined);
    expectUnauthorized(seen);
    expect(seen.error.message).toContain('missing');
  });

  it('a key whose creator left every workspace: 403 with a challenge without error= and the reason', async () => {
    const { apiKey, sub, ws } = await member();
    expect((await useKey(apiKey)).workspaces).toHaveLength(1);
    expect((await call('DELETE', `/_dev/memberships/${sub}/${ws}`)).status).toBe(204);
    const seen = await failure(apiKey);
    expect(seen.status).toBe(403);
    expect(seen.error.code).toBe(403);
    expect(seen.challenge).toBe(NO_ACCESS.headers['www-authenticate']);
    expect(seen.challenge).toBe('Bearer realm="svc-mcp"');
    expect(seen.body).toBe(NO_ACCESS.body);
    expect(seen.error.message).toContain(noAccessMessage);
    expect(seen.error.message).toBe(quoted('creator left every workspace'));
  });

  it('answers an unknown id and a known id with the wrong secret byte for byte alike', async () => {
    const [a, b] = [await member(), await member()];
    const unknown = await failure(assembleKey(randomUUID(), secretField(b.apiKey)));
    const wrongSecret = await failure(assembleKey(a.id, secretField(b.apiKey)));
    expect(wrongSecret.status).toBe(unknown.status);
    expect(wrongSecret.challenge).toBe(unknown.challenge);
    expect(wrongSecret.body).toBe(unknown.body);
    expect(wrongSecret.error.message).toBe(unknown.error.message);
  });
});

describe('the Streamable HTTP transport rules at /mcp', () => {
  const raw = (method: string, headers: Record<string, string>) =>
    fetch(`${base}/mcp`, {
      method,
      headers: { accept: 'application/json, text/event-stream', ...headers },
      ...(method === 'POST' && { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }),
    });

  it('answers GET, HEAD and DELETE with 405 Allow: POST once the key passed, and 401 with the challenge before', async () => {
    const { apiKey } = await member();
    const challenge = (await raw('GET', {})).headers.get('www-authenticate');
    expect(challenge).toMatch(/^Bearer /);
    for (const method of ['GET', 'HEAD', 'DELETE']) {
      const allowed = await raw(method, { authorization: `Bearer ${apiKey}` });
      expect(allowed.status, method).toBe(405);
      expect(allowed.headers.get('allow')).toBe('POST');
      // The authorizer runs before the integration, as on the REST API: HEAD is no 404.
      const refused = await raw(method, {});
      expect(refused.status, method).toBe(401);
      expect(refused.headers.get('www-authenticate'), method).toBe(challenge);
    }
    // A HEAD answer has no body, whatever the function wrote.
    expect(await (await raw('HEAD', {})).text()).toBe('');
  });

  it('refuses a request with an Origin that is not allowed; requests without one are unaffected', async () => {
    const { apiKey } = await member();
    const browser = await raw('POST', {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      origin: 'http://rebound.example',
    });
    expect(browser.status).toBe(403);
    expect(((await browser.json()) as { error: { code: number } }).error.code).toBe(-32000);
    const desktop = await raw('POST', {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
    });
    expect(desktop.status).toBe(200);
  });

  it('answers a method the API lacks like the REST API: 404 with a JSON-RPC error', async () => {
    const put = await raw('PUT', {});
    expect(put.status).toBe(404);
    expect(await put.text()).toBe(REST_GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN.body);
  });
});

describe('an expired key, on a clock moved past its expiry', () => {
  it('401 invalid_token, and the error says expired', async () => {
    const { apiKey } = await member(1);
    expect((await useKey(apiKey)).workspaces).toHaveLength(1);
    // Same data, the functions' clock two days ahead (local mode only).
    expect(await service.stop('SIGINT')).toBe(0);
    service = await startService({
      DATA_DIR: dataDir,
      LOCAL_CLOCK_OFFSET_SECONDS: String(2 * DAY_SECONDS),
      ...WITHOUT_OAUTH,
    });
    base = service.url;
    const seen = await failure(apiKey);
    expectUnauthorized(seen);
    expect(seen.error.message).toContain('expired');
  }, 180_000);

  it('never logs a key or token', () => {
    expect(secrets.size).toBeGreaterThan(5);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
