import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { serveMcp } from '#lib/mcp/server';
import { ALL_SCOPES, callerOf, MCP_URL, post } from '#test/support/reference-mcp';

/**
 * What the reference server checks before the SDK reads a request (contract §19): headers that
 * disagree with the body (SEP-2243: 400, JSON-RPC -32020) in every protocol era, since the key
 * authorizer trusted them; and the body's tool against the credential, since a client that sends
 * no `Mcp-Name` passed the authorizer without one (403, the authorizer's sentence).
 */
const reader = callerOf([{ id: 'w-r', role: 'viewer', scopes: ['svc.forms.read'] }]);
const editor = callerOf([{ id: 'w-e', role: 'editor', scopes: ALL_SCOPES }]);
const READ_TOOLS = 'list_workspaces, list_forms, read_draft, compile_dsl, validate_definition';

const toolCall = (name: unknown, args: object = { workspace_id: 'w-r' }) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function refusal(response: Response) {
  return {
    status: response.status,
    body: (await response.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } },
  };
}

const mismatch = (disagreement: string) => ({
  status: 400,
  body: {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32020,
      message: `Bad Request: the request headers and body disagree: ${disagreement}; send headers that repeat the body (SEP-2243).`,
    },
  },
});

describe('headers that disagree with the body', () => {
  it('refuses an Mcp-Name naming another tool than the body calls, whatever the version claimed', async () => {
    // The authorizer let list_forms through; the body calls replace_draft.
    const lying = await post(reader, toolCall('replace_draft'), {
      'mcp-method': 'tools/call',
      'mcp-name': 'list_forms',
      'mcp-protocol-version': '2025-11-25',
    });
    expect(await refusal(lying)).toEqual(
      mismatch('the Mcp-Name header names list_forms but the body calls replace_draft'),
    );
    const noTool = await post(editor, { ...toolCall('x'), params: {} }, { 'mcp-name': 'list_forms' });
    expect(await refusal(noTool)).toEqual(
      mismatch('the Mcp-Name header names list_forms but the body calls no tool'),
    );
  });

  it('refuses an Mcp-Method that is not the body’s method', async () => {
    const lying = await post(editor, toolCall('list_forms'), { 'mcp-method': 'tools/list' });
    expect(await refusal(lying)).toEqual(
      mismatch('the Mcp-Method header names tools/list but the body’s method is tools/call'),
    );
    const inBatch = await post(
      editor,
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, toolCall('list_forms')],
      {
        'mcp-method': 'tools/list',
      },
    );
    expect((await refusal(inBatch)).body.error.code).toBe(-32020);
  });

  it('never repeats a name no tool or method can have', async () => {
    const odd = await post(editor, toolCall('list forms"'), {
      'mcp-name': 'x<script>',
      'mcp-method': 'tools/call',
    });
    expect(await refusal(odd)).toEqual(
      mismatch(
        'the Mcp-Name header names a name that is not a tool’s but the body calls a name that is not a tool’s',
      ),
    );
    const method = await post(
      editor,
      { jsonrpc: '2.0', id: 1, method: 'tools list!' },
      { 'mcp-method': 'tools/list' },
    );
    expect(await refusal(method)).toEqual(
      mismatch('the Mcp-Method header names tools/list but the body’s method is a method that is not MCP’s'),
    );
  });

  it('reads an Mcp-Name in SEP-2243’s Base64 form, and serves headers that agree', async () => {
    const encoded = (name: string) => `=?base64?${Buffer.from(name).toString('base64')}?=`;
    const agreeing = await post(editor, toolCall('list_forms', { workspace_id: 'w-e' }), {
      'mcp-method': 'tools/call',
      'mcp-name': encoded('list_forms'),
    });
    expect(agreeing.status).toBe(200);
    expect(await agreeing.json()).toMatchObject({ result: { structuredContent: { forms: [] } } });
    const lying = await post(editor, toolCall('replace_draft'), { 'mcp-name': encoded('list_forms') });
    expect(await refusal(lying)).toEqual(
      mismatch('the Mcp-Name header names list_forms but the body calls replace_draft'),
    );
  });

  it('refuses a 2026-07-28 client’s request whose Mcp-Name was changed on the way', async () => {
    const answers: Response[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.headers.get('mcp-name') === 'replace_draft') request.headers.set('mcp-name', 'list_forms');
      const response = await serveMcp(request, editor);
      answers.push(response.clone());
      return response;
    };
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch }));
    const listed = await client.callTool({ name: 'list_forms', arguments: { workspace_id: 'w-e' } });
    expect(listed.isError).toBeUndefined();
    const call = {
      name: 'replace_draft',
      arguments: { workspace_id: 'w-e', form_id: 'f', definition: { fields: [] } },
    };
    await expect(client.callTool(call)).rejects.toThrow();
    await client.close();
    expect(await refusal(answers.at(-1) as Response)).toEqual(
      mismatch('the Mcp-Name header names list_forms but the body calls replace_draft'),
    );
  });
});

