import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import { createKeyVerifier } from '#lib/keys/verify';
import { memoryService } from '#test/support/lifecycle';

/** The verifier's rules that hold whatever reads it is given (contract §6), over stores in memory. */
async function setup() {
  const world = memoryService();
  const userId = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  world.memberships.set(userId, workspaceId, 'editor');
  const { apiKey, metadata } = await createKey(world.service, {
    userId,
    name: 'k',
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.write'],
  });
  return { ...world, userId, workspaceId, apiKey, id: metadata.id, expiresAt: metadata.expires_at };
}

describe('a verifier without verification reads', () => {
  it('grants the creator’s current access, and sees a revocation on the very next call', async () => {
    const { service, keys, memberships, clock, userId, workspaceId, apiKey, id, expiresAt } = await setup();
    const verify = createKeyVerifier({ keys, memberships, peppers: service.peppers, now: clock.now });
    expect(await verify(apiKey)).toEqual({
      outcome: 'valid',
      kind: 'api_key',
      user_id: userId,
      key_id: id,
      expires_at: expiresAt,
      scopes: ['svc.forms.read', 'svc.forms.write'],
      workspaces: [{ id: workspaceId, role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'] }],
    });
    await revokeKey(service, userId, id);
    expect(await verify(apiKey)).toEqual({ outcome: 'revoked', key_id: id });
  });
});

describe('the last-use write', () => {
  it('a failing write never denies a valid key, even when nobody listens for the failure', async () => {
    const { service, keys, memberships, clock, apiKey } = await setup();
    const verify = createKeyVerifier({
      keys: { get: (id) => keys.get(id), recordUse: () => Promise.reject(new Error('throttled')) },
      memberships,
      peppers: service.peppers,
      now: clock.now,
    });
    expect((await verify(apiKey)).outcome).toBe('valid');
  });
});
