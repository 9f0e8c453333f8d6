import { randomUUID } from 'node:crypto';
import { CursorCodec } from '#lib/keys/cursor';
import { createKey, type KeyServiceDeps } from '#lib/keys/lifecycle';
import type { PepperSource } from '#lib/keys/pepper';
import { DEFAULT_SETTINGS, type Settings } from '#lib/limits';
import { manualClock } from './clock.ts';
import { MemoryKeyStore, MemoryMemberships } from './memory-store.ts';

/** A fixed pepper per version: unit tests need no KMS and no files. */
export const memoryPeppers = (currentVersion = 1): PepperSource => ({
  currentVersion,
  pepper: async (version) => Buffer.alloc(32, version),
});

/** The lifecycle's dependencies entirely in memory, with a clock the test moves. */
export function memoryService(settings: Partial<Settings> = {}) {
  const clock = manualClock();
  const keys = new MemoryKeyStore();
  const memberships = new MemoryMemberships();
  const peppers = memoryPeppers();
  const service: KeyServiceDeps = {
    keys,
    memberships,
    peppers,
    cursors: new CursorCodec(peppers),
    settings: { ...DEFAULT_SETTINGS, ...settings },
    now: clock.now,
  };
  return { service, keys, memberships, clock };
}

/** An editor of one workspace over stores in memory, and a create of a read key of theirs. */
export function memoryCreator(settings: Partial<Settings> = {}) {
  const world = memoryService(settings);
  const userId = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  world.memberships.set(userId, workspaceId, 'editor');
  const create = (expiresInDays?: number) =>
    createKey(world.service, {
      userId,
      name: 'laptop',
      workspaceIds: [workspaceId],
      scopes: ['svc.forms.read'],
      expiresInDays,
    });
  return { ...world, userId, workspaceId, create };
}
