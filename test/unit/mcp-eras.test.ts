import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import type { WorkspaceAccess } from '#lib/access/scopes';
import { serveMcp } from '#lib/mcp/server';

/**
 * The reference endpoint answers both protocol eras (contract §16): a 2026-07-28 client opens with
 * `server/discover` and calls with the per-request envelope (the SDK v2 client pinned to it, as
 * Claude Code 2.1 does), a 2025-era client with `initialize` (the SDK v1 client, and v2's default).
 * The official clients talk to `serveMcp` through their `fetch` option: no socket.
 */
const WORKSPACES: WorkspaceAccess[] = [{ id: 'ws-1', role: 'editor', scopes: ['svc.forms.read'] }];
const CALLER = { userId: 'u-1', keyId: 'k-1', kind: 'api_key' as const, workspaces: WORKSPACES };
const URL_ = new URL('http://mcp.test/mcp');

function recordingFetch() {
  const seen: { version: string | null; method: string; status: number; type: string | null }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string }) : {};
    const response = await serveMcp(request, CALLER);
    seen.push({
      version: request.headers.get('mcp-protocol-version'),
      method: body.method ?? request.method,
      status: response.status,
      type: response.headers.get('content-type'),
    });
    return response;
  };
  return { fetch, seen };
}

const workspacesOf = (result: object) =>
  (
    result as { structuredContent: { workspaces: { workspace_id: string }[] } }
  ).structuredContent.workspaces.map((w) => w.workspace_id);

describe('the reference endpoint across protocol eras', () => {
  it('serves a 2026-07-28 client: server/discover, then a tool call in JSON', async () => {
    const { fetch, seen } = recordingFetch();
    const client = new ClientV2(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(URL_, { fetch }));
    expect(workspacesOf(await client.callTool({ name: 'list_workspaces', arguments: {} }))).toEqual(['ws-1']);
    await client.close();
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'tools/call']);
    expect(seen.every((s) => s.version === '2026-07-28' && s.status === 200)).toBe(true);
    expect(seen.every((s) => s.type?.startsWith('application/json'))).toBe(true);
  });

  it('lets a 2026-07-28 probe fall back: a client in auto mode ends on the modern era', async () => {
    const { fetch, seen } = recordingFetch();
    const client = new ClientV2({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(URL_, { fetch }));
    expect(workspacesOf(await client.callTool({ name: 'list_workspaces', arguments: {} }))).toEqual(['ws-1']);
    await client.close();
    expect(seen[0]).toMatchObject({ method: 'server/discover', status: 200 });
  });

  it('serves a 2025-era client: initialize, then a tool call, statelessly in JSON', async () => {
    const { fetch, seen } = recordingFetch();
    const client = new ClientV1({ name: 'legacy', version: '1.0.0' });
    await client.connect(new TransportV1(URL_, { fetch }));
    expect(client.getServerVersion()).toMatchObject({ name: 'svc-mcp-reference' });
    expect(workspacesOf(await client.callTool({ name: 'list_workspaces', arguments: {} }))).toEqual(['ws-1']);
    await client.close();
    expect(seen.map((s) => s.method)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(seen.find((s) => s.method === 'tools/call')).toMatchObject({ status: 200, version: '2025-11-25' });
    expect(seen.find((s) => s.method === 'initialize')?.type).toMatch(/^application\/json/);
  });
});
