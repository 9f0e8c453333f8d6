import { describe, expect, it } from 'vitest';
import type { WorkspaceRules } from '#lib/access/tools';
import type { KeyRecord } from '#lib/keys/model';
import type { CutOffDeps } from '#lib/workspaces/admin';
import { applyWorkspacePolicy, FAN_OUT_CONCURRENCY } from '#lib/workspaces/policy';
import type { StoredPolicy, WorkspaceKey, WorkspaceStore } from '#lib/workspaces/port';

/**
 * The policy fan-out's rules (contract §19; lib/workspaces/policy.ts) over a workspace store in
 * memory: every page of the workspace's active keys is read, each credential whose rules differ
 * is written once, several at a time, and nothing for one that holds them already.
 */

const WS = 'w1';
const NOW = new Date('2026-12-06T10:00:00.000Z');

const keyOf = (n: number, rules?: WorkspaceRules): WorkspaceKey => {
  const id = `k${String(n).padStart(4, '0')}`;
  const created_at = new Date(NOW.getTime() - n * 1000).toISOString();
  const record = {
    id,
    user_id: 'u',
    lineage_id: id,
    name: id,
    workspace_ids: [WS],
    scopes: ['svc.forms.read'],
    digest: 'd',
    pepper_version: 1,
    key_hint: 'h',
    created_at,
    expires_at: '2027-01-01T00:00:00.000Z',
    ...(rules && { workspace_rules: { [WS]: rules } }),
  } as KeyRecord;
  return {
    record,
    entry: {
      workspace_id: WS,
      key_id: id,
      user_id: 'u',
      lineage_id: id,
      created_at,
      expires_at: record.expires_at,
      scopes: record.scopes,
      workspace_access: 'active',
    },
  };
};

const stored: StoredPolicy = {
  mcp_access: 'enabled',
  allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
  max_expiry_days: null,
  allowed_tools: ['list_forms'],
  updated_at: NOW.toISOString(),
  updated_by: 'admin',
  version: 2,
};

/** A store holding `keys` newest first and `policy` (null: none), recording the pages and writes asked of it. */
function store(keys: WorkspaceKey[], policy: StoredPolicy | null = stored) {
  const pages: (string | undefined)[] = [];
  const writes: { id: string; rules: WorkspaceRules | undefined }[] = [];
  let writing = 0;
  let mostAtOnce = 0;
  const cutOffs: number[] = [];
  const workspaces = {
    cutOff: async (cut: { steps: unknown[] }) => {
      cutOffs.push(cut.steps.length);
      return { kind: 'done' };
    },
    policy: async () => policy ?? undefined,
    listKeys: async (_ws: string, query: { limit: number; after?: { created_at: string; id: string } }) => {
      pages.push(query.after?.id);
      const from = query.after ? keys.findIndex((k) => k.record.id === query.after?.id) + 1 : 0;
      return { items: keys.slice(from, from + query.limit), hasMore: from + query.limit < keys.length };
    },
    setRules: async (record: KeyRecord, _ws: string, rules: WorkspaceRules | undefined) => {
      writing++;
      mostAtOnce = Math.max(mostAtOnce, writing);
      await new Promise((resolve) => setTimeout(resolve, 1));
      writes.push({ id: record.id, rules });
      writing--;
    },
  } as unknown as WorkspaceStore;
  const deps = { workspaces, keys: {}, now: () => NOW } as unknown as CutOffDeps;
  return { deps, pages, writes, cutOffs, mostAtOnce: () => mostAtOnce };
}

describe('the policy fan-out', () => {
  it('reads every page of the workspace’s active keys, each after the last key of the one before', async () => {
    const keys = Array.from({ length: 205 }, (_, i) => keyOf(i));
    const s = store(keys);
    expect(await applyWorkspacePolicy(s.deps, WS)).toBe(0);
    expect(s.pages).toEqual([undefined, 'k0099', 'k0199']);
    expect(s.writes).toHaveLength(205);
    expect(new Set(s.writes.map((w) => w.id)).size).toBe(205);
  });

  it('writes only the credentials whose rules differ, four at a time by default', async () => {
    const keys = Array.from({ length: 12 }, (_, i) =>
      keyOf(i, i % 3 === 0 ? { tools: ['list_forms'] } : undefined),
    );
    const s = store(keys);
    await applyWorkspacePolicy(s.deps, WS);
    expect(s.writes.map((w) => w.id).sort()).toEqual(
      keys.filter((_, i) => i % 3 !== 0).map((k) => k.record.id),
    );
    expect(s.writes.every((w) => JSON.stringify(w.rules) === '{"tools":["list_forms"]}')).toBe(true);
    expect(FAN_OUT_CONCURRENCY).toBe(4);
    expect(s.mostAtOnce()).toBe(4);
    const one = store(Array.from({ length: 5 }, (_, i) => keyOf(i)));
    await applyWorkspacePolicy(one.deps, WS, 1);
    expect(one.mostAtOnce()).toBe(1);
  });

  it('removes the rules a credential holds once the policy restricts nothing; a workspace without a policy has nothing to do', async () => {
    const open = { ...stored, allowed_tools: null };
    const s = store([keyOf(1, { tools: ['list_forms'] }), keyOf(2)], open);
    await applyWorkspacePolicy(s.deps, WS);
    expect(s.writes).toEqual([{ id: 'k0001', rules: undefined }]);
    const none = store([keyOf(1, { tools: ['list_forms'] })], null);
    expect(await applyWorkspacePolicy(none.deps, WS)).toBe(0);
    expect([none.pages, none.writes]).toEqual([[], []]);
  });

  it('cuts off the keys it refuses, each once, in transactions of at most 25 keys', async () => {
    const s = store(
      Array.from({ length: 30 }, (_, i) => keyOf(i)),
      { ...stored, mcp_access: 'disabled' },
    );
    expect(await applyWorkspacePolicy(s.deps, WS)).toBe(30);
    expect(s.cutOffs.reduce((a, b) => a + b, 0)).toBe(30);
    expect(Math.max(...s.cutOffs)).toBeLessThanOrEqual(25);
    expect(s.writes).toEqual([]);
  });

  it('an empty workspace reads one page and writes nothing', async () => {
    const s = store([]);
    expect(await applyWorkspacePolicy(s.deps, WS)).toBe(0);
    expect([s.pages, s.writes]).toEqual([[undefined], []]);
  });
});
