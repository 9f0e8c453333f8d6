import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import { DAY_MS } from '#lib/limits';
import { memoryCreator } from '#test/support/lifecycle';

/**
 * How the lifecycle refuses: the problem's code, and a detail that tells the caller in words what
 * happened and what to do, since a problem body is read by people as well as by programs.
 */

const refusal = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

const setup = memoryCreator;

/**
 * A store whose release of lapsed slots loses to a concurrent change `losses` times: each time,
 * another request changed the user's slots between the insert that found them full and the
 * release, so the release's condition fails and nothing is freed.
 */
function contendedCap(losses: number) {
  const world = setup({ maxActiveKeys: 1 });
  const release = world.keys.releaseSlots.bind(world.keys);
  let lost = 0;
  world.keys.releaseSlots = async (userId, slots) => {
    if (lost < losses) {
      lost++;
      return;
    }
    await release(userId, slots);
  };
  return world;
}

describe('the active-key cap under concurrent changes', () => {
  it('a create whose first release of lapsed slots is lost still takes a slot, on its third insert', async () => {
    const { create, clock } = contendedCap(1);
    await create(1);
    clock.advance(DAY_MS);
    expect((await create()).metadata.status).toBe('active');
  });

  it('a create whose releases keep losing gives up after three inserts: 409 conflict, a retry asked, nothing written', async () => {
    const { create, clock, keys } = contendedCap(2);
    await create(1);
    clock.advance(DAY_MS);
    const before = { keys: keys.keys.size, events: keys.events.length };
    keys.calls.length = 0;
    const err = await refusal(create());
    expect([err.code, err.status]).toEqual(['conflict', 409]);
    expect(err.detail).toMatch(/concurrent.*retry/i);
    expect({ keys: keys.keys.size, events: keys.events.length }).toEqual(before);
    expect(keys.calls.filter((c) => c === 'insert')).toHaveLength(3);
  });
});

describe('each refusal says what happened', () => {
  it('the cap: how many active keys a user may hold', async () => {
    const { create } = setup({ maxActiveKeys: 2 });
    await create();
    await create();
    const err = await refusal(create());
    expect([err.code, err.detail]).toEqual(['key_limit_reached', expect.stringMatching(/At most 2 active/)]);
  });

  it('an expiry beyond the maximum: which field, and the maximum', async () => {
    const { create } = setup({ maxExpiryDays: 30 });
    const err = await refusal(create(31));
    expect(err.code).toBe('validation_failed');
    expect(err.detail).toMatch(/validation/);
    expect(err.errors).toEqual([{ input: 'expiresInDays', message: expect.stringMatching(/at most 30/) }]);
  });

  it('a workspace the creator is not in, and one whose role is too low: which and why', async () => {
    const { service, memberships, userId, workspaceId } = setup();
    const viewerIn = randomUUID();
    const outsider = randomUUID();
    memberships.set(userId, viewerIn, 'viewer');
    const err = await refusal(
      createKey(service, {
        userId,
        name: 'k',
        workspaceIds: [workspaceId, viewerIn, outsider],
        scopes: ['svc.forms.write'],
      }),
    );
    expect(err.code).toBe('workspace_access_denied');
    expect(err.detail).toMatch(/lack the access/);
    expect(err.errors).toEqual([
      {
        input: 'workspaceIds',
        index: 1,
        message: `role viewer in workspace ${viewerIn} does not allow svc.forms.write`,
      },
      { input: 'workspaceIds', index: 2, message: `not a member of workspace ${outsider}` },
    ]);
  });

  it('another user’s key, or none: not found', async () => {
    const { create, service } = setup();
    const created = await create();
    for (const attempt of [
      rotateKey(service, 'someone-else', created.metadata.id),
      revokeKey(service, 'someone-else', created.metadata.id),
    ]) {
      const err = await refusal(attempt);
      expect([err.code, err.detail]).toEqual(['not_found', 'API key not found.']);
    }
  });

  it('rotating a revoked key: revoked, cannot be rotated', async () => {
    const { create, service, userId } = setup();
    const created = await create();
    await revokeKey(service, userId, created.metadata.id);
    const err = await refusal(rotateKey(service, userId, created.metadata.id));
    expect([err.code, err.detail]).toEqual([
      'key_revoked',
      expect.stringMatching(/revoked.*cannot be rotated/),
    ]);
  });

  it('rotating an expired key: expired, create a new key', async () => {
    const { create, service, userId, clock } = setup();
    const created = await create(1);
    clock.advance(DAY_MS);
    const err = await refusal(rotateKey(service, userId, created.metadata.id));
    expect([err.code, err.detail]).toEqual([
      'key_expired',
      expect.stringMatching(/expired.*create a new key/),
    ]);
  });

  it('a rotation that loses to a concurrent revocation: conflict, and why', async () => {
    const { create, service, keys, userId } = setup();
    const created = await create();
    const rotate = keys.rotate.bind(keys);
    keys.rotate = async (old, next, now, events) => {
      await keys.revoke(old, now, []);
      return rotate(old, next, now, events);
    };
    const err = await refusal(rotateKey(service, userId, created.metadata.id));
    expect([err.code, err.detail]).toEqual(['conflict', expect.stringMatching(/concurrent request/)]);
  });
});
