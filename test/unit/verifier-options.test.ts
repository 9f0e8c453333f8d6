import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMcpKeyVerifier, type McpKeyVerifierOptions, verifierOptionsFromEnv } from '#lib/verifier';

/**
 * Each rule `createMcpKeyVerifier` checks its options against (lib/verifier.ts), one at a time
 * against options that are otherwise whole: the error names exactly that problem.
 */
const WHOLE = {
  keysTableName: 'keys',
  membershipsTableName: 'memberships',
  region: 'eu-west-1',
  pepper: { version: 1, base64: Buffer.alloc(32, 7).toString('base64') },
} satisfies McpKeyVerifierOptions;

const problemOf = (options: Record<string, unknown>): string | undefined => {
  try {
    createMcpKeyVerifier({ ...WHOLE, ...options } as McpKeyVerifierOptions);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(TypeError);
    return (err as Error).message;
  }
};
const base64Of = (bytes: number) => Buffer.alloc(bytes, 0xfb).toString('base64');

describe('createMcpKeyVerifier’s options, one rule at a time', () => {
  it('whole options build a verifier', () => {
    expect(problemOf({})).toBeUndefined();
  });

  it.each([
    [{ membershipsTableName: '' }, '`membershipsTableName` must be a table name'],
    [{ keysTableName: ['keys'] }, '`keysTableName` must be a table name'],
    [{ pepper: undefined, pepperKeyId: '' }, '`pepperKeyId` must be a KMS key id, ARN or alias'],
    [{ region: '' }, '`region` must be a region name'],
    [{ cacheSize: 1.5 }, '`cacheSize` must be a whole number from 1'],
  ])('%j: %s', (options, problem) => {
    expect(problemOf(options)).toBe(`createMcpKeyVerifier: ${problem}`);
  });

  it('names two problems in one sentence, separated by semicolons', () => {
    expect(problemOf({ membershipsTableName: '', region: '' })).toBe(
      'createMcpKeyVerifier: `membershipsTableName` must be a table name; `region` must be a region name',
    );
  });

  it('takes a cache of one key', () => {
    expect(problemOf({ cacheSize: 1 })).toBeUndefined();
  });

  it('takes a pepper as padded base64 of at least 32 bytes, and nothing else', () => {
    const refused = 'createMcpKeyVerifier: `pepper.base64` must be base64 of at least 32 bytes';
    for (const bytes of [32, 33, 34, 35, 48]) {
      expect(problemOf({ pepper: { version: 1, base64: base64Of(bytes) } })).toBeUndefined();
    }
    expect(base64Of(34).endsWith('==')).toBe(true);
    expect(base64Of(35).endsWith('=') && !base64Of(35).endsWith('==')).toBe(true);
    for (const base64 of [
      base64Of(31),
      base64Of(32).replace(/=+$/, ''), // unpadded
      `!${base64Of(33)}`,
      `${base64Of(33)}!`,
      `${base64Of(33)}AB=`,
      42,
    ]) {
      expect(problemOf({ pepper: { version: 1, base64 } })).toBe(refused);
    }
  });
});

describe('the options verifyMcpKey reads from the environment, with a local pepper', () => {
  it('name the pepper file that could not be read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pepper-'));
    try {
      expect(() =>
        verifierOptionsFromEnv({
          KEYS_TABLE_NAME: 'keys',
          MEMBERSHIPS_TABLE_NAME: 'members',
          PEPPER_DIR: dir,
          PEPPER_VERSION: '2',
        }),
      ).toThrow(new RegExp(`^PEPPER_DIR: no pepper version 2 in ${dir} \\(ENOENT: no such file`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
