import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '#infra/local/dev/issuer';
import { freePort } from '#infra/local/emulation/dynamodb-local';
import { isAlive } from '#infra/local/lock';
import { REST_GATEWAY_RESPONSES, restGatewayResponses } from '#lib/mcp/gateway-responses';
import {
  OWN_DYNAMODB_LOCAL,
  type RunningService,
  runToExit,
  startService,
} from '#test/support/local-service';
import { SecretLedger } from '#test/support/secrets';

/** The tools a read-only credential may call (contract §19). */
const READ_TOOLS = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];

const procStatus = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').slice(0, 3).join(' ');
  } catch {
    return 'gone';
  }
};

const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
let service: RunningService;
let base: string;
const secrets = new SecretLedger();
const bodies: string[] = [];

beforeAll(async () => {
  service = await startService({ DATA_DIR: dataDir, ...OWN_DYNAMODB_LOCAL });
  base = service.url;
});
afterAll(async () => {
  await service?.stop();
});

async function http(
  method: string,
  path: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string | undefined> } = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(init.token && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  bodies.push(text);
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: text ? JSON.parse(text) : undefined,
  };
}

async function token(sub: string, extra: { email_verified?: boolean; auth_age_seconds?: number } = {}) {
  const reply = await http('POST', '/_dev/token', { body: { sub, email_verified: true, ...extra } });
  expect(reply.status).toBe(200);
  secrets.add(reply.json.token);
  return reply.json.token as string;
}

async function memberOf(sub: string, role = 'editor') {
  const workspaceId = randomUUID();
  // The membership it wrote, so a person running the quickstart sees that it worked.
  const granted = await http('PUT', `/_dev/memberships/${sub}/${workspaceId}`, { body: { role } });
  expect(granted.status).toBe(200);
  expect(granted.json).toEqual({ user_id: sub, workspace_id: workspaceId, role });
  return workspaceId;
}

async function createKey(tok: string, workspaceId: string, scopes = ['svc.forms.read']) {
  const reply = await http('POST', '/v1/mcp/api-keys', {
    token: tok,
    body: { name: 'laptop', workspace_ids: [workspaceId], scopes },
  });
  secrets.add(reply.json?.api_key);
  return reply;
}

