import { describe, expect, it } from 'vitest';
import { MAX_TOOLS, parseToolCatalogue, toolCatalogueProblems } from '#lib/access/tool-setting';
import {
  hasRules,
  inCatalogueOrder,
  REFERENCE_TOOLS,
  riskyTools,
  sameRules,
  type ToolCatalogue,
  toolListProblems,
  toolSentence,
  toolsIn,
  toolsOfScopes,
} from '#lib/access/tools';

/**
 * The tool catalogue and what a credential may call (contract §19; lib/access/tools.ts and
 * tool-setting.ts): the tools of scopes, what a workspace's rules leave, a credential's own list
 * refused tool by tool, the refusal's sentence, and the `mcpTools` setting checked.
 */

const READS = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];

describe('the tools a credential’s scopes allow', () => {
  it('each scope’s tools and those of the scopes it implies, in catalogue order', () => {
    expect(toolsOfScopes(REFERENCE_TOOLS, ['svc.forms.read'])).toEqual(READS);
    expect(toolsOfScopes(REFERENCE_TOOLS, ['svc.forms.write'])).toEqual([
      ...READS,
      'create_form',
      'replace_draft',
    ]);
    expect(toolsOfScopes(REFERENCE_TOOLS, ['svc.forms.generate', 'svc.forms.read'])).toEqual([
      ...READS,
      'generate_form_preview',
    ]);
    expect(toolsOfScopes(REFERENCE_TOOLS, [])).toEqual([]);
  });
});

describe('the tools a credential may call in one workspace', () => {
  it('with a catalogue: its scopes’ tools, within its own list and the policy’s, in catalogue order', () => {
    const read = ['svc.forms.read'] as const;
    expect(toolsIn(REFERENCE_TOOLS, read, null, undefined)).toEqual(READS);
    expect(toolsIn(REFERENCE_TOOLS, read, undefined, {})).toEqual(READS);
    expect(toolsIn(REFERENCE_TOOLS, read, ['read_draft', 'list_forms', 'create_form'], undefined)).toEqual([
      'list_forms',
      'read_draft',
    ]);
    expect(toolsIn(REFERENCE_TOOLS, read, null, { tools: ['compile_dsl', 'replace_draft'] })).toEqual([
      'compile_dsl',
    ]);
    expect(
      toolsIn(REFERENCE_TOOLS, read, ['list_forms', 'read_draft'], { tools: ['read_draft', 'compile_dsl'] }),
    ).toEqual(['read_draft']);
    expect(toolsIn(REFERENCE_TOOLS, read, [], undefined)).toEqual([]);
    expect(toolsIn(REFERENCE_TOOLS, [], null, undefined)).toEqual([]);
  });

  it('without a catalogue: null when neither its list nor the policy restricts, else the names both allow', () => {
    expect(toolsIn(undefined, ['svc.forms.read'], null, undefined)).toBeNull();
    expect(toolsIn(undefined, ['svc.forms.read'], undefined, { per_minute: 5 })).toBeNull();
    expect(toolsIn(undefined, ['svc.forms.read'], ['b', 'a'], undefined)).toEqual(['b', 'a']);
    expect(toolsIn(undefined, ['svc.forms.read'], null, { tools: ['x', 'y'] })).toEqual(['x', 'y']);
    expect(toolsIn(undefined, ['svc.forms.read'], ['b', 'a', 'c'], { tools: ['c', 'b'] })).toEqual([
      'b',
      'c',
    ]);
    expect(toolsIn(undefined, ['svc.forms.read'], [], undefined)).toEqual([]);
    expect(toolsIn(undefined, ['svc.forms.read'], [], { tools: ['x'] })).toEqual([]);
  });
});

