import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type PackageDir, packPackages } from '../../packages/mcp-api-keys/build.ts';
import {
  BRINGS,
  CONSUMERS,
  type Consumer,
  INSTALL_RESULT,
  type Installed,
  type InstallResult,
  PACK_RESULT,
  type PackResult,
  typecheckResult,
} from './packed.ts';
import { writeResult } from './result-file.ts';
import { runCommand as run } from './run-command.ts';

/**
 * The package tier's set-up, in a process of its own started by test/support/pack-setup.ts: builds
 * the packages (or keeps the build of the same sources) and packs them once for the run, then
 * installs every consumer project (`CONSUMERS`) and each package alone (`BRINGS`) from the
 * tarballs, all at once, into the directory it is given (the argument), writing there what
 * `packed` waits for as it goes: `PACK_RESULT` once packed, `INSTALL_RESULT` once installed. The
 * packages' own dependencies come from the npm cache first, React 19 with its types from the npm
 * registry. Then it type-checks each consumer project
 * (`tsc -p tsconfig.json`, one project at a time, in the order the test files need them), writing
 * each run's code and output as it finishes: the project's type-check test asserts on them.
 */
const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const FIXTURES = join(ROOT, 'test/package/fixtures');
const root = process.argv[2] as string;
const exec = promisify(execFile);

const done = (file: string, result: unknown) => writeResult(root, file, result);

/** `npm install` of tarballs and packages into `dir`, from npm's cache first, peers left to the project. */
async function npmInstall(dir: string, specs: string[]): Promise<Installed> {
  try {
    await exec(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--legacy-peer-deps',
        ...specs,
      ],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    );
    return { dir };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message?: string };
    return { error: `${e.stdout ?? ''}${e.stderr ?? ''}` || String(e.message) };
  }
}

/** A consumer project: its fixture's files, the tarballs (and `installs`) installed with npm, the shared tools linked. */
async function consumer(
  name: Consumer,
  tarballs: Record<PackageDir, { tarball: string }>,
): Promise<Installed> {
  const recipe: { packages: PackageDir[]; links: string[]; installs?: string[] } = CONSUMERS[name];
  const dir = join(root, name);
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `fixture-${name}`, private: true, type: 'module', dependencies: {} }),
  );
  const installed = await npmInstall(dir, [
    ...recipe.packages.map((pkg) => tarballs[pkg].tarball),
    ...(recipe.installs ?? []),
  ]);
  if ('error' in installed) return installed;
  for (const link of recipe.links) {
    // The package may bring it already (as a dependency of the entry points): that copy is used.
    if (existsSync(join(dir, 'node_modules', link))) continue;
    mkdirSync(dirname(join(dir, 'node_modules', link)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', link), join(dir, 'node_modules', link));
  }
  return installed;
}

/** A package installed alone (with the packages of this repository it depends on) into an empty project. */
async function alone(pkg: PackageDir, tarballs: Record<PackageDir, { tarball: string }>): Promise<Installed> {
  const dir = join(root, `installed-${pkg}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `installed-${pkg}`, private: true }));
  return npmInstall(
    dir,
    BRINGS[pkg].map((p) => tarballs[p].tarball),
  );
}

/** The type-checks, in the order the test files' tests come (integrations and consumers side by side). */
const TYPECHECK_ORDER: Consumer[] = [
  'compatibility',
  'integrations',
  'cdk',
  'mcp-server',
  'dashboard',
  'react-dashboard',
];

try {
  const tarballsDir = join(root, 'tarballs');
  mkdirSync(tarballsDir, { recursive: true });
  const { api, tarballs } = await packPackages(tarballsDir);
  done(PACK_RESULT, { ok: true, api, tarballs } satisfies PackResult);
  const names = Object.keys(CONSUMERS) as Consumer[];
  const pkgs = Object.keys(BRINGS) as PackageDir[];
  const [consumers, alones] = await Promise.all([
    Promise.all(names.map((name) => consumer(name, tarballs))),
    Promise.all(pkgs.map((pkg) => alone(pkg, tarballs))),
  ]);
  const installed = Object.fromEntries(names.map((name, i) => [name, consumers[i]])) as Record<
    Consumer,
    Installed
  >;
  done(INSTALL_RESULT, {
    consumers: installed,
    alone: Object.fromEntries(pkgs.map((pkg, i) => [pkg, alones[i]])) as Record<PackageDir, Installed>,
  } satisfies InstallResult);
  // One at a time: several of the projects load aws-cdk-lib's declarations (some 700 MB each).
  for (const name of new Set([...TYPECHECK_ORDER, ...names])) {
    const project = installed[name];
    if ('dir' in project)
      done(typecheckResult(name), await run(project.dir, process.execPath, [TSC, '-p', 'tsconfig.json']));
  }
} catch (err) {
  // Once the packages are packed, a failure is the process's own (its stderr, PACK_EXIT).
  if (existsSync(join(root, PACK_RESULT))) throw err;
  done(PACK_RESULT, { ok: false, message: (err as Error).stack ?? String(err) } satisfies PackResult);
}
