import { describe, expect, it } from 'vitest';
import type { ToolCatalogue } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import type { WorkspacePolicy } from '#lib/workspace-policy/rules';
import type { GovernanceDeps } from '#lib/workspaces/admin';
import { getPolicy, putPolicy } from '#lib/workspaces/policy';
import type { StoredPolicy, WorkspaceStore } from '#lib/workspaces/port';

/**
 * Setting a workspace's policy (contract §12, §19; lib/workspaces/policy.ts) over a store in
 * memory: what is stored and shown (every kind and every tool stored as no rule), a PUT that
 * changes nothing writes nothing whatever the order of its lists, and any one field changed is a
 * new version.
 */

const WS = 'w1';
const NOW = new Date('2026-12-06T10:00:00.000Z');

const base: WorkspacePolicy = {
  mcp_access: 'enabled',
  allowed_scopes: ['svc.forms.read', 'svc.forms.write'],
  max_expiry_days: 30,
  oauth_clients: ['a.example', 'b.example'],
  credential_kinds: ['api_key', 'oauth_grant'],
  allowed_tools: ['list_forms', 'read_draft'],
  max_calls_per_minute: 10,
  max_calls_per_day: 100,
};

/** An administrator's deps over a store holding `stored`, recording each policy written. */
function world(stored?: StoredPolicy, tools?: ToolCatalogue, answer: 'done' | 'changed' = 'done') {
  const written: StoredPolicy[] = [];
  const workspaces = {
    policy: async () => stored,
    listKeys: async () => ({ items: [], hasMore: false }),
    putPolicy: async (_ws: string, next: StoredPolicy) => {
      written.push(next);
      return answer;
    },
  } as unknown as WorkspaceStore;
  const deps = {
    memberships: { rolesFor: async () => new Map([[WS, 'owner']]) },
    workspaces,
    tools,
    now: () => NOW,
  } as unknown as GovernanceDeps;
  const put = (policy: WorkspacePolicy) => putPolicy(deps, { userId: 'admin', workspaceId: WS, policy });
  return { deps, written, put };
}

const storedAs = (policy: WorkspacePolicy): StoredPolicy => ({
  ...policy,
  updated_at: '2026-12-01T00:00:00.000Z',
  updated_by: 'someone',
  version: 3,
});