describe('a credential’s own list, checked at create, consent and PATCH', () => {
  it('a tool the catalogue does not name, one its scopes do not reach, one listed twice: each with its index', () => {
    expect(
      toolListProblems(
        REFERENCE_TOOLS,
        ['list_forms', 'delete_everything', 'create_form', 'list_forms', 'nope', 'nope'],
        ['svc.forms.read'],
      ),
    ).toEqual([
      { index: 1, message: 'delete_everything is not a tool of this MCP server' },
      { index: 2, message: 'create_form needs svc.forms.write, which the credential does not hold' },
      { index: 3, message: 'list_forms is listed twice' },
      { index: 4, message: 'nope is not a tool of this MCP server' },
      { index: 5, message: 'nope is not a tool of this MCP server' },
    ]);
  });

  it('a tool of an implied scope is reachable; an empty list has no problem', () => {
    expect(toolListProblems(REFERENCE_TOOLS, ['list_forms', 'replace_draft'], ['svc.forms.write'])).toEqual(
      [],
    );
    expect(toolListProblems(REFERENCE_TOOLS, [], [])).toEqual([]);
    expect(toolListProblems(REFERENCE_TOOLS, ['create_form', 'create_form'], ['svc.forms.read'])).toEqual([
      { index: 0, message: 'create_form needs svc.forms.write, which the credential does not hold' },
      { index: 1, message: 'create_form needs svc.forms.write, which the credential does not hold' },
    ]);
  });

  it('is kept in catalogue order, names the catalogue lacks dropped; null and absent stay null', () => {
    expect(inCatalogueOrder(REFERENCE_TOOLS, ['replace_draft', 'list_forms', 'other'])).toEqual([
      'list_forms',
      'replace_draft',
    ]);
    expect(inCatalogueOrder(REFERENCE_TOOLS, [])).toEqual([]);
    expect(inCatalogueOrder(REFERENCE_TOOLS, null)).toBeNull();
    expect(inCatalogueOrder(REFERENCE_TOOLS, undefined)).toBeNull();
  });
});

describe('the tools a least-privilege review looks at first', () => {
  it('every tool needing more than read, and any the deployment says destroys data', () => {
    expect(riskyTools(REFERENCE_TOOLS)).toEqual(['create_form', 'replace_draft', 'generate_form_preview']);
    const catalogue: ToolCatalogue = [
      { name: 'look', scope: 'svc.forms.read' },
      { name: 'purge_cache', scope: 'svc.forms.read', destructive: true },
      { name: 'edit', scope: 'svc.forms.write', destructive: false },
    ];
    expect(riskyTools(catalogue)).toEqual(['purge_cache', 'edit']);
  });
});

describe('the sentence of a refused tool', () => {
  const denial = { tool: 'replace_draft', tools: ['list_forms', 'read_draft'], workspace_ids: [] };

  it('a key’s and an app’s, naming what it may call, or that it may call none', () => {
    expect(toolSentence({ ...denial, kind: 'api_key', by: 'credential' })).toBe(
      'This key may not call replace_draft: its tools are list_forms, read_draft. Its owner can create a key for it.',
    );
    expect(toolSentence({ ...denial, kind: 'oauth', by: 'credential' })).toBe(
      'This app may not call replace_draft: its tools are list_forms, read_draft. Sign in to it again and allow it.',
    );
    expect(toolSentence({ ...denial, tools: [], kind: 'api_key', by: 'credential' })).toBe(
      'This key may not call replace_draft: it may call no tool. Its owner can create a key for it.',
    );
    expect(toolSentence({ ...denial, tools: ['list_forms'], kind: 'oauth', by: 'credential' })).toBe(
      'This app may not call replace_draft: its tools are list_forms. Sign in to it again and allow it.',
    );
  });

  it('a policy’s, naming its workspace, or each workspace whose policy leaves the tool out', () => {
    expect(toolSentence({ ...denial, kind: 'api_key', by: 'policy', workspace_ids: ['w1'] })).toBe(
      'Workspace w1 does not allow replace_draft for AI clients.',
    );
    expect(toolSentence({ ...denial, kind: 'oauth', by: 'policy', workspace_ids: ['w1', 'w2', 'w3'] })).toBe(
      'Workspaces w1, w2, w3 do not allow replace_draft for AI clients.',
    );
  });
});

describe('a credential’s rules by workspace', () => {
  it('restrict when any workspace has some', () => {
    expect(hasRules({})).toBe(false);
    expect(hasRules({ w: {} })).toBe(true);
  });

  it('are alike whatever the order of their fields, absent and empty rules alike', () => {
    expect(sameRules(undefined, undefined)).toBe(true);
    expect(sameRules(undefined, {})).toBe(true);
    expect(
      sameRules(
        { per_day: 10, tools: ['a'], scopes: ['svc.forms.read'], per_minute: 2 },
        { tools: ['a'], per_minute: 2, scopes: ['svc.forms.read'], per_day: 10 },
      ),
    ).toBe(true);
  });

  it('differ in any of their four fields, and an empty list is not an absent one', () => {
    const rules = { tools: ['a'], scopes: ['svc.forms.read' as const], per_minute: 2, per_day: 10 };
    expect(sameRules(rules, { ...rules, tools: ['b'] })).toBe(false);
    expect(sameRules(rules, { ...rules, scopes: ['svc.forms.write'] })).toBe(false);
    expect(sameRules(rules, { ...rules, per_minute: 3 })).toBe(false);
    expect(sameRules(rules, { ...rules, per_day: 11 })).toBe(false);
    expect(sameRules(undefined, { tools: [] })).toBe(false);
    expect(sameRules({ per_day: 1 }, undefined)).toBe(false);
  });
});

