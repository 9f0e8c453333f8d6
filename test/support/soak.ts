import { it } from 'vitest';

/** `npm run test:soak` sets SOAK=1: the same suites, sized up, with their heavier variants. */
export const SOAK = process.env.SOAK === '1';
export const scale = (normal: number, soak: number): number => (SOAK ? soak : normal);

/**
 * A heavier variant of a check `npm test` already makes (another registration path, a second
 * negative synth, a migration of old data): it runs under `npm run test:soak` and is skipped,
 * and listed as skipped, in `npm test`, which keeps within its time (docs/contributing.md).
 */
export const soakOnly: typeof it = SOAK ? it : (it.skip as typeof it);
