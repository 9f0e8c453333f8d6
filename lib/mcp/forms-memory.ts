import type { FormDefinition } from './form-definition.ts';

/**
 * The reference server's forms and drafts, held per workspace in the function's memory (contract
 * §19): enough that a read tool reads what a write tool wrote on the same instance, never a
 * store. Another instance, or this one after a cold start, holds none. Bounded: a workspace holds
 * at most `forms` forms, and the memory at most `workspaces` workspaces, the least recently
 * written forgotten first.
 */

/** A form and its draft. */
export interface StoredForm {
  form_id: string;
  title: string;
  definition: FormDefinition;
}

interface WorkspaceForms {
  /** The number of the next form: ids are `form_1`, `form_2`… in each workspace, deterministic. */
  next: number;
  forms: Map<string, StoredForm>;
}

/** How much the memory holds. */
export interface FormsLimits {
  /** Forms per workspace. @default 50 */
  forms: number;
  /** Workspaces held at once. @default 1000 */
  workspaces: number;
}

export const FORMS_LIMITS: FormsLimits = { forms: 50, workspaces: 1000 };

export class FormsMemory {
  readonly #workspaces = new Map<string, WorkspaceForms>();
  readonly #limits: FormsLimits;

  constructor(limits: FormsLimits = FORMS_LIMITS) {
    this.#limits = limits;
  }

  /** The workspace's forms, oldest first. */
  list(workspaceId: string): StoredForm[] {
    return [...(this.#workspaces.get(workspaceId)?.forms.values() ?? [])];
  }

  read(workspaceId: string, formId: string): StoredForm | undefined {
    return this.#workspaces.get(workspaceId)?.forms.get(formId);
  }

  /** A new form with an empty draft, or `full` when the workspace holds as many as it may. */
  create(workspaceId: string, title: string): StoredForm | 'full' {
    const held = this.#written(workspaceId);
    if (held.forms.size >= this.#limits.forms) return 'full';
    const form = { form_id: `form_${held.next}`, title, definition: { fields: [] } };
    held.next += 1;
    held.forms.set(form.form_id, form);
    return form;
  }

  /** The form with its draft replaced wholesale, or undefined when the workspace has no such form. */
  replace(workspaceId: string, formId: string, definition: FormDefinition): StoredForm | undefined {
    const form = this.read(workspaceId, formId);
    if (!form) return undefined;
    this.#written(workspaceId);
    form.definition = definition;
    return form;
  }

  /** The workspace's forms, made the most recently written; the least recent forgotten when over the limit. */
  #written(workspaceId: string): WorkspaceForms {
    const held = this.#workspaces.get(workspaceId) ?? { next: 1, forms: new Map() };
    this.#workspaces.delete(workspaceId);
    this.#workspaces.set(workspaceId, held);
    for (const oldest of this.#workspaces.keys()) {
      if (this.#workspaces.size <= this.#limits.workspaces) break;
      this.#workspaces.delete(oldest);
    }
    return held;
  }
}

/** The process's forms: every request's server reads and writes these. */
export const FORMS = new FormsMemory();
