import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WorkspaceAccess } from '#lib/access/scopes';
import { REFERENCE_TOOLS } from '#lib/access/tools';
import {
  ALL_SCOPES,
  callerOf,
  callTool,
  listedTools,
  refusalText,
  rpc,
  type ToolResult,
} from '#test/support/reference-mcp';

/**
 * The reference server implements the catalogue (contract §19): every tool but list_workspaces
 * checks the caller's access in the workspace its arguments name, tools/list answers only what
 * the credential may call somewhere, and a read tool reads what a write tool wrote on the same
 * process, each request on a fresh server.
 */
const ALL = REFERENCE_TOOLS.map((t) => t.name);
const READ_TOOLS = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];

/** Arguments each tool accepts, in workspace `ws`. */
const argsFor = (ws: string): Record<string, Record<string, unknown>> => ({
  list_forms: { workspace_id: ws },
  create_form: { workspace_id: ws, title: 'Intake' },
  read_draft: { workspace_id: ws, form_id: 'form_1' },
  replace_draft: { workspace_id: ws, form_id: 'form_1', definition: { fields: [] } },
  compile_dsl: { workspace_id: ws, dsl: 'name: text' },
  validate_definition: { workspace_id: ws, definition: { fields: [] } },
  generate_form_preview: { workspace_id: ws, form_id: 'form_1' },
});
const WORKSPACE_TOOLS = ALL.filter((name) => name !== 'list_workspaces');

