import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoisePepper, type PepperSource } from './pepper.ts';

const PEPPER_BYTES = 32;

async function loadOrCreate(file: string): Promise<Buffer> {
  // Stryker disable BlockStatement: a write that failed for another reason than EEXIST left no file, so the read below fails too (this also switches off the try block's, killed by test/unit/pepper.test.ts)
  try {
    // 'wx' fails if the file exists, so two processes never overwrite each other's pepper.
    const fresh = randomBytes(PEPPER_BYTES);
    await writeFile(file, fresh, { flag: 'wx', mode: 0o600 });
    return fresh;
  } catch (err) {
    // Stryker disable next-line ConditionalExpression: a write that failed for another reason left no file, so the read below fails too
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // Stryker restore BlockStatement
  const existing = await readFile(file);
  if (existing.length !== PEPPER_BYTES)
    throw new Error(`pepper file ${file} is corrupt (expected ${PEPPER_BYTES} bytes)`);
  return existing;
}

/** The file holding local mode's pepper version `version`. */
export const pepperFile = (dir: string, version: number): string => join(dir, `pepper-v${version}.bin`);

/** Local mode: a random pepper per version, generated once into `dir` with mode 0600. */
export function localPepperSource(dir: string, currentVersion: number): PepperSource {
  const pepper = memoisePepper(async (version) => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return loadOrCreate(pepperFile(dir, version));
  });
  return { currentVersion, pepper };
}
