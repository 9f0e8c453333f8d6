import { describe, expect, it } from 'vitest';
import type { Role } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import type { KeyRecord } from '#lib/keys/model';
import { countedUse } from '#lib/keys/usage';
import type { VerifyResult } from '#lib/keys/verify';
import { OTHER_TOOL, type Tally, toolOf, type UsageDay } from '#lib/usage/model';
import { bucketsOf, usageRange } from '#lib/usage/report';
import type { GovernanceDeps } from '#lib/workspaces/admin';
import type { WorkspaceKey } from '#lib/workspaces/port';
import { MAX_WORKSPACE_CREDENTIALS, workspaceUsage } from '#lib/workspaces/usage';

/** The views' rules over stand-in ports (the same on DynamoDB Local: test/integration/usage.test.ts). */

const NOW = new Date('2026-11-28T10:00:00.000Z');
const WS = '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';

const tally = (calls: number, extra: Partial<Tally> = {}): Tally => ({
  calls,
  refused: {},
  tools: {},
  ...extra,
});
const dayOf = (id: string, t: Tally): UsageDay => ({
  credential_id: id,
  kind: 'api_key',
  day: '2026-11-27',
  instance: 'i',
  hours: { '09': t },
  calls: t.calls,
});

/** A workspace of `records`, newest first, with `days` of usage, seen by its owner. */
function world(records: Partial<KeyRecord>[], days: UsageDay[]) {
  const keys: WorkspaceKey[] = records.map((r, i) => ({
    entry: {
      key_id: r.id as string,
      created_at: `2026-11-${String(27 - (i % 20)).padStart(2, '0')}T00:00:0${i % 10}Z`,
    },
    record: { name: 'k', user_id: 'bo', ...r },
  })) as unknown as WorkspaceKey[];
  const roles = new Map<string, Role>([['owner-ana', 'owner']]);
  const deps = {
    now: () => NOW,
    memberships: {
      rolesFor: async (user: string) => new Map(roles.has(user) ? [[WS, roles.get(user)]] : []),
    },
    workspaces: {
      listKeys: async (_ws: string, q: { limit: number; after?: { id: string } }) => {
        const start = q.after ? keys.findIndex((k) => k.entry.key_id === q.after?.id) + 1 : 0;
        const items = keys.slice(start, start + q.limit);
        return { items, hasMore: start + q.limit < keys.length };
      },
    },
    usage: { daysOf: async (id: string) => days.filter((d) => d.credential_id === id) },
  } as unknown as GovernanceDeps;
  return (input: { groupBy?: 'credential' | 'client' | 'tool'; from?: string; to?: string } = {}) =>
    workspaceUsage(deps, { userId: 'owner-ana', workspaceId: WS, ...input });
}

describe('the administrators’ view', () => {
  it('leaves out what did nothing, names a grant’s client, and sorts the revoked still presented', async () => {
    const grant = {
      id: 'g',
      kind: 'oauth_grant' as const,
      grant: { client: { id: 'https://c.example/m', name: 'Cursor' } },
    } as unknown as Partial<KeyRecord>;
    const view = world(
      [{ id: 'idle' }, grant, { id: 'old', revoked_at: '2026-11-20T00:00:00.000Z' }, { id: 'older' }],
      [
        dayOf('g', tally(8, { tools: { list_forms: 8 } })),
        dayOf('old', tally(2, { refused: { revoked: 2 } })),
        dayOf('older', tally(5, { refused: { revoked: 5 } })),
      ],
    );
    const byCredential = await view();
    expect(byCredential.groups.map((g) => [g.key, g.calls])).toEqual([
      ['g', 8],
      ['older', 5],
      ['old', 2],
    ]);
    expect(
      byCredential.revoked_still_presented.map((r) => [r.credential_id, r.presented, r.revoked_at]),
    ).toEqual([
      ['older', 5, null],
      ['old', 2, '2026-11-20T00:00:00.000Z'],
    ]);
    const byClient = await view({ groupBy: 'client' });
    expect(byClient.groups).toEqual([
      expect.objectContaining({ key: 'https://c.example/m', client_name: 'Cursor', calls: 8 }),
      expect.objectContaining({ key: 'api_key', calls: 7 }),
    ]);
    expect(byClient.groups[1]).not.toHaveProperty('client_name');
    const byTool = await view({ groupBy: 'tool' });
    expect(byTool.groups).toEqual([{ key: 'list_forms', calls: 8, refused: {}, tools: { list_forms: 8 } }]);
  });

  it('reads every page of the workspace, up to its newest 1,000 credentials', async () => {
    const records = Array.from({ length: MAX_WORKSPACE_CREDENTIALS + 50 }, (_, i) => ({ id: `k${i}` }));
    const days = records.map((r) => dayOf(r.id, tally(1)));
    const view = await world(records, days)();
    expect(view.total.calls).toBe(MAX_WORKSPACE_CREDENTIALS);
    expect(view.groups).toHaveLength(100);
  });

  it('answers the range it was asked, by day', async () => {
    const view = await world([], [])({ from: '2026-11-01T05:00:00Z', to: '2026-11-03T01:00:00Z' });
    expect([view.from, view.to]).toEqual(['2026-11-01T00:00:00.000Z', '2026-11-04T00:00:00.000Z']);
  });
});

