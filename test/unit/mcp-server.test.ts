import { describe, expect, it } from 'vitest';
import type { WorkspaceAccess } from '#lib/access/scopes';
import { serveMcp } from '#lib/mcp/server';

/**
 * What the reference MCP server answers over plain JSON-RPC (lib/mcp/server.ts): its tools as a
 * client lists them, list_workspaces' result, and the transport's answers without a result. The
 * protocol eras themselves are test/unit/mcp-eras.test.ts; the other tools and their checks
 * test/unit/mcp-reference-tools.test.ts and test/unit/mcp-call-check.test.ts.
 */
const WORKSPACES: WorkspaceAccess[] = [
  { id: 'ws-1', role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'] },
  { id: 'ws-2', role: 'viewer', scopes: ['svc.forms.read'] },
];

const post = (body: string) =>
  serveMcp(
    new Request('http://mcp.test/mcp', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    }),
    { userId: 'u-1', keyId: 'k-1', kind: 'api_key', workspaces: WORKSPACES },
  );
const rpc = async (method: string, params?: object) => {
  const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params && { params }) }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: Record<string, unknown> }).result;
};

describe('the reference MCP server', () => {
  it('lists the tools the credential may call, list_workspaces first with its title, description (a credential, not a key: apps sign in with OAuth) and output schema', async () => {
    const { tools } = (await rpc('tools/list')) as { tools: Record<string, unknown>[] };
    expect(tools.map((t) => t.name)).toEqual([
      'list_workspaces',
      'list_forms',
      'read_draft',
      'compile_dsl',
      'validate_definition',
      'create_form',
      'replace_draft',
    ]);
    const [tool] = tools as [Record<string, unknown>];
    expect(tool).toMatchObject({
      name: 'list_workspaces',
      title: 'List workspaces',
      description:
        'The workspaces this credential can reach, with the role, scopes and tools it has in each.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
    const output = tool.outputSchema as {
      required: string[];
      properties: { workspaces: { items: { properties: Record<string, unknown>; required: string[] } } };
    };
    expect(output.required).toEqual(['workspaces']);
    expect(Object.keys(output.properties.workspaces.items.properties)).toEqual([
      'workspace_id',
      'role',
      'scopes',
      'tools',
    ]);
    expect(output.properties.workspaces.items.required).toEqual(['workspace_id', 'role', 'scopes', 'tools']);
  });

  it('answers list_workspaces with the key’s workspaces and the tools it may call in each, as text and as structured content', async () => {
    const result = await rpc('tools/call', { name: 'list_workspaces', arguments: {} });
    const read = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];
    const workspaces = [
      {
        workspace_id: 'ws-1',
        role: 'editor',
        scopes: WORKSPACES[0]?.scopes,
        tools: [...read, 'create_form', 'replace_draft'],
      },
      { workspace_id: 'ws-2', role: 'viewer', scopes: ['svc.forms.read'], tools: read },
    ];
    expect(result).toEqual({
      content: [{ type: 'text', text: JSON.stringify(workspaces) }],
      structuredContent: { workspaces },
    });
  });

  it('answers a body that is not JSON with JSON-RPC’s parse error', async () => {
    const response = await post('{not json');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('refuses a body over 1 MiB with 413 in both protocol eras, and serves one at the limit', async () => {
    const limit = 1 << 20;
    const padded = (bytes: number, method: string) => {
      const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { pad: '' } });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(bytes - Buffer.byteLength(base))}"`);
    };
    for (const method of ['tools/list', 'server/discover']) {
      const over = await post(padded(limit + 1, method));
      expect(over.status, method).toBe(413);
      expect(await over.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${limit} bytes` },
      });
    }
    // Counted in bytes, not characters: 1 MiB of bytes in fewer characters is still over.
    const multibyte = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'é'.repeat(limit / 2) },
    });
    expect((await post(multibyte)).status).toBe(413);
    const at = await post(padded(limit, 'tools/list'));
    expect(at.status).toBe(200);
    expect(Buffer.byteLength(padded(limit, 'tools/list'))).toBe(limit);
  });

  it('answers a notification with 202 and no body at all', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(response.status).toBe(202);
    expect(response.body).toBeNull();
  });
});
