import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { ROLES, SCOPES } from '#lib/access/scopes';
import type { McpCaller } from './caller.ts';
import {
  checkDefinition,
  compileDsl,
  FIELD_TYPES,
  FormDefinitionSchema,
  formPreview,
} from './form-definition.ts';
import { FORMS, FORMS_LIMITS } from './forms-memory.ts';
import { callableTools, toolsInWorkspace } from './tool-access.ts';
import { answered, catalogueTool, failed, guarded, presented } from './tool-results.ts';

/**
 * The reference server's tools (contract §19): the catalogue's eight, each a stand-in that
 * exercises authorization (the form service itself is not built). Forms and drafts live in the
 * function's memory (`FORMS`). Every tool but `list_workspaces` takes a `workspace_id` and checks
 * the caller's access there before it runs; a server registers only the tools the credential may
 * call in at least one workspace, so `tools/list` shows no other.
 */

const workspaceId = z.string().min(1).max(128).describe('The workspace, as list_workspaces names it.');
const formId = z.string().min(1).max(64).describe('The form, as list_forms or create_form names it.');
const FormSummary = z.object({ form_id: z.string(), title: z.string() });
const Problems = z.array(z.string());
/** A form id as a sentence may show it: what this server's ids look like, else no echo. */
const shownForm = (id: string) => (/^[A-Za-z0-9_-]{1,64}$/.test(id) ? `form ${id}` : 'that form');
const noForm = (workspace: string, form: string) => `Workspace ${workspace} has no ${shownForm(form)}.`;

const WorkspaceSummary = z.object({
  workspace_id: z.string(),
  role: z.enum(ROLES),
  scopes: z.array(z.enum(SCOPES)),
  tools: z.array(z.string()),
});
const DefinitionInput = z.object({
  fields: z.array(
    z.object({ name: z.string(), type: z.enum(FIELD_TYPES), required: z.boolean().optional() }),
  ),
});

/**
 * Each tool as MCP describes it, built once a process: a request's server only registers them
 * (building the schemas on every request would be most of a call's CPU).
 */
const CONFIGS = {
  list_workspaces: {
    ...presented(catalogueTool('list_workspaces')),
    description: 'The workspaces this credential can reach, with the role, scopes and tools it has in each.',
    inputSchema: z.object({}),
    outputSchema: z.object({ workspaces: z.array(WorkspaceSummary) }),
  },
  list_forms: {
    ...presented(catalogueTool('list_forms')),
    description: 'The forms of a workspace, oldest first.',
    inputSchema: z.object({ workspace_id: workspaceId }),
    outputSchema: z.object({ forms: z.array(FormSummary) }),
  },
  create_form: {
    ...presented(catalogueTool('create_form')),
    description: 'Creates a form with an empty draft in a workspace.',
    inputSchema: z.object({ workspace_id: workspaceId, title: z.string().min(1).max(200) }),
    outputSchema: FormSummary,
  },
  read_draft: {
    ...presented(catalogueTool('read_draft')),
    description: 'The draft of a form: its fields, in order.',
    inputSchema: z.object({ workspace_id: workspaceId, form_id: formId }),
    outputSchema: FormSummary.extend({ definition: FormDefinitionSchema }),
  },
  replace_draft: {
    ...presented(catalogueTool('replace_draft')),
    description: 'Replaces the draft of a form wholesale with a definition: the fields it had are gone.',
    inputSchema: z.object({ workspace_id: workspaceId, form_id: formId, definition: DefinitionInput }),
    outputSchema: z.object({ form_id: z.string(), fields: z.number().int() }),
  },
  compile_dsl: {
    ...presented(catalogueTool('compile_dsl')),
    description:
      'Compiles form DSL to a definition: one field a line, as name: type or name: type required ' +
      `(types: ${FIELD_TYPES.join(', ')}); lines starting with # are comments.`,
    inputSchema: z.object({ workspace_id: workspaceId, dsl: z.string().max(10_000) }),
    outputSchema: z.object({ definition: FormDefinitionSchema.nullable(), problems: Problems }),
  },
  validate_definition: {
    ...presented(catalogueTool('validate_definition')),
    description: 'Checks a form definition and names its problems; nothing is saved.',
    inputSchema: z.object({ workspace_id: workspaceId, definition: z.unknown() }),
    outputSchema: z.object({ valid: z.boolean(), problems: Problems }),
  },
  generate_form_preview: {
    ...presented(catalogueTool('generate_form_preview')),
    description: 'A preview of a form’s draft as HTML.',
    inputSchema: z.object({ workspace_id: workspaceId, form_id: formId }),
    outputSchema: z.object({ form_id: z.string(), html: z.string() }),
  },
};