describe('what a verification counts as', () => {
  const valid = (kind: 'api_key' | 'oauth'): VerifyResult => ({
    outcome: 'valid',
    kind,
    user_id: 'ana',
    key_id: 'k1',
    ...(kind === 'oauth' && { client_id: 'c' }),
    expires_at: '2026-12-01T00:00:00.000Z',
    scopes: [],
    workspaces: [],
  });
  it('the kind the verification read, allowed or refused; nothing for what names no stored credential', () => {
    const call = { method: 'tools/call', name: 'get_form' };
    expect(countedUse({ result: valid('api_key'), kind: 'api_key' }, call)).toMatchObject({
      kind: 'api_key',
      tool: 'get_form',
    });
    expect(countedUse({ result: valid('oauth'), kind: 'oauth_grant' }, call)).toMatchObject({
      kind: 'oauth_grant',
      client_id: 'c',
    });
    expect(
      countedUse({ result: { outcome: 'revoked', key_id: 'g' }, kind: 'enterprise_grant' }, call),
    ).toEqual({
      credential_id: 'g',
      kind: 'enterprise_grant',
      outcome: 'revoked',
    });
    expect(countedUse({ result: { outcome: 'no_access', key_id: 'k' }, kind: 'api_key' }, call)?.kind).toBe(
      'api_key',
    );
    expect(countedUse({ result: { outcome: 'not_found' } }, call)).toBeUndefined();
    expect(countedUse({ result: { outcome: 'revoked', key_id: 'g' } }, call)).toBeUndefined();
  });

  it('a tools/call without a name as (other)', () => {
    expect(toolOf({ method: 'tools/call' })).toBe(OTHER_TOOL);
  });
});

describe('ranges at their edges', () => {
  const refusal = (query: Parameters<typeof usageRange>[0]) => {
    try {
      usageRange(query, NOW);
      return undefined;
    } catch (err) {
      return err instanceof AppError ? { detail: err.detail, errors: err.errors } : err;
    }
  };
  it('names `to` when it is unreadable, refuses an empty range, takes exactly the longest', () => {
    expect(refusal({ to: 'soon' })).toEqual({
      detail: 'The request failed validation.',
      errors: [{ path: 'to', message: 'must be an ISO 8601 date-time' }],
    });
    expect(refusal({ from: '2026-11-20T00:00:00Z', to: '2026-11-20T00:00:00Z' })).toMatchObject({
      errors: [{ path: 'from', message: 'must be before `to`' }],
    });
    expect(
      refusal({ granularity: 'hour', from: '2026-11-14T00:00:00Z', to: '2026-11-28T00:00:00Z' }),
    ).toBeUndefined();
    expect(refusal({ from: '2026-08-28T00:00:00Z', to: '2026-11-28T00:00:00Z' })).toBeUndefined();
  });

  it('ignores what a stored day holds outside the range', () => {
    const range = usageRange(
      { from: '2026-11-28T00:00:00Z', to: '2026-11-28T10:00:00Z', granularity: 'hour' },
      NOW,
    );
    const buckets = bucketsOf(
      [{ ...dayOf('k', tally(3)), day: '2026-11-28', hours: { '09': tally(3), '23': tally(4) } }],
      range,
    );
    expect(buckets.map((b) => b.calls)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
  });
});