async function mcpClient(apiKey: string) {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

async function listWorkspaces(apiKey: string) {
  const client = await mcpClient(apiKey);
  try {
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
    return (
      result.structuredContent as { workspaces: { workspace_id: string; role: string; scopes: string[] }[] }
    ).workspaces;
  } finally {
    await client.close();
  }
}

describe('the local service over HTTP', () => {
  it('serves health, the OpenAPI document and the dev issuer’s JWKS', async () => {
    expect((await http('GET', '/health')).json).toEqual({ status: 'ok' });
    const openapi = await http('GET', '/openapi.json');
    expect(openapi.json.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.json.paths)).toContain('/v1/mcp/api-keys');
    const jwks = await http('GET', '/.well-known/jwks.json');
    expect(jwks.json.keys).toHaveLength(1);
    expect(jwks.json.keys[0].d).toBeUndefined();
  });

  it('runs the full lifecycle: create, list, rotate, revoke', async () => {
    const tok = await token('carol');
    const ws = await memberOf('carol');
    const created = await createKey(tok, ws);
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('location')).toBe(`/v1/mcp/api-keys/${created.json.metadata.id}`);
    const listed = await http('GET', '/v1/mcp/api-keys', { token: tok });
    expect(listed.json.data.map((m: { id: string }) => m.id)).toEqual([created.json.metadata.id]);
    const rotated = await http('POST', `/v1/mcp/api-keys/${created.json.metadata.id}/rotate`, { token: tok });
    secrets.add(rotated.json.api_key);
    expect(rotated.status).toBe(201);
    expect(rotated.json.revoked_key.status).toBe('revoked');
    const revoked = await http('DELETE', `/v1/mcp/api-keys/${rotated.json.metadata.id}`, { token: tok });
    expect(revoked.status).toBe(200);
    expect(revoked.json.metadata.status).toBe('revoked');
    const after = await http('GET', '/v1/mcp/api-keys?status=active', { token: tok });
    expect(after.json.data).toEqual([]);
  });

  it('enforces step-up and membership rules', async () => {
    const ws = await memberOf('dave', 'viewer');
    const stale = await token('dave', { auth_age_seconds: 1000 });
    const staleReply = await createKey(stale, ws);
    expect(staleReply.status).toBe(401);
    expect(staleReply.json.code).toBe('reauthentication_required');
    expect(staleReply.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_user_authentication", max_age="900"',
    );
    const unverified = await token('dave', { email_verified: false });
    expect((await createKey(unverified, ws)).json.code).toBe('email_not_verified');
    const fresh = await token('dave');
    const denied = await createKey(fresh, ws, ['svc.forms.write']);
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe('workspace_access_denied');
    expect((await createKey(fresh, randomUUID())).json.code).toBe('workspace_access_denied');
  });

  it('answers bad user tokens exactly as API Gateway does', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ email_verified: true, auth_time: now })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('mallory')
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_AUDIENCE)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    for (const headers of [
      {},
      { authorization: 'Bearer nope' },
      { authorization: `Bearer ${forged}` },
      { authorization: 'Basic x' },
    ]) {
      const reply = await http('GET', '/v1/mcp/api-keys', { headers });
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({ message: 'Unauthorized' });
    }
  });

  it('answers /mcp without a key or with a bad one as the deployed REST API with OAuth does', async () => {
    // OAuth is on by default in local mode: the 401 also names the Protected Resource Metadata
    // and the scope to ask for (contract §15 "Discovery"); message and error stay §7's.
    const unauthorized = restGatewayResponses({
      resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
    }).UNAUTHORIZED;
    for (const headers of [{}, { authorization: 'Bearer svc_mcp_v1_garbage' }]) {
      const reply = await http('POST', '/mcp', { body: {}, headers });
      expect(reply.status).toBe(401);
      expect(reply.text).toBe(unauthorized.body);
      expect(reply.text).toBe(REST_GATEWAY_RESPONSES.UNAUTHORIZED.body);
      expect(reply.headers.get('www-authenticate')).toBe(unauthorized.headers['www-authenticate']);
      expect(reply.headers.get('www-authenticate')).toBe(
        `${REST_GATEWAY_RESPONSES.UNAUTHORIZED.headers['www-authenticate']}, ` +
          `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="svc.forms.read"`,
      );
    }
  });

  it('follows the seed’s rotation flow with the official MCP SDK client', async () => {
    const tok = await token('erin');
    const ws = await memberOf('erin', 'editor');
    const created = await createKey(tok, ws, ['svc.forms.read', 'svc.forms.generate']);
    const oldKey = created.json.api_key as string;
    expect(await listWorkspaces(oldKey)).toEqual([
      {
        workspace_id: ws,
        role: 'editor',
        scopes: ['svc.forms.read', 'svc.forms.generate'],
        // What it may call there (contract §19): every tool its scopes allow.
        tools: [...READ_TOOLS, 'generate_form_preview'],
      },
    ]);

    const rotated = await http('POST', `/v1/mcp/api-keys/${created.json.metadata.id}/rotate`, { token: tok });
    const newKey = rotated.json.api_key as string;
    secrets.add(newKey);
    await expect(listWorkspaces(oldKey)).rejects.toThrow(/revoked/);
    expect(await listWorkspaces(newKey)).toHaveLength(1);

    await http('DELETE', `/v1/mcp/api-keys/${rotated.json.metadata.id}`, { token: tok });
    await expect(listWorkspaces(newKey)).rejects.toThrow(/revoked/);
  });

  it('drops a workspace from the key on the very next call once the creator leaves it', async () => {
    const tok = await token('frank');
    const ws = await memberOf('frank');
    const key = (await createKey(tok, ws)).json.api_key as string;
    expect(await listWorkspaces(key)).toHaveLength(1);
    await http('DELETE', `/_dev/memberships/frank/${ws}`);
    await expect(listWorkspaces(key)).rejects.toThrow(/no longer has access to any of its workspaces/);
  });

  it('refuses a second instance on the same data directory', async () => {
    const second = await runToExit({ DATA_DIR: dataDir, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.output).toMatch(/another local service \(pid \d+\) is using/);
    expect((await http('GET', '/health')).status).toBe(200);
  });

  it('exits with a one-line install hint when Java is missing', async () => {
    const run = await runToExit({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-nojava-')),
      PORT: '0',
      PATH: '/nonexistent',
    });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/^error: DynamoDB Local needs Java 17\+: install it .*$/m);
  });

  it('exits with a one-line error when DYNAMODB_LOCAL_URL is not a DynamoDB Local that answers', async () => {
    const closed = await freePort();
    const silent = await runToExit({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-attach-')),
      PORT: '0',
      DYNAMODB_LOCAL_URL: `http://127.0.0.1:${closed}`,
    });
    expect(silent.code).toBe(1);
    expect(silent.output).toMatch(
      new RegExp(
        `^error: could not start: DynamoDB Local does not answer at http://127\\.0\\.0\\.1:${closed} `,
        'm',
      ),
    );
    const withCredentials = await runToExit({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-attach-')),
      PORT: '0',
      DYNAMODB_LOCAL_URL: `http://someone@127.0.0.1:${closed}`,
    });
    expect(withCredentials.code).toBe(1);
    expect(withCredentials.output).toMatch(
      /^error: could not start: DYNAMODB_LOCAL_URL must be http:\/\/<host>:<port>/m,
    );
    expect(withCredentials.output).not.toContain('someone');
  });

  it('never sends a key or token in a list response or an error, nor logs one', () => {
    const listsAndErrors = bodies.filter((b) => !b.includes('"api_key"') && !b.includes('"token"'));
    expect(secrets.size).toBeGreaterThan(5);
    expect(secrets.leaksIn(listsAndErrors.join('\n'))).toEqual([]);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });

  it('keeps its data across a restart and stops DynamoDB Local with it', async () => {
    const tok = await token('grace');
    const ws = await memberOf('grace');
    const key = (await createKey(tok, ws)).json.api_key as string;
    const jvms = service.dynamoDbLocal();
    expect(jvms.length).toBeGreaterThan(0);
    expect(await service.stop('SIGINT')).toBe(0);
    // An orphaned JVM would live on; a child finishing its exit is gone within moments.
    const deadline = Date.now() + 3000;
    while (jvms.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const pid of jvms)
      expect(isAlive(pid), `child ${pid} of the stopped service: ${procStatus(pid)}`).toBe(false);

    service = await startService({ DATA_DIR: dataDir, ...OWN_DYNAMODB_LOCAL });
    base = service.url;
    const listed = await http('GET', '/v1/mcp/api-keys', { token: tok });
    expect(listed.status).toBe(200);
    expect(listed.json.data).toHaveLength(1);
    expect(await listWorkspaces(key)).toHaveLength(1);
  }, 180_000);
});