describe('the mcpTools setting', () => {
  const tool = (i: number) => ({ name: `tool_${i}`, scope: 'svc.forms.read' });

  it('a list of one to 100 tools', () => {
    expect(toolCatalogueProblems({})).toEqual(['must be a list of { name, scope, title?, destructive? }']);
    expect(toolCatalogueProblems('list_forms')).toEqual([
      'must be a list of { name, scope, title?, destructive? }',
    ]);
    expect(toolCatalogueProblems([])).toEqual(['must name at least one tool']);
    expect(MAX_TOOLS).toBe(100);
    expect(toolCatalogueProblems(Array.from({ length: 100 }, (_, i) => tool(i)))).toEqual([]);
    expect(toolCatalogueProblems(Array.from({ length: 101 }, (_, i) => tool(i)))).toEqual([
      'must name at most 100 tools',
    ]);
  });

  it('each entry an object with a name, a scope, and a title and destructive of the right kind', () => {
    expect(toolCatalogueProblems([null, [], 'x', 3])).toEqual([
      '[0] must be an object { name, scope, title?, destructive? }',
      '[1] must be an object { name, scope, title?, destructive? }',
      '[2] must be an object { name, scope, title?, destructive? }',
      '[3] must be an object { name, scope, title?, destructive? }',
    ]);
    expect(
      toolCatalogueProblems([
        { name: 'a b', scope: 'svc.forms.delete', colour: 'red', hint: 1 },
        { scope: 'svc.forms.read', title: '', destructive: 'yes' },
        { name: 7, scope: 'svc.forms.read', title: 't'.repeat(101) },
        { name: 'x'.repeat(65), scope: 'svc.forms.read', title: 5 },
      ]),
    ).toEqual([
      '[0].colour is not a field of a tool',
      '[0].hint is not a field of a tool',
      '[0].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
      '[0].scope must be one of svc.forms.read, svc.forms.write, svc.forms.generate',
      '[1].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
      '[1].title must be text of 1-100 characters',
      '[1].destructive must be true or false',
      '[2].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
      '[2].title must be text of 1-100 characters',
      '[3].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
      '[3].title must be text of 1-100 characters',
    ]);
  });

  it('titles of 1 and 100 characters, names of 64, and destructive false are fine', () => {
    expect(
      toolCatalogueProblems([
        { name: 'x'.repeat(64), scope: 'svc.forms.write', title: 'T', destructive: false },
        { name: 'a.b-c_9', scope: 'svc.forms.generate', title: 't'.repeat(100), destructive: true },
      ]),
    ).toEqual([]);
  });

  it('a name given twice is named at each repetition; entries without a usable name are not compared', () => {
    expect(
      toolCatalogueProblems([tool(1), tool(2), tool(1), { name: 5, scope: 'svc.forms.read' }, tool(1), null]),
    ).toEqual([
      '[3].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
      '[5] must be an object { name, scope, title?, destructive? }',
      '[2].name tool_1 is named twice',
      '[4].name tool_1 is named twice',
    ]);
    expect(
      toolCatalogueProblems([
        { name: 5, scope: 'svc.forms.read' },
        { name: 5, scope: 'svc.forms.read' },
      ]),
    ).toEqual([
      '[0].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
      '[1].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -)',
    ]);
  });

  it('MCP_TOOLS: absent is the reference catalogue; otherwise JSON, every problem named in one error', () => {
    expect(parseToolCatalogue(undefined)).toBe(REFERENCE_TOOLS);
    expect(() => parseToolCatalogue('[{')).toThrow(/^MCP_TOOLS: must be JSON$/);
    expect(() => parseToolCatalogue('{}')).toThrow(
      /^MCP_TOOLS: must be a list of \{ name, scope, title\?, destructive\? \}$/,
    );
    expect(() => parseToolCatalogue('[{"name":"a b","scope":"svc.forms.read"},{"name":"ok"}]')).toThrow(
      new Error(
        'MCP_TOOLS[0].name must be a tool name (1-64 of A-Z a-z 0-9 _ . -); MCP_TOOLS[1].scope must be one of svc.forms.read, svc.forms.write, svc.forms.generate',
      ),
    );
    const own = [{ name: 'search', scope: 'svc.forms.read', title: 'Search', destructive: false }];
    expect(parseToolCatalogue(JSON.stringify(own))).toEqual(own);
  });
});
