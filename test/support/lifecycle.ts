import { CursorCodec } from '#lib/keys/cursor';
import type { KeyServiceDeps } from '#lib/keys/lifecycle';
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
