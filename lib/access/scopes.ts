/**
 * The scope/role table of contract §4, written once. Both the create use case and the key
 * verifier ask it.
 */
/** A person's roles in a workspace (the memberships table), from least to most privileged. */
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;
/** One of `ROLES`: a person's role in a workspace. */
export type Role = (typeof ROLES)[number];

/** The scopes a key may hold (contract §4), in table order. */
export const SCOPES = ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'] as const;
/** One of `SCOPES`: what a key lets an MCP client do in a workspace. */
export type Scope = (typeof SCOPES)[number];

export const SCOPE_RULES: Record<Scope, { minimumRole: Role; implies: readonly Scope[] }> = {
  'svc.forms.read': { minimumRole: 'viewer', implies: [] },
  'svc.forms.write': { minimumRole: 'editor', implies: ['svc.forms.read'] },
  'svc.forms.generate': { minimumRole: 'editor', implies: ['svc.forms.read'] },
};

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

export function roleAllows(role: Role, scope: Scope): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(SCOPE_RULES[scope].minimumRole);
}

/** A key's scopes plus the ones they imply, in table order. */
export function expandScopes(scopes: readonly Scope[]): Scope[] {
  const granted = new Set<Scope>();
  for (const scope of scopes) {
    granted.add(scope);
    for (const implied of SCOPE_RULES[scope].implies) granted.add(implied);
  }
  return SCOPES.filter((s) => granted.has(s));
}

/** A key's effective access in one workspace on a call. */
export interface WorkspaceAccess {
  /** The workspace's id. */
  id: string;
  /** The key's creator's current role in the workspace. */
  role: Role;
  /**
   * The scopes the key holds there: its own and those they imply, as far as `role` and the
   * workspace's policy allow.
   */
  scopes: Scope[];
  /**
   * The tools the credential may call there (contract §19): present when the verifier knows them
   * (it has the MCP server's catalogue, or the credential or the policy lists tools); absent, the
   * server's own scope checks decide.
   */
  tools?: string[];
}

/**
 * Effective access of a key on a call: for each of the key's workspaces where the creator is
 * currently a member, the (expanded) scopes the current role allows, within those the workspace's
 * policy left the key there (`policyScopes`, contract §19). Workspaces without a membership, or
 * where nothing is allowed, are dropped.
 */
export function effectiveAccess(
  workspaceIds: readonly string[],
  scopes: readonly Scope[],
  memberships: ReadonlyMap<string, Role>,
  policyScopes: (workspaceId: string) => readonly Scope[] | undefined = () => undefined,
): WorkspaceAccess[] {
  const expanded = expandScopes(scopes);
  const access: WorkspaceAccess[] = [];
  for (const id of workspaceIds) {
    const role = memberships.get(id);
    // Stryker disable next-line ConditionalExpression: equivalent, no role allows no scope, so the workspace is dropped below anyway
    if (!role) continue;
    const narrowed = policyScopes(id);
    const allowed = expanded.filter((s) => roleAllows(role, s) && (!narrowed || narrowed.includes(s)));
    if (allowed.length > 0) access.push({ id, role, scopes: allowed });
  }
  return access;
}

export interface AccessProblem {
  workspaceId: string;
  reason: 'not_a_member' | 'role_too_low';
  role?: Role;
  deniedScopes?: Scope[];
}

/** Why a user may not create a key for these workspaces and scopes; empty when they may. */
export function accessProblems(
  workspaceIds: readonly string[],
  scopes: readonly Scope[],
  memberships: ReadonlyMap<string, Role>,
): AccessProblem[] {
  const problems: AccessProblem[] = [];
  for (const workspaceId of workspaceIds) {
    const role = memberships.get(workspaceId);
    if (!role) {
      problems.push({ workspaceId, reason: 'not_a_member' });
      continue;
    }
    const deniedScopes = scopes.filter((s) => !roleAllows(role, s));
    if (deniedScopes.length > 0) problems.push({ workspaceId, reason: 'role_too_low', role, deniedScopes });
  }
  return problems;
}
