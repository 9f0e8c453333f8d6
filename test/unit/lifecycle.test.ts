import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { assertStepUp } from '#lib/http/identity';
import { createKey, listKeys, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import { keyStatus } from '#lib/keys/model';
import { hasFreeSlot, lapsedLineages, rotatedExpiry, useIsDue } from '#lib/keys/rules';
import { DAY_MS } from '#lib/limits';
import { memoryCreator } from '#test/support/lifecycle';

/** The lifecycle rules against the storage port in memory: no DynamoDB involved. */

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
};

const setup = memoryCreator;

describe('status rule', () => {
  const now = new Date('2026-11-22T12:00:00.000Z');
  it.each([
    [{ expires_at: '2026-11-22T12:00:00.001Z' }, 'active'],
    [{ expires_at: '2026-11-22T12:00:00.000Z' }, 'expired'],
    [{ expires_at: '2026-11-21T00:00:00.000Z', revoked_at: '2026-11-20T00:00:00.000Z' }, 'revoked'],
    [{ expires_at: '2026-12-01T00:00:00.000Z', revoked_at: '2026-11-20T00:00:00.000Z' }, 'revoked'],
  ] as const)('%o is %s', (record, status) => {
    expect(keyStatus(record, now)).toBe(status);
  });
});

describe('the active-key cap', () => {
  it('refuses the cap + 1st lineage, and a revoked key frees its slot', async () => {
    const { create, service, userId } = setup({ maxActiveKeys: 2 });
    const first = await create();
    await create();
    expect(await codeOf(create())).toBe('key_limit_reached');
    await revokeKey(service, userId, first.metadata.id);
    expect(await codeOf(create())).toBe('ok');
    expect(await codeOf(create())).toBe('key_limit_reached');
  });

  it('reclaims the slots of expired keys only when the cap is reached', async () => {
    const { create, clock, keys } = setup({ maxActiveKeys: 2 });
    await create(1);
    await create(30);
    clock.advance(DAY_MS);
    keys.calls.length = 0;
    expect(await codeOf(create())).toBe('ok');
    expect(keys.calls).toEqual(['insert', 'releaseSlots', 'insert']);
    expect(await codeOf(create())).toBe('key_limit_reached');
  });

  it('takes a slot with one insert while under the cap', async () => {
    const { create, keys } = setup();
    keys.calls.length = 0;
    await create();
    expect(keys.calls).toEqual(['insert']);
  });

  it('does not count a rotation as a new lineage', async () => {
    const { create, service, userId } = setup({ maxActiveKeys: 1 });
    const created = await create();
    const rotated = await rotateKey(service, userId, created.metadata.id);
    expect(await codeOf(rotateKey(service, userId, rotated.metadata.id))).toBe('ok');
    expect(await codeOf(create())).toBe('key_limit_reached');
  });

  it('says a slot is free from the slots alone', () => {
    const now = new Date('2026-11-22T00:00:00.000Z');
    const slots = { a: '2026-11-21T00:00:00.000Z', b: '2026-12-01T00:00:00.000Z' };
    expect(lapsedLineages(slots, now)).toEqual({ a: '2026-11-21T00:00:00.000Z' });
    expect(hasFreeSlot(slots, 2, now)).toBe(true);
    expect(hasFreeSlot({ b: slots.b, c: slots.b }, 2, now)).toBe(false);
  });
});

describe('create', () => {
  it('refuses an expiry above the deployment maximum and writes nothing', async () => {
    const { create, keys } = setup({ maxExpiryDays: 10 });
    expect(await codeOf(create(11))).toBe('validation_failed');
    expect(keys.keys.size).toBe(0);
  });

  it('refuses a workspace where the role is too low for a scope, and writes nothing', async () => {
    const { service, memberships, keys, userId } = setup();
    const viewerWorkspace = randomUUID();
    memberships.set(userId, viewerWorkspace, 'viewer');
    const err = await createKey(service, {
      userId,
      name: 'k',
      workspaceIds: [viewerWorkspace],
      scopes: ['svc.forms.write'],
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'workspace_access_denied',
      errors: [{ input: 'workspaceIds', index: 0 }],
    });
    expect(keys.keys.size).toBe(0);
  });

  it('does not depend on how recently the caller signed in: step-up is the route’s rule', async () => {
    const { create } = setup();
    expect(await codeOf(create())).toBe('ok');
    const stale = { userId: 'u', emailVerified: true, authTime: 0 };
    expect(() => assertStepUp(stale, new Date())).toThrow(
      expect.objectContaining({ code: 'reauthentication_required' }),
    );
  });
});

