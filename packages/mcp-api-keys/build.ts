import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { addElementTypes, emitDeclarations, extractApis } from './api-report.ts';
import { bundleElements, bundleFunctions, compatibilityPackage, compileEntryPoints } from './compile.ts';
import { PACKAGES, type PackageDir, packageDir, ROOT } from './layout.ts';
import { type BuildResult, exclusively, inputsDigest, reusableBuild, STAMP } from './reuse.ts';
import { sizes } from './sizes.ts';

/**
 * Builds the published packages from the repository's sources, one per audience (contract §16),
 * each in packages/<dir>/dist: compiled ESM per entry point, one rolled-up `.d.ts` each
 * (api-extractor), the single-file element bundles (elements), the prebuilt Lambda bundles the CDK
 * constructs deploy (cdk), and `@svc/mcp-api-keys`, which re-exports the four under its old
 * subpaths. `npm run build:package` checks each API report; `-- --update` rewrites the reports.
 */

export { type ApiCheck, extractApis } from './api-report.ts';
export {
  ELEMENT_BUNDLES,
  ENTRY_POINTS,
  type EntryPoint,
  PACKAGE_DIR,
  PACKAGES,
  type PackageDir,
  packageDir,
  TYPES,
} from './layout.ts';
export type { BuildResult } from './reuse.ts';

const execFileAsync = promisify(execFile);

export interface BuildOptions {
  /** Rewrite the API reports instead of comparing with them. */
  update?: boolean;
  quiet?: boolean;
  /**
   * Keep dist/ when it was built from the same inputs (every file a build reads outside
   * node_modules, and the lockfile): two test files of one run then share one build.
   * @default true, except with `update`
   */
  reuse?: boolean;
}

/**
 * Builds the packages (or keeps the build of the same inputs) while no other process builds or
 * packs them: test files running side by side must not empty dist/ under each other.
 */
export function buildPackage(options: BuildOptions = {}): Promise<BuildResult> {
  return exclusively(() => buildOrReuse(options));
}

/** One packed package: its tarball and the size `npm pack` reports. */
export interface Packed {
  tarball: string;
  /** Bytes of the tarball. */
  size: number;
  /** Bytes of its files, unpacked. */
  unpackedSize: number;
}

/** The built packages as `npm pack` makes them, in `destination` (building them first, or reusing the build). */
export function packPackages(
  destination: string,
): Promise<BuildResult & { tarballs: Record<PackageDir, Packed> }> {
  return exclusively(async () => {
    const built = await buildOrReuse({ quiet: true });
    const tarballs = {} as Record<PackageDir, Packed>;
    for (const pkg of Object.keys(PACKAGES) as PackageDir[]) {
      const packed = await execFileAsync('npm', ['pack', '--pack-destination', destination, '--json'], {
        cwd: packageDir(pkg),
      });
      const [info] = JSON.parse(packed.stdout) as { filename: string; size: number; unpackedSize: number }[];
      if (!info) throw new Error(`npm pack made no tarball of ${pkg}: ${packed.stdout}${packed.stderr}`);
      tarballs[pkg] = {
        tarball: join(destination, info.filename),
        size: info.size,
        unpackedSize: info.unpackedSize,
      };
    }
    return { ...built, tarballs };
  });
}

async function buildOrReuse(options: BuildOptions): Promise<BuildResult> {
  const update = options.update ?? false;
  // Digested before building: a source changed during the build makes the next build a fresh one.
  const inputs = inputsDigest();
  const kept = options.reuse === false || update ? undefined : reusableBuild(inputs);
  if (kept) {
    if (!options.quiet) console.log('dist/ was built from these sources already: kept');
    return kept;
  }
  const built = await freshBuild(update, options.quiet ?? false);
  writeFileSync(STAMP, JSON.stringify({ inputs, ...built }));
  return built;
}

/**
 * Each package declares exactly what its entry points import: no more (a dashboard must not
 * install the AWS SDK), no less. Throws naming the difference.
 */
function checkDependencies(imported: Map<PackageDir, Set<string>>): void {
  for (const [pkg, packages] of imported) {
    const manifest = JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const undeclared = [...packages].filter((p) => !declared.has(p));
    if (undeclared.length > 0)
      throw new Error(`packages/${pkg}/package.json lacks dependencies: ${undeclared.join(', ')}`);
    const unused = [...declared].filter((p) => !packages.has(p));
    if (unused.length > 0) throw new Error(`packages/${pkg}/package.json: unused ${unused.join(', ')}`);
  }
}

/** The whole build; throws when a dependency is undeclared or an API report is stale (unless `update`). */
async function freshBuild(update: boolean, quiet: boolean): Promise<BuildResult> {
  const log = quiet ? () => {} : (line: string) => console.log(line);
  let t = performance.now();
  const step = (what: string) => {
    log(`${what}: ${Math.round(performance.now() - t)} ms`);
    t = performance.now();
  };
  for (const pkg of Object.keys(PACKAGES) as PackageDir[])
    rmSync(join(packageDir(pkg), 'dist'), { recursive: true, force: true });
  const imported = await compileEntryPoints();
  step('entry points');
  checkDependencies(imported);
  await bundleFunctions();
  step('function bundles');
  await bundleElements();
  compatibilityPackage();
  step('element bundles');
  emitDeclarations();
  step('declarations');
  const api = extractApis(update);
  addElementTypes();
  step('api reports');
  for (const line of sizes()) log(line);
  for (const check of api) log(`${relative(ROOT, check.report)}: ${check.matches ? 'unchanged' : 'CHANGED'}`);
  return {
    api,
    imported: Object.fromEntries([...imported].map(([pkg, packages]) => [pkg, [...packages].sort()])),
  };
}

// `npm run build:package [-- --update]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const update = process.argv.includes('--update');
  const { api } = await buildPackage({ update, reuse: false });
  const stale = api.filter((a) => !a.matches || a.errors > 0);
  if (stale.length > 0 && !update) {
    console.error(
      `The public API changed: ${stale.map((a) => a.entry).join(', ')}. Review the difference, ` +
        'then run `npm run build:package -- --update` and commit packages/*/api/.',
    );
    process.exit(1);
  }
}
