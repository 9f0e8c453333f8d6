import { CREDENTIAL_KINDS } from '#lib/access/credential-kinds';
import { sameRules } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import { adminActor, policyChanged, SYSTEM } from '#lib/events/model';
import { policyClientOf } from '#lib/keys/model';
import { catalogueOf } from '#lib/keys/service';
import {
  DEFAULT_POLICY,
  narrowedScopes,
  policyCutsOff,
  rulesOf,
  type WorkspacePolicy,
} from '#lib/workspace-policy/rules';
import { type CutOffDeps, type GovernanceDeps, requireAdmin, requireMember } from './admin.ts';
import { cutOffMany } from './keys.ts';
import type { StoredPolicy, WorkspaceKey } from './port.ts';

/** A policy as the API shows it: who set it and when (null while the default applies). */
export interface PolicyView extends WorkspacePolicy {
  updated_at: string | null;
  updated_by: string | null;
}

/** The kinds a policy admits, in one order (absent: every kind). */
const kindsOf = (p: WorkspacePolicy) =>
  CREDENTIAL_KINDS.filter((kind) => (p.credential_kinds ?? CREDENTIAL_KINDS).includes(kind));

const view = (stored: StoredPolicy | undefined): PolicyView =>
  stored
    ? {
        mcp_access: stored.mcp_access,
        allowed_scopes: stored.allowed_scopes,
        max_expiry_days: stored.max_expiry_days,
        oauth_clients: stored.oauth_clients ?? 'any',
        credential_kinds: kindsOf(stored),
        allowed_tools: stored.allowed_tools ?? null,
        max_calls_per_minute: stored.max_calls_per_minute ?? null,
        max_calls_per_day: stored.max_calls_per_day ?? null,
        updated_at: stored.updated_at,
        updated_by: stored.updated_by,
      }
    : {
        ...DEFAULT_POLICY,
        allowed_scopes: [...DEFAULT_POLICY.allowed_scopes],
        credential_kinds: [...CREDENTIAL_KINDS],
        updated_at: null,
        updated_by: null,
      };

const policyOf = (p: WorkspacePolicy): WorkspacePolicy => {
  const kinds = kindsOf(p);
  return {
    mcp_access: p.mcp_access,
    allowed_scopes: p.allowed_scopes,
    max_expiry_days: p.max_expiry_days,
    oauth_clients: p.oauth_clients ?? 'any',
    // Every kind is stored as no rule, so that a kind added later is admitted too.
    ...(kinds.length < CREDENTIAL_KINDS.length && { credential_kinds: kinds }),
    // Every tool is stored as no rule, so that a tool added to the catalogue later is allowed too.
    ...(p.allowed_tools && { allowed_tools: p.allowed_tools }),
    ...(p.max_calls_per_minute && { max_calls_per_minute: p.max_calls_per_minute }),
    ...(p.max_calls_per_day && { max_calls_per_day: p.max_calls_per_day }),
  };
};

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((s) => b.includes(s));

const sameClients = (a: WorkspacePolicy['oauth_clients'], b: WorkspacePolicy['oauth_clients']) => {
  // Stryker disable next-line StringLiteral: equivalent, every policy compared went through policyOf, which always sets oauth_clients
  const x = a ?? 'any';
  // Stryker disable next-line StringLiteral: equivalent, as above
  const y = b ?? 'any';
  return typeof x === 'string' || typeof y === 'string' ? x === y : sameSet(x, y);
};

const samePolicy = (a: WorkspacePolicy, b: WorkspacePolicy) =>
  a.mcp_access === b.mcp_access &&
  a.max_expiry_days === b.max_expiry_days &&
  sameSet(a.allowed_scopes, b.allowed_scopes) &&
  sameClients(a.oauth_clients, b.oauth_clients) &&
  sameSet(kindsOf(a), kindsOf(b)) &&
  sameTools(a.allowed_tools, b.allowed_tools) &&
  (a.max_calls_per_minute ?? null) === (b.max_calls_per_minute ?? null) &&
  (a.max_calls_per_day ?? null) === (b.max_calls_per_day ?? null);

const sameTools = (a: readonly string[] | null | undefined, b: readonly string[] | null | undefined) =>
  a && b ? sameSet(a, b) : !a === !b;

/** Keys (and grants, whose app the policy may no longer allow) a page of the workspace's active ones holds that `policy` cuts off. */
const refusedBy = (policy: WorkspacePolicy, workspaceId: string, page: WorkspaceKey[]) =>
  page.filter(({ record }) => policyCutsOff(workspaceId, policy, record.scopes, policyClientOf(record)));

/** What `policy` leaves a credential in the workspace (contract §19), when it differs from what it holds. */
function rulesToWrite(policy: WorkspacePolicy, workspaceId: string, { record }: WorkspaceKey) {
  const rules = rulesOf(policy, narrowedScopes(record.scopes, policyClientOf(record)));
  const held = record.workspace_rules?.[workspaceId];
  return sameRules(rules, held) ? undefined : { record, rules };
}

