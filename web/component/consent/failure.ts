import { ProblemError } from '../../client/index.ts';
import type { Workspace } from '../shared/dialogs.ts';
import { describe, shortId } from '../shared/format.ts';
import { LIMIT_FIELDS } from '../shared/limits.ts';

/** What went wrong with an answer: a sentence, the API's per-workspace sentences and the rest. */
export interface ConsentFailure {
  summary: string;
  /** By workspace id: shown under that workspace. */
  byWorkspace: ReadonlyMap<string, readonly string[]>;
  /** Sentences that concern no listed workspace (the lifetime, a tool, a workspace id typed in). */
  other: readonly string[];
  /** A workspace was refused (the field of ids is marked when the page lists no workspaces). */
  workspaces: boolean;
  /** The lifetime was refused. */
  lifetime: boolean;
  /** A tool was refused. */
  tools: boolean;
  /** A limit was refused: its message goes under its field too. */
  limits: boolean;
  /** The API's answer, whose field messages the form shows at their fields. */
  error: unknown;
}

/** A limit's field as the form labels it, before the API's sentence of it. */
const labelOf = (path: string) => {
  const field = LIMIT_FIELDS.find((f) => path === `limits.${f.field}`);
  return field ? `${field.label}: ` : '';
};

const UUID = /[0-9a-f]{8}-[0-9a-f-]{27}/gi;

/**
 * The API's refusal of an answer: each `workspace_ids.<i>` sentence under its workspace (of
 * `workspaceIds`, the ids sent), named; the rest in the alert.
 */
export function failureOf(
  err: unknown,
  workspaceIds: readonly string[],
  workspaces: readonly Workspace[] | undefined,
): ConsentFailure {
  if (!(err instanceof ProblemError)) {
    return {
      summary: describe(err, 'Couldn’t answer the app'),
      byWorkspace: new Map(),
      other: [],
      workspaces: false,
      lifetime: false,
      tools: false,
      limits: false,
      error: err,
    };
  }
  const names = new Map((workspaces ?? []).map((w) => [w.id, w.name]));
  const named = (text: string) => text.replace(UUID, (id) => names.get(id.toLowerCase()) ?? shortId(id));
  const listed = new Set((workspaces ?? []).map((w) => w.id));
  const byWorkspace = new Map<string, string[]>();
  const other: string[] = [];
  for (const problem of err.errors) {
    const index = /^workspace_ids\.(\d+)$/.exec(problem.path)?.[1];
    const id = index === undefined ? undefined : workspaceIds[Number(index)];
    if (id && listed.has(id)) byWorkspace.set(id, [...(byWorkspace.get(id) ?? []), named(problem.message)]);
    else
      other.push(
        problem.path === 'expires_in_days'
          ? `Access expires after: ${problem.message}.`
          : `${labelOf(problem.path)}${named(problem.message)}`,
      );
  }
  const summary =
    err.code === 'workspace_access_denied'
      ? 'You can’t give this access in some of the workspaces you chose.'
      : err.code === 'workspace_policy_denied'
        ? 'A workspace’s policy doesn’t allow this access.'
        : err.detail || err.title;
  return {
    summary: byWorkspace.size ? `${summary} See the notes under the workspaces.` : summary,
    byWorkspace,
    other,
    workspaces: err.errors.some((e) => e.path.startsWith('workspace_ids')),
    lifetime: err.errors.some((e) => e.path === 'expires_in_days'),
    tools: err.errors.some((e) => e.path.startsWith('tools')),
    limits: err.errors.some((e) => e.path.startsWith('limits.')),
    error: err,
  };
}
