import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiCheck } from './api-report.ts';
import {
  distOf,
  ENTRY_POINTS,
  type EntryPoint,
  PACKAGE_DIR,
  type PackageDir,
  ROOT,
  TYPES,
} from './layout.ts';

/**
 * When a build may be kept (packages/mcp-api-keys/build.ts): the digest of its inputs, the stamp
 * it leaves, and the lock that keeps two processes from building at once.
 */

/** What a build found: its API checks, and the packages each package's entry points import. */
export interface BuildResult {
  api: ApiCheck[];
  /** The packages each package's entry points import. */
  imported: Partial<Record<PackageDir, string[]>>;
}

/** What a build reads outside node_modules (git's view: tracked and new files, ignored ones left out). */
const INPUTS = ['lib', 'infra', 'functions', 'web', 'bench', 'packages', 'package.json'];
const INPUT_FILES = ['package-lock.json', 'tsconfig.json'];

/** The digest of every input, as git lists them, and of the files themselves. */
export function inputsDigest(): string {
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...INPUTS, ...INPUT_FILES],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const hash = createHash('sha256');
  for (const file of listed.split('\0').filter(Boolean).sort()) {
    hash.update(`${file}\0`);
    // A tracked file deleted in the work tree is listed still: its absence is an input too.
    hash.update(existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file)) : 'deleted');
  }
  return hash.digest('hex');
}

/** Beside the declarations (never published): the inputs dist/ was built from, and its API checks. */
export const STAMP = join(TYPES, 'build.json');

/** The stamped result of the build in dist/, when it was built from `inputs`. */
export function reusableBuild(inputs: string): BuildResult | undefined {
  const complete = (Object.keys(ENTRY_POINTS) as EntryPoint[]).every(
    (entry) =>
      existsSync(join(distOf(entry), `${entry}.js`)) && existsSync(join(distOf(entry), `${entry}.d.ts`)),
  );
  if (!complete || !existsSync(STAMP)) return undefined;
  const stamp = JSON.parse(readFileSync(STAMP, 'utf8')) as BuildResult & { inputs: string };
  return stamp.inputs === inputs ? { api: stamp.api, imported: stamp.imported } : undefined;
}

/** A lock directory per package directory, shared by every process on the machine. */
const LOCK = join(
  tmpdir(),
  `svc-mcp-api-keys-build-${createHash('sha256').update(PACKAGE_DIR).digest('hex').slice(0, 12)}`,
);

/** Whether the lock's holder still runs (a holder that crashed leaves the directory behind). */
function lockHeld(): boolean {
  try {
    const pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No pid yet: its holder is between creating the directory and writing it.
    if (code === 'ENOENT') return existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs < 10_000;
    return code === 'EPERM';
  }
}

/** Runs `work` holding the lock, waiting for another holder for at most 15 minutes. */
export async function exclusively<T>(work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!lockHeld()) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`another build of the packages held ${LOCK} for 15 minutes`);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
