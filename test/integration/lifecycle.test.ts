import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { createKey, listKeys, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember, tamperedCursor } from '#test/support/fixtures';

const DAY = 86_400_000;
let tables: TestTables;
const clock = manualClock();
let rt: Runtime;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
});
afterAll(() => tables.drop());

const userWithWorkspace = (role: 'viewer' | 'editor' | 'owner' = 'editor') => newMember(tables, role);

async function create(
  userId: string,
  workspaceId: string,
  extra: { name?: string; expiresInDays?: number } = {},
) {
  return createKey(rt.service, {
    userId,
    name: extra.name ?? 'laptop',
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.read', 'svc.forms.write'],
    expiresInDays: extra.expiresInDays,
  });
}

const errorCode = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return 'ok';
};

describe('create', () => {
  it('stores only a digest, never the key, and returns metadata with a hint', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const { apiKey, metadata } = await create(userId, workspaceId);
    const stored = await rt.service.keys.get(metadata.id);
    expect(stored?.digest).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(stored?.pepper_version).toBe(1);
    expect(JSON.stringify(await tables.scanKeys())).not.toContain(apiKey.slice(11, 60));
    expect(metadata).toMatchObject({
      status: 'active',
      key_hint: `svc_mcp_v1_…${apiKey.slice(-4)}`,
      workspace_ids: [workspaceId],
      last_used_at: null,
      revoked_at: null,
      rotated_from: null,
      replaced_by: null,
    });
    expect(Date.parse(metadata.expires_at) - Date.parse(metadata.created_at)).toBe(30 * DAY);
  });

  it('refuses an expiry above the deployment maximum instead of clamping it', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    await expect(create(userId, workspaceId, { expiresInDays: 91 })).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ input: 'expiresInDays', message: expect.stringContaining('90') }],
    });
    const { metadata } = await create(userId, workspaceId, { expiresInDays: 90 });
    expect(Date.parse(metadata.expires_at) - Date.parse(metadata.created_at)).toBe(90 * DAY);
  });

  it('refuses workspaces where the caller is not a member or whose role is too low, writing nothing', async () => {
    const { userId, workspaceId } = await userWithWorkspace('viewer');
    const stranger = randomUUID();
    const before = (await tables.scanKeys()).length;
    const err = await createKey(rt.service, {
      userId,
      name: 'x',
      workspaceIds: [workspaceId, stranger],
      scopes: ['svc.forms.write'],
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'workspace_access_denied' });
    expect((err as AppError).errors).toEqual([
      { input: 'workspaceIds', index: 0, message: expect.stringContaining('role viewer') },
      { input: 'workspaceIds', index: 1, message: expect.stringContaining('not a member') },
    ]);
    expect((await tables.scanKeys()).length).toBe(before);
  });

  it('enforces the active-key cap, and a revoked or expired key frees its slot', async () => {
    const capped = tables.runtime({ now: clock.now, settings: { maxActiveKeys: 3 } });
    const { userId, workspaceId } = await userWithWorkspace();
    const make = (days = 30) =>
      createKey(capped.service, {
        userId,
        name: 'k',
        workspaceIds: [workspaceId],
        scopes: ['svc.forms.read'],
        expiresInDays: days,
      });
    const first = await make();
    await make(1);
    await make();
    expect(await errorCode(make())).toBe('key_limit_reached');
    await revokeKey(capped.service, userId, first.metadata.id);
    await make();
    expect(await errorCode(make())).toBe('key_limit_reached');
    clock.advance(DAY + 1);
    await make();
    expect(await errorCode(make())).toBe('key_limit_reached');
  });

  it('never exceeds the cap under 12 concurrent creates', async () => {
    const capped = tables.runtime({ now: clock.now, settings: { maxActiveKeys: 5 } });
    const { userId, workspaceId } = await userWithWorkspace();
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () =>
        errorCode(
          createKey(capped.service, {
            userId,
            name: 'k',
            workspaceIds: [workspaceId],
            scopes: ['svc.forms.read'],
          }),
        ),
      ),
    );
    const created = outcomes.filter((o) => o === 'ok').length;
    expect(created).toBeLessThanOrEqual(5);
    expect(outcomes.every((o) => ['ok', 'key_limit_reached', 'conflict'].includes(o))).toBe(true);
    const listed = await listKeys(rt.service, { userId, limit: 100 });
    expect(listed.data).toHaveLength(created);
  });
});

