import { ROLES, SCOPE_RULES, SCOPES } from '#lib/access/scopes';
import type { Scope } from '../../client/index.ts';

/** What each scope lets an MCP client do, in the words of the create form. */
const SCOPE_TEXT = {
  'svc.forms.read': { label: 'Read', does: 'List workspaces and forms, read drafts' },
  'svc.forms.write': { label: 'Write', does: 'Create forms and replace drafts' },
  'svc.forms.generate': { label: 'Generate', does: 'AI-generated form previews' },
} as const satisfies Record<Scope, { label: string; does: string }>;

export interface ScopeChoice {
  scope: Scope;
  label: string;
  /** What it allows, and the role it needs when that is more than the lowest. */
  hint: string;
}

/**
 * The scopes offered on create, in the API's order. The role each needs comes from the one
 * scope/role table (`lib/access/scopes.ts`), the table the API itself enforces.
 */
export const SCOPE_CHOICES: readonly ScopeChoice[] = SCOPES.map((scope) => {
  const { minimumRole } = SCOPE_RULES[scope];
  const needs = minimumRole === ROLES[0] ? '' : ` (needs ${minimumRole})`;
  return { scope, label: SCOPE_TEXT[scope].label, hint: `${SCOPE_TEXT[scope].does}${needs}.` };
});
