import { CREDENTIAL_KINDS, type CredentialKind } from '#lib/access/credential-kinds';
import { expandScopes, SCOPES, type Scope } from '#lib/access/scopes';
import type { RulesByWorkspace, WorkspaceRules } from '#lib/access/tools';
import { AppError } from '#lib/errors';

/**
 * The workspace policy (contract §12) and its rules, pure: what a policy refuses, and how it
 * bounds a key's lifetime. Create and rotate (lib/keys/) and workspace governance and the policy
 * fan-out (lib/workspaces/) all ask these, so they depend on no domain folder but access/.
 */

/** A workspace's policy (contract §12); `max_expiry_days: null` is the deployment maximum. */
export interface WorkspacePolicy {
  mcp_access: 'enabled' | 'disabled';
  allowed_scopes: Scope[];
  max_expiry_days: number | null;
  /**
   * Which OAuth apps may be granted access (contract §15): `any`, `verified` (only apps with a
   * metadata document) or the domains allowed (each a metadata document's host). Keys are not
   * concerned. Absent: `any`.
   */
  oauth_clients?: OAuthClientsRule;
  /**
   * Which kinds of credential may reach the workspace (contract §17): API keys, consent grants,
   * enterprise grants; never none (that is `mcp_access: disabled`). Absent: every kind, those
   * added later included.
   */
  credential_kinds?: CredentialKind[];
  /**
   * The tools AI clients may call in the workspace (contract §19): it narrows, never refuses; a
   * credential may call there only its own tools that this allows. Absent or null: every tool.
   */
  allowed_tools?: string[] | null;
  /** At most this many calls per UTC minute for each credential reaching the workspace (contract §19); null: none. */
  max_calls_per_minute?: number | null;
  /** At most this many calls per UTC day for each credential reaching the workspace; null: none. */
  max_calls_per_day?: number | null;
}

export type OAuthClientsRule = 'any' | 'verified' | string[];

/**
 * What a policy knows of an OAuth app: the host of its metadata document, or null (registered
 * dynamically), and whether the person's identity provider decided the grant (an enterprise grant).
 */
export interface PolicyClient {
  verified_domain: string | null;
  enterprise?: boolean;
}

/** A workspace without a policy of its own: enabled, every scope, the deployment maximum. */
export const DEFAULT_POLICY: WorkspacePolicy = {
  mcp_access: 'enabled',
  allowed_scopes: [...SCOPES],
  max_expiry_days: null,
  oauth_clients: 'any',
  credential_kinds: [...CREDENTIAL_KINDS],
  allowed_tools: null,
  max_calls_per_minute: null,
  max_calls_per_day: null,
};

/** Reads the policies of workspaces; a workspace without one is absent from the map. */
export interface PolicyReader {
  policiesFor(workspaceIds: readonly string[]): Promise<Map<string, WorkspacePolicy>>;
}

export type PolicyProblem =
  | { workspaceId: string; reason: 'disabled' }
  | { workspaceId: string; reason: 'scopes'; scopes: Scope[] }
  | { workspaceId: string; reason: 'client' }
  | { workspaceId: string; reason: 'kind'; kind: CredentialKind };

/** What a refusal of each kind calls the credentials it refuses. */
const KIND_NAMES: Record<CredentialKind, string> = {
  api_key: 'API keys',
  oauth_grant: 'OAuth apps',
  enterprise_grant: 'apps your organisation’s sign-in approves',
};

/** The kind of credential a policy check is about: a key, or a grant to `client`. */
const kindOf = (client: PolicyClient | undefined): CredentialKind =>
  client ? (client.enterprise ? 'enterprise_grant' : 'oauth_grant') : 'api_key';

/** Whether the `oauth_clients` rule admits an app. */
export function clientAllowed(rule: OAuthClientsRule | undefined, client: PolicyClient): boolean {
  if (rule === undefined || rule === 'any') return true;
  if (client.verified_domain === null) return false;
  return rule === 'verified' || rule.includes(client.verified_domain.toLowerCase());
}

/** Why `policy` refuses a key (or, with `client`, an OAuth grant) holding `scopes`, if it does. */
export function policyProblem(
  workspaceId: string,
  policy: WorkspacePolicy,
  scopes: readonly Scope[],
  client?: PolicyClient,
): PolicyProblem | undefined {
  if (policy.mcp_access === 'disabled') return { workspaceId, reason: 'disabled' };
  const kind = kindOf(client);
  if (policy.credential_kinds && !policy.credential_kinds.includes(kind))
    return { workspaceId, reason: 'kind', kind };
  const refused = scopes.filter((s) => !policy.allowed_scopes.includes(s));
  if (refused.length > 0) return { workspaceId, reason: 'scopes', scopes: refused };
  return client && !clientAllowed(policy.oauth_clients, client)
    ? { workspaceId, reason: 'client' }
    : undefined;
}

/** A refusal as the API's field error says it, naming the workspace and the rule. */
function problemMessage(p: PolicyProblem): string {
  switch (p.reason) {
    case 'disabled':
      return `workspace ${p.workspaceId} does not allow MCP access`;
    case 'kind':
      return `workspace ${p.workspaceId} does not allow ${KIND_NAMES[p.kind]} (its policy limits which kinds of credential may reach it)`;
    case 'client':
      return `workspace ${p.workspaceId} does not allow this app (its policy limits which OAuth apps may connect)`;
    case 'scopes':
      return `workspace ${p.workspaceId} does not allow ${p.scopes.join(', ')}`;
  }
}

