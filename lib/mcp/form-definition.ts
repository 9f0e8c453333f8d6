import * as z from 'zod';

/**
 * The form definitions of the reference server's stand-in tools (contract §19): a list of
 * fields, the checks a definition must pass, a tiny DSL that compiles to one, and a preview.
 * Pure and bounded: the form service itself is not built here, only enough for the tools to
 * exercise authorization with something real to read and write.
 */

/** The types a field may have: each an HTML input type, so a preview needs no mapping. */
export const FIELD_TYPES = ['text', 'number', 'email', 'date', 'checkbox'] as const;
/** The most fields a definition holds. */
export const MAX_FIELDS = 50;
/** The most problems reported for one definition or DSL text: enough to fix, never a flood. */
export const MAX_PROBLEMS = 20;
/** A field's name: lower case letters, digits and `_`, starting with a letter. */
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export const FormFieldSchema = z.object({
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
});
export const FormDefinitionSchema = z.object({ fields: z.array(FormFieldSchema) });
/** One field of a form. */
export type FormField = z.infer<typeof FormFieldSchema>;
/** What a draft holds: its fields, in order. */
export type FormDefinition = z.infer<typeof FormDefinitionSchema>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const TYPES_LISTED = FIELD_TYPES.join(', ');

/** The problems of one field (1-based `n`), given the names seen before it. */
function fieldProblems(field: unknown, n: number, seen: Set<string>): string[] {
  if (!isObject(field)) return [`Field ${n} is not an object with a name and a type.`];
  const problems: string[] = [];
  const { name, type, required } = field;
  if (typeof name !== 'string' || !FIELD_NAME.test(name))
    problems.push(
      `Field ${n} needs a name of lower case letters, digits and _, starting with a letter (at most 64).`,
    );
  else if (seen.has(name)) problems.push(`Field ${n} repeats the name ${name}.`);
  else seen.add(name);
  if (!FIELD_TYPES.includes(type as never)) problems.push(`Field ${n} needs a type: one of ${TYPES_LISTED}.`);
  if (required !== undefined && typeof required !== 'boolean')
    problems.push(`Field ${n} has a required that is not true or false.`);
  return problems;
}

/**
 * A definition checked: the definition as stored (fields with `name`, `type` and `required`, any
 * other property dropped), or the problems a person fixes, at most `MAX_PROBLEMS`.
 */
export function checkDefinition(value: unknown): { definition: FormDefinition } | { problems: string[] } {
  if (!isObject(value) || !Array.isArray(value.fields))
    return { problems: ['A definition is an object with a list of fields.'] };
  const { fields } = value;
  if (fields.length > MAX_FIELDS)
    return { problems: [`A definition has at most ${MAX_FIELDS} fields; this one has ${fields.length}.`] };
  const seen = new Set<string>();
  const problems = fields.flatMap((field, i) => fieldProblems(field, i + 1, seen));
  if (problems.length > 0) return { problems: problems.slice(0, MAX_PROBLEMS) };
  const checked = fields as FormField[];
  return {
    definition: {
      fields: checked.map(({ name, type, required }) => ({ name, type, required: required ?? false })),
    },
  };
}

/** One line of the DSL: `name: type`, optionally followed by `required`. */
const DSL_LINE = /^([A-Za-z0-9_]{1,64})\s*:\s*([A-Za-z]{1,32})(\s+required)?$/;

/**
 * A definition compiled from the DSL: one field a line (`email: email required`), blank lines
 * and lines starting with `#` skipped. The definition, or null with the problems by line.
 */
export function compileDsl(dsl: string): { definition: FormDefinition | null; problems: string[] } {
  const fields: { name: string; type: string; required: boolean }[] = [];
  const problems: string[] = [];
  dsl.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = DSL_LINE.exec(line);
    if (!match) problems.push(`Line ${i + 1}: write one field as name: type, or name: type required.`);
    else
      fields.push({ name: match[1] as string, type: match[2] as string, required: match[3] !== undefined });
  });
  if (problems.length > 0) return { definition: null, problems: problems.slice(0, MAX_PROBLEMS) };
  const checked = checkDefinition({ fields });
  return 'definition' in checked
    ? { definition: checked.definition, problems: [] }
    : { definition: null, problems: checked.problems };
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** A draft as HTML a person can look at: a form with one labelled input per field. */
export function formPreview(title: string, definition: FormDefinition): string {
  const inputs = definition.fields.map(
    (f) =>
      `  <label>${f.name} <input name="${f.name}" type="${f.type}"${f.required ? ' required' : ''}></label>`,
  );
  return [
    `<form aria-label="${escapeHtml(title)}">`,
    `  <h1>${escapeHtml(title)}</h1>`,
    ...inputs,
    '</form>',
  ].join('\n');
}