/** Every active key of the workspace, page by page (cost grows with the workspace: a rare admin action). */
async function* activeKeys(deps: CutOffDeps, workspaceId: string): AsyncGenerator<WorkspaceKey[]> {
  let after: { created_at: string; id: string } | undefined;
  for (;;) {
    const page = await deps.workspaces.listKeys(workspaceId, {
      limit: 100,
      after,
      status: 'active',
      now: deps.now(),
    });
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, an empty page holds no key to count, cut off or write
    if (page.items.length > 0) yield page.items;
    const last = page.items.at(-1)?.entry;
    if (!page.hasMore || !last) return;
    after = { created_at: last.created_at, id: last.key_id };
  }
}

/** A policy's `allowed_tools` must name tools of the catalogue: 400 naming each that is not. */
function assertCatalogueTools(deps: GovernanceDeps, tools: readonly string[] | null | undefined) {
  const names = catalogueOf(deps).map((t) => t.name);
  const unknown = (tools ?? []).flatMap((name, index) => (names.includes(name) ? [] : [{ name, index }]));
  if (unknown.length > 0)
    throw new AppError('validation_failed', 'The request failed validation.', {
      errors: unknown.map(({ name, index }) => ({
        input: 'allowed_tools',
        index,
        message: `${name} is not a tool of this MCP server`,
      })),
    });
}

/** GET …/policy: any current member may read it. */
export async function getPolicy(
  deps: GovernanceDeps,
  userId: string,
  workspaceId: string,
): Promise<PolicyView> {
  await requireMember(deps, userId, workspaceId);
  return view(await deps.workspaces.policy(workspaceId));
}

/**
 * PUT …/policy (contract §12): stores the policy with its `workspace.policy_changed` event and
 * answers at once with the number of active keys it cuts off; the cut-offs themselves fan out
 * from the event (`applyWorkspacePolicy`). A PUT that changes nothing writes nothing.
 */
export async function putPolicy(
  deps: GovernanceDeps,
  input: { userId: string; workspaceId: string; policy: WorkspacePolicy },
): Promise<PolicyView & { affected_keys: number }> {
  const { userId, workspaceId } = input;
  await requireAdmin(deps, userId, workspaceId);
  assertCatalogueTools(deps, input.policy.allowed_tools);
  const after = policyOf(input.policy);
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await deps.workspaces.policy(workspaceId);
    const before = stored ? policyOf(stored) : DEFAULT_POLICY;
    let affected = 0;
    for await (const page of activeKeys(deps, workspaceId))
      affected += refusedBy(after, workspaceId, page).length;
    if (stored && samePolicy(before, after)) return { ...view(stored), affected_keys: affected };
    const now = deps.now();
    const next: StoredPolicy = {
      ...after,
      updated_at: now.toISOString(),
      updated_by: userId,
      version: (stored?.version ?? 0) + 1,
    };
    const event = policyChanged(workspaceId, before, after, adminActor(userId), now);
    if ((await deps.workspaces.putPolicy(workspaceId, next, stored?.version, event)) === 'done')
      return { ...view(next), affected_keys: affected };
  }
  throw new AppError('conflict', 'The policy was changed by a concurrent request; retry.');
}

type RulesChange = NonNullable<ReturnType<typeof rulesToWrite>>;

/**
 * The policy's rules written onto each credential that stays (contract §19), several at once:
 * one conditional update each, only where they changed, so a redelivered event writes nothing.
 */
async function writeRules(
  deps: CutOffDeps,
  workspaceId: string,
  changes: RulesChange[],
  concurrency: number,
) {
  const worker = async () => {
    for (let next = changes.shift(); next; next = changes.shift())
      await deps.workspaces.setRules(next.record, workspaceId, next.rules);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Transactions of cut-offs the fan-out runs at once. */
export const FAN_OUT_CONCURRENCY = 4;

/**
 * The policy's effect on existing keys (contract §12): every active key of the workspace that the
 * current policy refuses is cut off from it (`reason: policy`, actor `system`), each with its
 * event, many keys per transaction and several transactions at once. Idempotent: run again (a
 * redelivered event), it finds nothing left. Returns the number of keys it cut off.
 */
export async function applyWorkspacePolicy(
  deps: CutOffDeps,
  workspaceId: string,
  concurrency = FAN_OUT_CONCURRENCY,
): Promise<number> {
  const stored = await deps.workspaces.policy(workspaceId);
  if (!stored) return 0;
  const refused: WorkspaceKey[] = [];
  const rewritten: RulesChange[] = [];
  for await (const page of activeKeys(deps, workspaceId)) {
    const cut = refusedBy(stored, workspaceId, page);
    refused.push(...cut);
    for (const key of page) {
      const change = !cut.includes(key) && rulesToWrite(stored, workspaceId, key);
      if (change) rewritten.push(change);
    }
  }
  await writeRules(deps, workspaceId, rewritten, concurrency);
  // Chunks of one transaction's worth (at most 25 keys), shared by the workers.
  const chunks: WorkspaceKey[][] = [];
  // Stryker disable next-line EqualityOperator: equivalent for `<=`, a chunk past the end is empty and cuts nothing (`>=` never ends: killed as a timeout)
  for (let i = 0; i < refused.length; i += 25) chunks.push(refused.slice(i, i + 25));
  let cut = 0;
  const worker = async () => {
    for (let keys = chunks.shift(); keys; keys = chunks.shift()) {
      // Awaited before it is added: `cut += await …` would read `cut` before the other workers add.
      const done = await cutOffMany(deps, { workspaceId, keys, reason: 'policy', actor: SYSTEM });
      cut += done;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return cut;
}