type Register = (server: McpServer, caller: McpCaller) => void;

const listWorkspaces: Register = (server, caller) =>
  server.registerTool('list_workspaces', CONFIGS.list_workspaces, async () => {
    const workspaces = caller.workspaces.map((w) => ({
      workspace_id: w.id,
      role: w.role,
      scopes: w.scopes,
      tools: toolsInWorkspace(w),
    }));
    return answered({ workspaces }, JSON.stringify(workspaces));
  });

const listForms: Register = (server, caller) =>
  server.registerTool(
    'list_forms',
    CONFIGS.list_forms,
    guarded(caller, catalogueTool('list_forms'), ({ workspace_id }) =>
      answered({ forms: FORMS.list(workspace_id).map(({ form_id, title }) => ({ form_id, title })) }),
    ),
  );

const createForm: Register = (server, caller) =>
  server.registerTool(
    'create_form',
    CONFIGS.create_form,
    guarded(caller, catalogueTool('create_form'), ({ workspace_id, title }) => {
      const form = FORMS.create(workspace_id, title);
      if (form === 'full')
        return failed(
          `Workspace ${workspace_id} holds ${FORMS_LIMITS.forms} forms, the most this server keeps.`,
        );
      return answered({ form_id: form.form_id, title: form.title });
    }),
  );

const readDraft: Register = (server, caller) =>
  server.registerTool(
    'read_draft',
    CONFIGS.read_draft,
    guarded(caller, catalogueTool('read_draft'), ({ workspace_id, form_id }) => {
      const form = FORMS.read(workspace_id, form_id);
      return form ? answered({ ...form }) : failed(noForm(workspace_id, form_id));
    }),
  );

const replaceDraft: Register = (server, caller) =>
  server.registerTool(
    'replace_draft',
    CONFIGS.replace_draft,
    guarded(caller, catalogueTool('replace_draft'), ({ workspace_id, form_id, definition }) => {
      if (!FORMS.read(workspace_id, form_id)) return failed(noForm(workspace_id, form_id));
      const checked = checkDefinition(definition);
      if ('problems' in checked) return failed(`The definition was not saved: ${checked.problems.join(' ')}`);
      FORMS.replace(workspace_id, form_id, checked.definition);
      return answered({ form_id, fields: checked.definition.fields.length });
    }),
  );

const compile: Register = (server, caller) =>
  server.registerTool(
    'compile_dsl',
    CONFIGS.compile_dsl,
    guarded(caller, catalogueTool('compile_dsl'), ({ dsl }) => answered(compileDsl(dsl))),
  );

const validate: Register = (server, caller) =>
  server.registerTool(
    'validate_definition',
    CONFIGS.validate_definition,
    guarded(caller, catalogueTool('validate_definition'), ({ definition }) => {
      const checked = checkDefinition(definition);
      const problems = 'problems' in checked ? checked.problems : [];
      return answered({ valid: problems.length === 0, problems });
    }),
  );

const preview: Register = (server, caller) =>
  server.registerTool(
    'generate_form_preview',
    CONFIGS.generate_form_preview,
    guarded(caller, catalogueTool('generate_form_preview'), ({ workspace_id, form_id }) => {
      const form = FORMS.read(workspace_id, form_id);
      if (!form) return failed(noForm(workspace_id, form_id));
      const html = formPreview(form.title, form.definition);
      return answered({ form_id, html }, html);
    }),
  );

/** Each tool of the catalogue, by name, and how a server registers it. */
const REGISTRATIONS: Record<string, Register> = {
  list_workspaces: listWorkspaces,
  list_forms: listForms,
  read_draft: readDraft,
  compile_dsl: compile,
  validate_definition: validate,
  create_form: createForm,
  replace_draft: replaceDraft,
  generate_form_preview: preview,
};

/** Registers on `server` the tools the caller may call in at least one workspace, in catalogue order. */
export function registerReferenceTools(server: McpServer, caller: McpCaller): void {
  for (const name of callableTools(caller)) REGISTRATIONS[name]?.(server, caller);
}