describe('list', () => {
  it('pages newest first across pages with a cursor bound to its user', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await create(userId, workspaceId, { name: `k${i}` })).metadata.id);
      clock.advance(1000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listKeys(rt.service, { userId, limit: 3, cursor });
      seen.push(...page.data.map((m) => m.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const first = await listKeys(rt.service, { userId, limit: 3 });
    const other = await userWithWorkspace();
    expect(
      await errorCode(
        listKeys(rt.service, { userId: other.userId, limit: 3, cursor: first.next_cursor ?? '' }),
      ),
    ).toBe('invalid_cursor');
    const tampered = tamperedCursor(first.next_cursor ?? '');
    expect(await errorCode(listKeys(rt.service, { userId, limit: 3, cursor: tampered }))).toBe(
      'invalid_cursor',
    );
    expect(await errorCode(listKeys(rt.service, { userId, limit: 3, cursor: 'garbage' }))).toBe(
      'invalid_cursor',
    );
  });

  it('returns no next cursor when the last page is exactly full', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    for (let i = 0; i < 4; i++) await create(userId, workspaceId);
    const page = await listKeys(rt.service, { userId, limit: 4 });
    expect(page.data).toHaveLength(4);
    expect(page.next_cursor).toBeNull();
  });

  it('filters by derived status across pages', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const shortLived = await create(userId, workspaceId, { expiresInDays: 1 });
    const revoked = await create(userId, workspaceId);
    await revokeKey(rt.service, userId, revoked.metadata.id);
    const active: string[] = [];
    for (let i = 0; i < 5; i++) active.push((await create(userId, workspaceId)).metadata.id);
    clock.advance(DAY);
    const collect = async (status: 'active' | 'revoked' | 'expired') => {
      const out: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listKeys(rt.service, { userId, limit: 2, status, cursor });
        expect(page.data.every((m) => m.status === status)).toBe(true);
        out.push(...page.data.map((m) => m.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return out;
    };
    expect((await collect('active')).sort()).toEqual([...active].sort());
    expect(await collect('revoked')).toEqual([revoked.metadata.id]);
    expect(await collect('expired')).toEqual([shortLived.metadata.id]);
  });
});

describe('rotate', () => {
  it('copies name, workspaces, scopes and the remaining lifetime and revokes the old key in the same write', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId, { name: 'desktop', expiresInDays: 10 });
    clock.advance(3 * DAY);
    const rotated = await rotateKey(rt.service, userId, created.metadata.id);
    expect(rotated.apiKey).not.toBe(created.apiKey);
    expect(rotated.metadata).toMatchObject({
      name: 'desktop',
      workspace_ids: [workspaceId],
      scopes: ['svc.forms.read', 'svc.forms.write'],
      expires_at: created.metadata.expires_at,
      rotated_from: created.metadata.id,
      status: 'active',
    });
    expect(rotated.revokedKey).toMatchObject({
      id: created.metadata.id,
      status: 'revoked',
      replaced_by: rotated.metadata.id,
      revoked_at: clock.now().toISOString(),
    });
    const old = await rt.service.keys.get(created.metadata.id);
    expect(old?.revoked_at).toBe(clock.now().toISOString());
    expect(await rt.verify(created.apiKey)).toEqual({ outcome: 'revoked', key_id: created.metadata.id });
    expect((await rt.verify(rotated.apiKey)).outcome).toBe('valid');
  });

  it('caps the rotated lifetime at now + the deployment max', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId, { expiresInDays: 90 });
    const stricter = tables.runtime({ now: clock.now, settings: { maxExpiryDays: 7, defaultExpiryDays: 7 } });
    const rotated = await rotateKey(stricter.service, userId, created.metadata.id);
    expect(Date.parse(rotated.metadata.expires_at) - clock.now().getTime()).toBe(7 * DAY);
  });

  it('answers key_revoked for a revoked key and key_expired for an expired one', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const revoked = await create(userId, workspaceId);
    await revokeKey(rt.service, userId, revoked.metadata.id);
    expect(await errorCode(rotateKey(rt.service, userId, revoked.metadata.id))).toBe('key_revoked');
    const expiring = await create(userId, workspaceId, { expiresInDays: 1 });
    clock.advance(DAY);
    expect(await errorCode(rotateKey(rt.service, userId, expiring.metadata.id))).toBe('key_expired');
  });

  it('answers key_revoked with replaced_by when rotating a key that a rotation already replaced', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    const rotated = await rotateKey(rt.service, userId, created.metadata.id);
    const err = await rotateKey(rt.service, userId, created.metadata.id).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'key_revoked', extensions: { replaced_by: rotated.metadata.id } });
  });

  it('answers not_found for an unknown key and for another user’s key', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    expect(await errorCode(rotateKey(rt.service, 'someone-else', created.metadata.id))).toBe('not_found');
    expect(await errorCode(rotateKey(rt.service, userId, randomUUID()))).toBe('not_found');
  });

  it('20 concurrent rotations of one key: exactly one succeeds, the rest conflict or see it revoked, one key of the lineage is active', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => errorCode(rotateKey(rt.service, userId, created.metadata.id))),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    // A loser that read the key before the winner committed lost inside its transaction
    // (conflict); one that read it afterwards sees it revoked (key_revoked).
    expect(outcomes.filter((o) => o === 'conflict' || o === 'key_revoked')).toHaveLength(19);
    const lineage = (await tables.scanKeys()).filter(
      (i) => i.sk === 'KEY' && i.lineage_id === created.metadata.id,
    );
    expect(lineage).toHaveLength(2);
    expect(lineage.filter((i) => i.revoked_at === undefined)).toHaveLength(1);
  });

  it('concurrent rotate and revoke: the key ends revoked and at most one replacement is active', async () => {
    for (let round = 0; round < 5; round++) {
      const { userId, workspaceId } = await userWithWorkspace();
      const created = await create(userId, workspaceId);
      const [rotateOutcome, revokeOutcome] = await Promise.all([
        errorCode(rotateKey(rt.service, userId, created.metadata.id)),
        errorCode(revokeKey(rt.service, userId, created.metadata.id)),
      ]);
      expect(revokeOutcome).toBe('ok');
      expect(['ok', 'conflict', 'key_revoked']).toContain(rotateOutcome);
      const lineage = (await tables.scanKeys()).filter(
        (i) => i.sk === 'KEY' && i.lineage_id === created.metadata.id,
      );
      const old = lineage.find((i) => i.id === created.metadata.id);
      expect(old?.revoked_at).toBeDefined();
      expect(lineage).toHaveLength(rotateOutcome === 'ok' ? 2 : 1);
      expect(lineage.filter((i) => i.revoked_at === undefined).length).toBeLessThanOrEqual(1);
    }
  });
});