describe('what a PUT stores and answers', () => {
  it('every kind and every tool as no rule; caps and clients as given; the next version', async () => {
    const w = world();
    const answer = await w.put({
      ...base,
      credential_kinds: ['oauth_grant', 'enterprise_grant', 'api_key'],
      allowed_tools: null,
      max_calls_per_minute: null,
      max_calls_per_day: null,
    });
    expect(w.written).toEqual([
      {
        mcp_access: 'enabled',
        allowed_scopes: ['svc.forms.read', 'svc.forms.write'],
        max_expiry_days: 30,
        oauth_clients: ['a.example', 'b.example'],
        updated_at: NOW.toISOString(),
        updated_by: 'admin',
        version: 1,
      },
    ]);
    expect(answer).toMatchObject({
      credential_kinds: ['api_key', 'oauth_grant', 'enterprise_grant'],
      allowed_tools: null,
      max_calls_per_minute: null,
      max_calls_per_day: null,
      affected_keys: 0,
    });
  });

  it('the kinds it admits in one order, its tools and caps when it has them', async () => {
    const w = world(storedAs(base));
    await w.put({ ...base, credential_kinds: ['oauth_grant', 'api_key'], max_expiry_days: 7 });
    expect(w.written[0]).toMatchObject({
      credential_kinds: ['api_key', 'oauth_grant'],
      allowed_tools: ['list_forms', 'read_draft'],
      max_calls_per_minute: 10,
      max_calls_per_day: 100,
      version: 4,
    });
  });

  it('a stored policy without the later fields is shown with their defaults', async () => {
    const w = world(
      storedAs({ mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null }),
    );
    expect(await getPolicy(w.deps, 'admin', WS)).toEqual({
      mcp_access: 'disabled',
      allowed_scopes: ['svc.forms.read'],
      max_expiry_days: null,
      oauth_clients: 'any',
      credential_kinds: ['api_key', 'oauth_grant', 'enterprise_grant'],
      allowed_tools: null,
      max_calls_per_minute: null,
      max_calls_per_day: null,
      updated_at: '2026-12-01T00:00:00.000Z',
      updated_by: 'someone',
    });
  });

  it('allowed_tools naming a tool of another catalogue is refused against the deployment’s', async () => {
    const w = world(undefined, [{ name: 'search', scope: 'svc.forms.read' }]);
    const err = await w.put({ ...base, allowed_tools: ['search', 'list_forms'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).detail).toBe('The request failed validation.');
    expect((err as AppError).errors).toEqual([
      { input: 'allowed_tools', index: 1, message: 'list_forms is not a tool of this MCP server' },
    ]);
    expect(w.written).toEqual([]);
  });
});

describe('a PUT that changes nothing', () => {
  it('writes nothing, whatever the order of its lists and however its defaults are written', async () => {
    const w = world(storedAs(base));
    const same = await w.put({
      ...base,
      allowed_scopes: ['svc.forms.write', 'svc.forms.read'],
      oauth_clients: ['b.example', 'a.example'],
      credential_kinds: ['oauth_grant', 'api_key'],
      allowed_tools: ['read_draft', 'list_forms'],
    });
    expect(same).toMatchObject({ updated_by: 'someone', affected_keys: 0 });
    const open = storedAs({
      mcp_access: 'enabled',
      allowed_scopes: ['svc.forms.read'],
      max_expiry_days: null,
    });
    const defaults = world(open);
    await defaults.put({
      mcp_access: 'enabled',
      allowed_scopes: ['svc.forms.read'],
      max_expiry_days: null,
      oauth_clients: 'any',
      credential_kinds: ['enterprise_grant', 'api_key', 'oauth_grant'],
      allowed_tools: null,
      max_calls_per_minute: null,
      max_calls_per_day: null,
    });
    expect([...w.written, ...defaults.written]).toEqual([]);
  });

  it('any one field changed is a new version', async () => {
    const changes: Partial<WorkspacePolicy>[] = [
      { mcp_access: 'disabled' },
      { max_expiry_days: 31 },
      { max_expiry_days: null },
      { allowed_scopes: ['svc.forms.read'] },
      { allowed_scopes: ['svc.forms.read', 'svc.forms.generate'] },
      { oauth_clients: ['a.example'] },
      { oauth_clients: ['a.example', 'c.example'] },
      { oauth_clients: 'verified' },
      { oauth_clients: 'any' },
      { credential_kinds: ['api_key'] },
      { credential_kinds: ['api_key', 'enterprise_grant'] },
      { allowed_tools: ['list_forms'] },
      { allowed_tools: ['list_forms', 'compile_dsl'] },
      { allowed_tools: null },
      { max_calls_per_minute: 11 },
      { max_calls_per_minute: null },
      { max_calls_per_day: 99 },
      { max_calls_per_day: null },
    ];
    for (const change of changes) {
      const w = world(storedAs(base));
      await w.put({ ...base, ...change });
      expect(w.written, JSON.stringify(change)).toHaveLength(1);
    }
    // A list of domains is never `any` or `verified`, whichever side it is on and whatever its length.
    for (const [before, after] of [
      ['any', ['a.example', 'b.example', 'c.example']],
      [['a', 'n', 'y'], 'any'],
      ['verified', ['v', 'e', 'r', 'i', 'f', 'i', 'e', 'd']],
    ] as const) {
      const w = world(storedAs({ ...base, oauth_clients: before as WorkspacePolicy['oauth_clients'] }));
      await w.put({ ...base, oauth_clients: after as WorkspacePolicy['oauth_clients'] });
      expect(w.written, JSON.stringify([before, after])).toHaveLength(1);
    }
    const verified = world(storedAs({ ...base, oauth_clients: 'verified' }));
    await verified.put({ ...base, oauth_clients: 'any' });
    const none = world(storedAs({ ...base, allowed_tools: null }));
    await none.put({ ...base, allowed_tools: [] });
    expect([verified.written.length, none.written.length]).toEqual([1, 1]);
  });
});

describe('a PUT that keeps losing to concurrent ones', () => {
  it('tries three times, then answers 409 conflict', async () => {
    const w = world(storedAs(base), undefined, 'changed');
    const err = await w.put({ ...base, mcp_access: 'disabled' }).catch((e: unknown) => e);
    expect([(err as AppError).code, (err as AppError).detail]).toEqual([
      'conflict',
      'The policy was changed by a concurrent request; retry.',
    ]);
    expect(w.written).toHaveLength(3);
  });
});