describe('the body’s tool, checked against the credential', () => {
  it('refuses with the authorizer’s 403 a tool the credential may call in no workspace, without Mcp-Name', async () => {
    const response = await post(reader, toolCall('replace_draft'), { 'mcp-method': 'tools/call' });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32003,
        message: `This key may not call replace_draft: its tools are ${READ_TOOLS}. Its owner can create a key for it.`,
      },
    });
  });

  it('says an app’s sentence for an access token, and never repeats a name no tool can have', async () => {
    const app = callerOf(reader.workspaces, { kind: 'oauth' });
    expect((await refusal(await post(app, toolCall('create_form')))).body.error.message).toBe(
      `This app may not call create_form: its tools are ${READ_TOOLS}. Sign in to it again and allow it.`,
    );
    expect((await refusal(await post(reader, toolCall('rm -rf')))).body.error.message).toBe(
      `This key may not call a tool of that name: its tools are ${READ_TOOLS}. Its owner can create a key for it.`,
    );
  });

  it('holds to the authorizer’s tools when the context carries them, and to the scopes when it does not', async () => {
    const narrowed = callerOf(editor.workspaces, { tools: ['list_forms'] });
    const refused = await refusal(
      await post(narrowed, toolCall('read_draft', { workspace_id: 'w-e', form_id: 'f' })),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      'This key may not call read_draft: its tools are list_forms. Its owner can create a key for it.',
    );
    const byWorkspace = callerOf([{ id: 'w-e', role: 'editor', scopes: ALL_SCOPES, tools: ['list_forms'] }]);
    expect((await post(byWorkspace, toolCall('compile_dsl', { workspace_id: 'w-e', dsl: '' }))).status).toBe(
      403,
    );
    // An older authorizer's context names no tools: the scopes decide, and an editor may compile.
    const older = await post(editor, toolCall('compile_dsl', { workspace_id: 'w-e', dsl: 'a: text' }));
    expect(older.status).toBe(200);
  });

  it('says the policy’s sentence when the workspaces’ policies leave the tool out, the owner’s when its own list does', async () => {
    // Its own list allows replace_draft; the only workspace's policy does not.
    const workspaces = [{ id: 'w-p', role: 'editor' as const, scopes: ALL_SCOPES, tools: ['list_forms'] }];
    const byPolicy = callerOf(workspaces, { ownTools: ['list_forms', 'replace_draft'] });
    expect((await refusal(await post(byPolicy, toolCall('replace_draft')))).body.error.message).toBe(
      'Workspace w-p does not allow replace_draft for AI clients.',
    );
    // Its own list leaves it out: the owner's sentence, whatever the policy.
    const byOwner = callerOf(workspaces, { ownTools: ['list_forms'] });
    expect((await refusal(await post(byOwner, toolCall('replace_draft')))).body.error.message).toBe(
      'This key may not call replace_draft: its tools are list_forms. Its owner can create a key for it.',
    );
    // A scope no workspace holds is the credential's, not a policy's.
    const reading = callerOf([
      { id: 'w-r', role: 'viewer', scopes: ['svc.forms.read'], tools: ['list_forms'] },
    ]);
    expect((await refusal(await post(reading, toolCall('create_form')))).body.error.message).toContain(
      'This key may not call',
    );
  });

  it('checks every call of a batch', async () => {
    const batch = [toolCall('list_forms'), toolCall('replace_draft')];
    expect((await refusal(await post(reader, batch))).status).toBe(403);
  });

  it('lets a tool allowed in some workspace through, to its own check in the workspace it names', async () => {
    const caller = callerOf([
      { id: 'open', role: 'editor', scopes: ALL_SCOPES },
      { id: 'closed', role: 'editor', scopes: ALL_SCOPES, tools: ['list_forms'] },
    ]);
    const response = await post(caller, toolCall('create_form', { workspace_id: 'closed', title: 'T' }), {
      'mcp-method': 'tools/call',
      'mcp-name': 'create_form',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      result: {
        isError: true,
        content: [{ type: 'text', text: 'Workspace closed does not allow create_form for AI clients.' }],
      },
    });
  });
});