describe('revoke', () => {
  it('is idempotent and keeps the original revoked_at', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    const first = await revokeKey(rt.service, userId, created.metadata.id);
    clock.advance(5000);
    const second = await revokeKey(rt.service, userId, created.metadata.id);
    expect(first.status).toBe('revoked');
    expect(second.revoked_at).toBe(first.revoked_at);
  });

  it('revokes an expired key, and hides another user’s key as not_found', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId, { expiresInDays: 1 });
    expect(await errorCode(revokeKey(rt.service, 'intruder', created.metadata.id))).toBe('not_found');
    clock.advance(2 * DAY);
    const revoked = await revokeKey(rt.service, userId, created.metadata.id);
    expect(revoked.status).toBe('revoked');
    expect(revoked.revoked_at).toBe(clock.now().toISOString());
  });

  it('sets the TTL to the retention period after revocation', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    await revokeKey(rt.service, userId, created.metadata.id);
    const item = (await tables.scanKeys()).find((i) => i.id === created.metadata.id);
    expect(item?.ttl).toBe(Math.floor((clock.now().getTime() + 90 * DAY) / 1000));
  });
});

describe('last use', () => {
  it('writes at most once a minute per key', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    const keys = rt.service.keys;
    expect(await keys.recordUse(created.metadata.id, clock.now())).toBe(true);
    const firstUse = clock.now().toISOString();
    clock.advance(30_000);
    expect(await keys.recordUse(created.metadata.id, clock.now())).toBe(false);
    expect((await keys.get(created.metadata.id))?.last_used_at).toBe(firstUse);
    clock.advance(30_000);
    expect(await keys.recordUse(created.metadata.id, clock.now())).toBe(true);
    expect((await keys.get(created.metadata.id))?.last_used_at).toBe(clock.now().toISOString());
  });

  it('writes once when many uses race in the same minute', async () => {
    const { userId, workspaceId } = await userWithWorkspace();
    const created = await create(userId, workspaceId);
    clock.advance(120_000);
    const writes = await Promise.all(
      Array.from({ length: 10 }, () => rt.service.keys.recordUse(created.metadata.id, clock.now())),
    );
    expect(writes.filter(Boolean)).toHaveLength(1);
  });
});