describe('rotate', () => {
  it('keeps the remaining lifetime, capped at now + the deployment max', async () => {
    const { create, service, userId, clock } = setup({ maxExpiryDays: 90 });
    const created = await create(20);
    clock.advance(5 * DAY_MS);
    const rotated = await rotateKey(service, userId, created.metadata.id);
    expect(rotated.metadata.expires_at).toBe(created.metadata.expires_at);
    const now = new Date('2026-11-22T00:00:00.000Z');
    expect(rotatedExpiry({ expires_at: '2027-06-01T00:00:00.000Z' }, now, 90)).toBe(
      '2027-02-20T00:00:00.000Z',
    );
  });

  it('answers key_revoked for a revoked key, with replaced_by after a rotation', async () => {
    const { create, service, userId } = setup();
    const deleted = await create();
    await revokeKey(service, userId, deleted.metadata.id);
    const plain = await rotateKey(service, userId, deleted.metadata.id).catch((e: unknown) => e);
    expect(plain).toMatchObject({ code: 'key_revoked', extensions: {} });
    const rotatedOnce = await create();
    const next = await rotateKey(service, userId, rotatedOnce.metadata.id);
    const again = await rotateKey(service, userId, rotatedOnce.metadata.id).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'key_revoked', extensions: { replaced_by: next.metadata.id } });
  });

  it('answers key_expired for an expired key and not_found for another user’s key', async () => {
    const { create, service, userId, clock } = setup();
    const created = await create(1);
    expect(await codeOf(rotateKey(service, 'someone-else', created.metadata.id))).toBe('not_found');
    clock.advance(DAY_MS);
    expect(await codeOf(rotateKey(service, userId, created.metadata.id))).toBe('key_expired');
  });

  it('answers conflict when the key is revoked between its read and the transaction', async () => {
    const { create, service, keys, userId } = setup();
    const created = await create();
    const rotate = keys.rotate.bind(keys);
    keys.rotate = async (old, next, now, events) => {
      await keys.revoke(old, now, []);
      return rotate(old, next, now, events);
    };
    const before = keys.events.length;
    expect(await codeOf(rotateKey(service, userId, created.metadata.id))).toBe('conflict');
    // The lost rotation wrote none of its events.
    expect(keys.events.length).toBe(before);
  });
});

describe('revoke', () => {
  it('is idempotent and keeps the original revoked_at', async () => {
    const { create, service, userId, clock } = setup();
    const created = await create();
    const first = await revokeKey(service, userId, created.metadata.id);
    clock.advance(60_000);
    const second = await revokeKey(service, userId, created.metadata.id);
    expect(second.revoked_at).toBe(first.revoked_at);
    expect(second.status).toBe('revoked');
  });

  it('returns the stored record when another request revoked it first', async () => {
    const { create, service, keys, userId, clock } = setup();
    const created = await create();
    const revoke = keys.revoke.bind(keys);
    let raced = false;
    keys.revoke = async (record, now, events) => {
      if (!raced) {
        raced = true;
        await revoke(record, new Date(now.getTime() - 1000), events);
      }
      return revoke(record, now, events);
    };
    const result = await revokeKey(service, userId, created.metadata.id);
    // The first revocation's time, not this request's.
    expect(result.revoked_at).toBe(new Date(clock.now().getTime() - 1000).toISOString());
    expect(result.revoked_at).toBe((await keys.get(created.metadata.id))?.revoked_at);
  });
});

describe('events', () => {
  it('create, rotate and the first revoke each write exactly their events; a repeat writes none', async () => {
    const { create, service, keys, userId } = setup();
    const created = await create();
    const rotated = await rotateKey(service, userId, created.metadata.id);
    await revokeKey(service, userId, rotated.metadata.id);
    await revokeKey(service, userId, rotated.metadata.id);
    expect(keys.events.map((e) => [e.type, e.key_id])).toEqual([
      ['key.created', created.metadata.id],
      ['key.rotated', created.metadata.id],
      ['key.created', rotated.metadata.id],
      ['key.revoked', rotated.metadata.id],
    ]);
    expect(new Set(keys.events.map((e) => e.lineage_id))).toEqual(new Set([created.metadata.id]));
    expect(keys.events.every((e) => e.actor.type === 'user' && e.actor.id === userId)).toBe(true);
  });

  it('a refused change writes no event', async () => {
    const { create, service, keys } = setup({ maxActiveKeys: 1 });
    await create();
    const before = keys.events.length;
    expect(await codeOf(create())).toBe('key_limit_reached');
    expect(await codeOf(rotateKey(service, 'someone-else', keys.events[0]?.key_id ?? ''))).toBe('not_found');
    expect(keys.events.length).toBe(before);
  });
});

describe('last use', () => {
  it('is due at most once a minute', () => {
    const now = new Date('2026-11-22T12:00:00.000Z');
    expect(useIsDue(undefined, now)).toBe(true);
    expect(useIsDue('2026-11-22T11:59:00.001Z', now)).toBe(false);
    expect(useIsDue('2026-11-22T11:59:00.000Z', now)).toBe(true);
  });
});

describe('list', () => {
  it('filters by the status rule and pages with a cursor bound to its user', async () => {
    const { create, service, userId, clock } = setup();
    const expiring = await create(1);
    clock.advance(1000);
    await create();
    clock.advance(DAY_MS);
    const active = await listKeys(service, { userId, limit: 10, status: 'active' });
    expect(active.data.map((k) => k.status)).toEqual(['active']);
    const expired = await listKeys(service, { userId, limit: 10, status: 'expired' });
    expect(expired.data.map((k) => k.id)).toEqual([expiring.metadata.id]);
    const page = await listKeys(service, { userId, limit: 1 });
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(
      await codeOf(listKeys(service, { userId: 'other', limit: 1, cursor: page.next_cursor ?? '' })),
    ).toBe('invalid_cursor');
  });
});