/** The smallest `max_expiry_days` among the workspaces' policies, if any sets one. */
export function policyMaxDays(
  workspaceIds: readonly string[],
  policies: ReadonlyMap<string, WorkspacePolicy>,
): number | undefined {
  const caps = workspaceIds
    .map((id) => policies.get(id)?.max_expiry_days)
    .filter((days): days is number => typeof days === 'number');
  return caps.length > 0 ? Math.min(...caps) : undefined;
}

/**
 * Create and rotate obey the policy of every workspace they name: a disabled workspace or a
 * scope it does not allow is 403 `workspace_policy_denied`, each workspace and reason listed.
 */
export function assertPolicyAllows(
  workspaceIds: readonly string[],
  scopes: readonly Scope[],
  policies: ReadonlyMap<string, WorkspacePolicy>,
  client?: PolicyClient,
): void {
  const problems = workspaceIds
    .map((id) => policyProblem(id, policies.get(id) ?? DEFAULT_POLICY, scopes, client))
    .filter((p): p is PolicyProblem => p !== undefined);
  if (problems.length === 0) return;
  throw new AppError(
    'workspace_policy_denied',
    `A workspace’s policy does not allow this ${client ? 'app' : 'key'}.`,
    {
      errors: problems.map((p) => ({
        input: 'workspaceIds',
        index: workspaceIds.indexOf(p.workspaceId),
        message: problemMessage(p),
      })),
    },
  );
}

/**
 * The lifetime of a new key: the requested days, at most the smallest policy maximum (400 naming
 * it when above), by default the smaller of the deployment default and that maximum.
 */
export function policyExpiryDays(
  requested: number | undefined,
  defaultDays: number,
  cap: number | undefined,
) {
  if (cap === undefined) return requested ?? defaultDays;
  // Stryker disable next-line ConditionalExpression: equivalent for `requested !== undefined`, undefined is never above a cap (the comparison is killed by test/unit/workspace-policy-rules.test.ts)
  if (requested !== undefined && requested > cap) {
    throw new AppError('validation_failed', 'The request failed validation.', {
      errors: [{ input: 'expiresInDays', message: `must be at most ${cap} (the workspace policy maximum)` }],
    });
  }
  return requested ?? Math.min(defaultDays, cap);
}

/**
 * What a workspace's policy leaves a credential there (contract §19), written onto it: the tools
 * it allows, and with `narrowed` (the credential's scopes, for a credential the policy narrows
 * rather than refuses) the scopes it allows when fewer. Undefined when the policy restricts nothing.
 */
export function rulesOf(
  policy: WorkspacePolicy | undefined,
  narrowed?: readonly Scope[],
): WorkspaceRules | undefined {
  const tools = policy?.allowed_tools ?? undefined;
  const scopes = narrowed && policy ? narrowed.filter((s) => policy.allowed_scopes.includes(s)) : undefined;
  // Stryker disable next-line ConditionalExpression: equivalent for `narrowed !== undefined`, `scopes` is set only when `narrowed` is (the line's other conditions are killed by test/unit/workspace-policy-tools.test.ts)
  const narrows = scopes !== undefined && narrowed !== undefined && scopes.length < narrowed.length;
  const perMinute = policy?.max_calls_per_minute ?? undefined;
  const perDay = policy?.max_calls_per_day ?? undefined;
  if (!tools && !narrows && !perMinute && !perDay) return undefined;
  return {
    ...(tools && { tools: [...tools] }),
    ...(narrows && { scopes }),
    ...(perMinute && { per_minute: perMinute }),
    ...(perDay && { per_day: perDay }),
  };
}

/** Every workspace's rules for a credential (those that restrict nothing absent). */
export function rulesByWorkspace(
  workspaceIds: readonly string[],
  policies: ReadonlyMap<string, WorkspacePolicy>,
  narrowed?: readonly Scope[],
): RulesByWorkspace {
  const rules: RulesByWorkspace = {};
  for (const id of workspaceIds) {
    const r = rulesOf(policies.get(id), narrowed);
    if (r) rules[id] = r;
  }
  return rules;
}

/**
 * Whether a policy cuts a credential off from its workspace (contract §12), or leaves it there
 * narrowed (§19): an enterprise grant that holds a scope the policy does not allow stays with the
 * scopes it allows, when one remains and the policy admits its app (decisions.md: the identity
 * provider decided it, and no person chose its scopes); any other refusal cuts off.
 */
export function policyCutsOff(
  workspaceId: string,
  policy: WorkspacePolicy,
  scopes: readonly Scope[],
  client?: PolicyClient,
): boolean {
  const problem = policyProblem(workspaceId, policy, scopes, client);
  if (!problem) return false;
  if (problem.reason !== 'scopes' || !client?.enterprise) return true;
  const left = expandScopes(scopes).filter((s) => policy.allowed_scopes.includes(s));
  return left.length === 0 || !clientAllowed(policy.oauth_clients, client);
}

/** The scopes a policy narrows a credential to, when it is one the policy narrows rather than cuts off. */
export const narrowedScopes = (scopes: readonly Scope[], client?: PolicyClient): Scope[] | undefined =>
  client?.enterprise ? expandScopes(scopes) : undefined;
