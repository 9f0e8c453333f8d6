import { describe, expect, it } from 'vitest';
import { checkDefinition, compileDsl, formPreview, MAX_FIELDS, MAX_PROBLEMS } from '#lib/mcp/form-definition';
import { FORMS_LIMITS, FormsMemory } from '#lib/mcp/forms-memory';
import { callerOf, callTool } from '#test/support/reference-mcp';

/**
 * The reference server's stand-in forms (lib/mcp/form-definition.ts, lib/mcp/forms-memory.ts):
 * definitions checked and compiled from the DSL, the tools that do so, and a memory that stays
 * bounded.
 */
describe('a form definition', () => {
  it('is stored with name, type and required only', () => {
    expect(
      checkDefinition({
        fields: [
          { name: 'age', type: 'number', label: 'dropped' },
          { name: 'ok', type: 'checkbox', required: true },
        ],
      }),
    ).toEqual({
      definition: {
        fields: [
          { name: 'age', type: 'number', required: false },
          { name: 'ok', type: 'checkbox', required: true },
        ],
      },
    });
  });

  it('names each problem by field, and at most MAX_PROBLEMS of them', () => {
    expect(checkDefinition('fields')).toEqual({
      problems: ['A definition is an object with a list of fields.'],
    });
    expect(checkDefinition({ fields: {} })).toEqual({
      problems: ['A definition is an object with a list of fields.'],
    });
    expect(checkDefinition({ fields: [7, { name: 'Bad', type: 'text', required: 'yes' }] })).toEqual({
      problems: [
        'Field 1 is not an object with a name and a type.',
        'Field 2 needs a name of lower case letters, digits and _, starting with a letter (at most 64).',
        'Field 2 has a required that is not true or false.',
      ],
    });
    const many = Array.from({ length: MAX_FIELDS }, () => ({ name: 'same', type: 'nope' }));
    const checked = checkDefinition({ fields: many }) as { problems: string[] };
    expect(checked.problems).toHaveLength(MAX_PROBLEMS);
    expect(checked.problems.slice(0, 3)).toEqual([
      'Field 1 needs a type: one of text, number, email, date, checkbox.',
      'Field 2 repeats the name same.',
      'Field 2 needs a type: one of text, number, email, date, checkbox.',
    ]);
    expect(checkDefinition({ fields: [...many, many[0]] })).toEqual({
      problems: [`A definition has at most ${MAX_FIELDS} fields; this one has ${MAX_FIELDS + 1}.`],
    });
  });
});

describe('the form DSL', () => {
  it('compiles one field a line, skipping blank lines and comments', () => {
    expect(compileDsl('  # a comment\nname :  text\n\r\nemail: email required  ')).toEqual({
      definition: {
        fields: [
          { name: 'name', type: 'text', required: false },
          { name: 'email', type: 'email', required: true },
        ],
      },
      problems: [],
    });
    expect(compileDsl('')).toEqual({ definition: { fields: [] }, problems: [] });
  });

  it('names the lines it cannot read, then the fields the definition refuses', () => {
    expect(compileDsl('a: text\nb text\nc: text optional')).toEqual({
      definition: null,
      problems: [
        'Line 2: write one field as name: type, or name: type required.',
        'Line 3: write one field as name: type, or name: type required.',
      ],
    });
    expect(compileDsl('Name: text\nage: colour')).toEqual({
      definition: null,
      problems: [
        'Field 1 needs a name of lower case letters, digits and _, starting with a letter (at most 64).',
        'Field 2 needs a type: one of text, number, email, date, checkbox.',
      ],
    });
  });
});

describe('a preview', () => {
  it('escapes the title and marks required inputs', () => {
    expect(formPreview(`"Q'&A"`, { fields: [{ name: 'q', type: 'text', required: true }] })).toBe(
      [
        '<form aria-label="&quot;Q&#39;&amp;A&quot;">',
        '  <h1>&quot;Q&#39;&amp;A&quot;</h1>',
        '  <label>q <input name="q" type="text" required></label>',
        '</form>',
      ].join('\n'),
    );
  });
});

describe('the forms memory', () => {
  it('numbers forms per workspace and refuses one over the limit', () => {
    expect(FORMS_LIMITS).toEqual({ forms: 50, workspaces: 1000 });
    const memory = new FormsMemory({ forms: 2, workspaces: 10 });
    expect(memory.create('a', 'one')).toEqual({
      form_id: 'form_1',
      title: 'one',
      definition: { fields: [] },
    });
    expect(memory.create('b', 'other')).toMatchObject({ form_id: 'form_1' });
    expect(memory.create('a', 'two')).toMatchObject({ form_id: 'form_2' });
    expect(memory.create('a', 'three')).toBe('full');
    expect(memory.list('a').map((f) => f.title)).toEqual(['one', 'two']);
    expect(memory.replace('a', 'form_3', { fields: [] })).toBeUndefined();
    expect(memory.read('c', 'form_1')).toBeUndefined();
  });

  it('forgets the least recently written workspace when it holds too many', () => {
    const memory = new FormsMemory({ forms: 5, workspaces: 2 });
    memory.create('a', 'A');
    memory.create('b', 'B');
    memory.replace('a', 'form_1', { fields: [{ name: 'x', type: 'text', required: false }] });
    memory.create('c', 'C');
    expect(memory.list('b')).toEqual([]);
    expect(memory.read('a', 'form_1')?.definition.fields).toHaveLength(1);
    expect(memory.list('c')).toHaveLength(1);
    // Reading is no write: it keeps no workspace.
    memory.list('a');
    memory.create('d', 'D');
    expect(memory.list('a')).toEqual([]);
    expect(memory.list('c')).toHaveLength(1);
  });
});

describe('the tools that compile DSL and validate a definition', () => {
  it('answer the definition and the problems, and save nothing', async () => {
    const caller = callerOf([{ id: 'forms-pure', role: 'viewer', scopes: ['svc.forms.read'] }]);
    const ws = { workspace_id: 'forms-pure' };
    const compiled = await callTool(caller, 'compile_dsl', {
      ...ws,
      dsl: '# contact\nemail: email required',
    });
    expect(compiled.structuredContent).toEqual({
      definition: { fields: [{ name: 'email', type: 'email', required: true }] },
      problems: [],
    });
    const broken = await callTool(caller, 'compile_dsl', { ...ws, dsl: 'email email' });
    expect(broken.structuredContent).toEqual({
      definition: null,
      problems: ['Line 1: write one field as name: type, or name: type required.'],
    });
    const definition = { fields: [{ name: 'x', type: 'colour' }] };
    expect((await callTool(caller, 'validate_definition', { ...ws, definition })).structuredContent).toEqual({
      valid: false,
      problems: ['Field 1 needs a type: one of text, number, email, date, checkbox.'],
    });
    const valid = { fields: [{ name: 'x', type: 'date' }] };
    expect(
      (await callTool(caller, 'validate_definition', { ...ws, definition: valid })).structuredContent,
    ).toEqual({
      valid: true,
      problems: [],
    });
    expect((await callTool(caller, 'list_forms', ws)).structuredContent).toEqual({ forms: [] });
  });
});
