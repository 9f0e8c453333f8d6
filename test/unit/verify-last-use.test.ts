import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey } from '#lib/keys/lifecycle';
import type { VerificationReads } from '#lib/keys/port';
import { createKeyVerifier } from '#lib/keys/verify';
import { memoryService } from '#test/support/lifecycle';
import type { MemoryKeyStore, MemoryMemberships } from '#test/support/memory-store';

/**
 * Contract §6: `last_used_at` is written at most once a minute per key. A warm verifier sends the
 * write alongside its read, so the read may return the stored value from before the write, or a
 * value another instance wrote; whichever is later is what the next call is throttled by.
 */

/** The verification reads over the stores in memory; each read is a snapshot taken when it is sent. */
function memoryReads(keys: MemoryKeyStore, memberships: MemoryMemberships): VerificationReads {
  return {
    readMemberships: async (userId, workspaceIds) => ({
      roles: await memberships.rolesFor(userId, workspaceIds),
    }),
    readKeyAndMemberships: (keyId, userId, workspaceIds) => {
      const stored = keys.keys.get(keyId);
      const key = stored && { ...stored };
      return memberships.rolesFor(userId, workspaceIds).then((roles) => ({ key, roles }));
    },
  };
}

async function setup(options: { failingWrites?: boolean } = {}) {
  const world = memoryService();
  const userId = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  world.memberships.set(userId, workspaceId, 'editor');
  const { apiKey, metadata } = await createKey(world.service, {
    userId,
    name: 'k',
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.read'],
  });
  const writes: string[] = [];
  const verifierFor = (now: () => Date) =>
    createKeyVerifier({
      keys: {
        get: (id) => world.keys.get(id),
        recordUse: async (id, at) => {
          writes.push(at.toISOString());
          if (options.failingWrites) throw new Error('throttled');
          return world.keys.recordUse(id, at);
        },
      },
      memberships: world.memberships,
      reads: memoryReads(world.keys, world.memberships),
      peppers: world.service.peppers,
      now,
      onUseRecordError: () => {},
    });
  const stored = () => world.keys.keys.get(metadata.id)?.last_used_at;
  return { ...world, apiKey, writes, verifierFor, stored };
}

describe('the last-use write of a warm verifier, at most once a minute', () => {
  it('is not sent again within the minute after a write whose read returned the older value', async () => {
    const { apiKey, clock, writes, verifierFor } = await setup();
    const verify = verifierFor(clock.now);
    await verify(apiKey); // cold: the first use is written
    clock.advance(60_000);
    await verify(apiKey); // warm and due: written, while the read still sees the first use
    for (let s = 0; s < 5; s++) {
      clock.advance(10_000);
      expect((await verify(apiKey)).outcome).toBe('valid');
    }
    expect(writes).toHaveLength(2);
  });

  it('is held back by a later use another instance recorded', async () => {
    const { apiKey, clock, writes, verifierFor } = await setup();
    const here = verifierFor(clock.now);
    // Another instance whose clock runs 50 seconds ahead of this one.
    const elsewhere = verifierFor(() => new Date(clock.now().getTime() + 50_000));
    await here(apiKey); // the first use, written at t
    clock.advance(20_000);
    await elsewhere(apiKey); // t + 70s by its clock: written
    await here(apiKey); // t + 20s: not due, and reads the use at t + 70s
    clock.advance(80_000);
    await here(apiKey); // t + 100s: within a minute of the use at t + 70s
    expect(writes).toHaveLength(2);
  });

  it('a write that failed is not retried before the minute is over', async () => {
    const { apiKey, clock, writes, verifierFor, stored } = await setup({ failingWrites: true });
    const verify = verifierFor(clock.now);
    expect((await verify(apiKey)).outcome).toBe('valid');
    expect(stored()).toBeUndefined();
    for (let s = 0; s < 5; s++) {
      clock.advance(10_000);
      expect((await verify(apiKey)).outcome).toBe('valid');
    }
    expect(writes).toHaveLength(1);
    clock.advance(10_000);
    await verify(apiKey);
    expect(writes).toHaveLength(2);
  });
});
