import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class LockedError extends Error {}

/** One service per data directory: a second one would corrupt DynamoDB Local's files. */
export async function acquireLock(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, 'service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(await readFile(file, 'utf8').catch(() => ''));
      if (pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new LockedError(
          `another local service (pid ${pid}) is using ${dataDir}; stop it or set DATA_DIR to another directory`,
        );
      }
      await rm(file, { force: true }); // stale lock of a process that is gone
    }
  }
  throw new LockedError(`could not lock ${dataDir}`);
}

/** Whether a process with this id exists (EPERM: it does, another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