describe('tools/list', () => {
  it('answers every tool for a credential holding every scope, with the catalogue’s titles and hints', async () => {
    const { tools } = (await rpc(
      callerOf([{ id: 'w', role: 'editor', scopes: ALL_SCOPES }]),
      'tools/list',
    )) as {
      tools: { name: string; title: string; annotations: Record<string, boolean> }[];
    };
    expect(tools.map((t) => t.name)).toEqual(ALL);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.replace_draft?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    expect(byName.create_form?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(byName.read_draft?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.generate_form_preview?.title).toBe('Generate a form preview');
  });

  it('answers only the read tools for a reader, and the union of its workspaces’ tools', async () => {
    expect(await listedTools(callerOf([{ id: 'w', role: 'viewer', scopes: ['svc.forms.read'] }]))).toEqual(
      READ_TOOLS,
    );
    const mixed = callerOf([
      {
        id: 'a',
        role: 'editor',
        scopes: ['svc.forms.read', 'svc.forms.write'],
        tools: ['list_forms', 'create_form'],
      },
      { id: 'b', role: 'editor', scopes: ALL_SCOPES, tools: ['generate_form_preview', 'replace_draft'] },
    ]);
    expect(await listedTools(mixed)).toEqual([
      'list_forms',
      'create_form',
      'replace_draft',
      'generate_form_preview',
    ]);
  });

  it('leaves out a tool a workspace’s tools list without its scope there, and one outside the authorizer’s union', async () => {
    const reader = {
      id: 'w',
      role: 'viewer',
      scopes: ['svc.forms.read'],
      tools: ['list_forms', 'create_form'],
    };
    expect(await listedTools(callerOf([reader as WorkspaceAccess]))).toEqual(['list_forms']);
    const narrowed = callerOf([{ id: 'w', role: 'editor', scopes: ALL_SCOPES }], { tools: ['read_draft'] });
    expect(await listedTools(narrowed)).toEqual(['read_draft']);
  });
});

describe('list_workspaces', () => {
  it('shows per workspace the tools the credential may call there: the authorizer’s, else its scopes’', async () => {
    const caller = callerOf([
      {
        id: 'a',
        role: 'editor',
        scopes: ALL_SCOPES,
        tools: ['list_workspaces', 'list_forms', 'replace_draft'],
      },
      { id: 'b', role: 'viewer', scopes: ['svc.forms.read'] },
    ]);
    const result = await callTool(caller, 'list_workspaces', {});
    const workspaces = [
      {
        workspace_id: 'a',
        role: 'editor',
        scopes: ALL_SCOPES,
        tools: ['list_workspaces', 'list_forms', 'replace_draft'],
      },
      { workspace_id: 'b', role: 'viewer', scopes: ['svc.forms.read'], tools: READ_TOOLS },
    ];
    expect(result).toEqual({
      content: [{ type: 'text', text: JSON.stringify(workspaces) }],
      structuredContent: { workspaces },
    });
    const { tools } = (await rpc(caller, 'tools/list')) as {
      tools: {
        name: string;
        outputSchema: { properties: { workspaces: { items: { required: string[] } } } };
      }[];
    };
    expect(
      tools.find((t) => t.name === 'list_workspaces')?.outputSchema.properties.workspaces.items.required,
    ).toEqual(['workspace_id', 'role', 'scopes', 'tools']);
  });
});

describe('each tool’s check in the workspace its arguments name', () => {
  // A credential that may call every tool in `all`, nothing in `bare`, and only list_forms by policy in `narrowed`.
  const caller = callerOf([
    { id: 'all', role: 'editor', scopes: ALL_SCOPES },
    { id: 'bare', role: 'viewer', scopes: [] },
    { id: 'narrowed', role: 'editor', scopes: ALL_SCOPES, tools: ['list_forms'] },
  ]);

  it.each(WORKSPACE_TOOLS)(
    '%s refuses a workspace the credential does not reach, naming it',
    async (name) => {
      const result = await callTool(caller, name, argsFor('ws-9')[name] as Record<string, unknown>);
      expect(refusalText(result)).toBe(
        'This credential does not reach workspace ws-9: list_workspaces names the workspaces it does.',
      );
    },
  );

  it.each(WORKSPACE_TOOLS)(
    '%s refuses a workspace where the credential lacks its scope, naming both',
    async (name) => {
      const scope = REFERENCE_TOOLS.find((t) => t.name === name)?.scope;
      const result = await callTool(caller, name, argsFor('bare')[name] as Record<string, unknown>);
      expect(refusalText(result)).toBe(
        `This credential lacks ${scope} in workspace bare, which ${name} needs.`,
      );
    },
  );

  it.each(WORKSPACE_TOOLS.filter((n) => n !== 'list_forms'))(
    '%s refuses a workspace whose tools leave it out, with the policy’s sentence',
    async (name) => {
      const result = await callTool(caller, name, argsFor('narrowed')[name] as Record<string, unknown>);
      expect(refusalText(result)).toBe(`Workspace narrowed does not allow ${name} for AI clients.`);
    },
  );

  it('lets the workspace’s own tools through, and says a refused id only when it looks like one', async () => {
    expect(await callTool(caller, 'list_forms', { workspace_id: 'narrowed' })).toMatchObject({
      structuredContent: { forms: [] },
    });
    const odd = await callTool(caller, 'list_forms', { workspace_id: 'ws 1 <b>' });
    expect(refusalText(odd)).toBe(
      'This credential does not reach that workspace: list_workspaces names the workspaces it does.',
    );
  });
});

describe('forms in the process’s memory', () => {
  // Workspaces of this run alone: the memory is the process's, shared by every file of a worker.
  const run = randomUUID().slice(0, 8);
  const mem1 = `mem-1-${run}`;
  const mem2 = `mem-2-${run}`;
  const caller = callerOf([
    { id: mem1, role: 'editor', scopes: ALL_SCOPES },
    { id: mem2, role: 'editor', scopes: ALL_SCOPES },
  ]);
  const structured = (result: ToolResult) => {
    expect(result.isError).toBeUndefined();
    return result.structuredContent;
  };

  it('reads on the next request what a write wrote, in that workspace only', async () => {
    expect(
      structured(await callTool(caller, 'create_form', { workspace_id: mem1, title: 'Intake & <triage>' })),
    ).toEqual({
      form_id: 'form_1',
      title: 'Intake & <triage>',
    });
    const definition = {
      fields: [
        { name: 'email', type: 'email', required: true },
        { name: 'age', type: 'number' },
      ],
    };
    const replaced = await callTool(caller, 'replace_draft', {
      workspace_id: mem1,
      form_id: 'form_1',
      definition,
    });
    expect(structured(replaced)).toEqual({ form_id: 'form_1', fields: 2 });
    const stored = {
      fields: [...definition.fields.slice(0, 1), { name: 'age', type: 'number', required: false }],
    };
    expect(
      structured(await callTool(caller, 'read_draft', { workspace_id: mem1, form_id: 'form_1' })),
    ).toEqual({
      form_id: 'form_1',
      title: 'Intake & <triage>',
      definition: stored,
    });
    expect(structured(await callTool(caller, 'list_forms', { workspace_id: mem1 }))).toEqual({
      forms: [{ form_id: 'form_1', title: 'Intake & <triage>' }],
    });
    const preview = await callTool(caller, 'generate_form_preview', {
      workspace_id: mem1,
      form_id: 'form_1',
    });
    expect(preview.content[0]?.text).toBe(
      [
        '<form aria-label="Intake &amp; &lt;triage&gt;">',
        '  <h1>Intake &amp; &lt;triage&gt;</h1>',
        '  <label>email <input name="email" type="email" required></label>',
        '  <label>age <input name="age" type="number"></label>',
        '</form>',
      ].join('\n'),
    );
    expect(structured(await callTool(caller, 'list_forms', { workspace_id: mem2 }))).toEqual({ forms: [] });
    const elsewhere = await callTool(caller, 'read_draft', { workspace_id: mem2, form_id: 'form_1' });
    expect(refusalText(elsewhere)).toBe(`Workspace ${mem2} has no form form_1.`);
  });

  it('replaces a draft wholesale, and saves nothing from a definition with problems', async () => {
    const ws = { workspace_id: mem2 };
    const { form_id } = structured(await callTool(caller, 'create_form', { ...ws, title: 'T' })) as {
      form_id: string;
    };
    const one = { fields: [{ name: 'a', type: 'text' }] };
    await callTool(caller, 'replace_draft', {
      ...ws,
      form_id,
      definition: { fields: [{ name: 'b', type: 'date' }] },
    });
    await callTool(caller, 'replace_draft', { ...ws, form_id, definition: one });
    const twice = {
      fields: [
        { name: 'a', type: 'text' },
        { name: 'a', type: 'date' },
      ],
    };
    const bad = await callTool(caller, 'replace_draft', { ...ws, form_id, definition: twice });
    expect(refusalText(bad)).toBe('The definition was not saved: Field 2 repeats the name a.');
    const draft = structured(await callTool(caller, 'read_draft', { ...ws, form_id })) as {
      definition: unknown;
    };
    expect(draft.definition).toEqual({ fields: [{ name: 'a', type: 'text', required: false }] });
    const missing = await callTool(caller, 'replace_draft', { ...ws, form_id: 'form_99', definition: one });
    expect(refusalText(missing)).toBe(`Workspace ${mem2} has no form form_99.`);
  });
});
