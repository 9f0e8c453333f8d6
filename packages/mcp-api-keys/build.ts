import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { build, type Metafile, type Plugin } from 'esbuild';
import { bundleFunction } from '../../bench/bundle.ts';
import { FUNCTION_BUNDLING, type FunctionName } from '../../infra/constructs/bundling.ts';
import { bundle as bundleElement } from '../../web/build.ts';

/**
 * Builds the published packages from the repository's sources, one per audience (contract §16),
 * each in packages/<dir>/dist: compiled ESM per entry point, one rolled-up `.d.ts` each
 * (api-extractor), the single-file element bundles (elements), the prebuilt Lambda bundles the CDK
 * constructs deploy (cdk), and `@svc/mcp-api-keys`, which re-exports the four under its old
 * subpaths. `npm run build:package` checks each API report; `-- --update` rewrites the reports.
 */

/** packages/mcp-api-keys: the compatibility package, and the build's own files (declarations, tsconfigs). */
export const PACKAGE_DIR = fileURLToPath(new URL('.', import.meta.url));
export const PACKAGES_DIR = join(PACKAGE_DIR, '..');
const ROOT = join(PACKAGE_DIR, '../..');
/** Declarations of every source file, before api-extractor rolls them up (not published). */
export const TYPES = join(PACKAGE_DIR, 'declarations');

/** The packages, by folder under packages/: name, and the entry points each holds. */
export const PACKAGES = {
  verifier: { name: '@svc/mcp-api-keys-verifier', entries: ['verifier', 'verifier-mcp-sdk'] },
  cdk: { name: '@svc/mcp-api-keys-cdk', entries: ['cdk'] },
  client: { name: '@svc/mcp-api-keys-client', entries: ['client'] },
  elements: { name: '@svc/mcp-api-keys-elements', entries: ['elements'] },
  'mcp-api-keys': { name: '@svc/mcp-api-keys', entries: [] },
} as const;
export type PackageDir = keyof typeof PACKAGES;
/** The folder of a package under packages/. */
export const packageDir = (pkg: PackageDir) => join(PACKAGES_DIR, pkg);

/** The entry points: the package holding it, its source file, and where it runs. */
export const ENTRY_POINTS = {
  verifier: { package: 'verifier', source: 'lib/index.ts', platform: 'node' },
  // `@svc/mcp-api-keys-verifier/mcp-sdk`: an entry of its own, so that only its users load the MCP SDK.
  'verifier-mcp-sdk': { package: 'verifier', source: 'lib/integrations/mcp-sdk.ts', platform: 'node' },
  cdk: { package: 'cdk', source: 'infra/index.ts', platform: 'node' },
  client: { package: 'client', source: 'web/client/index.ts', platform: 'browser' },
  elements: { package: 'elements', source: 'web/elements.ts', platform: 'browser' },
} as const;
export type EntryPoint = keyof typeof ENTRY_POINTS;
const distOf = (entry: EntryPoint) => join(packageDir(ENTRY_POINTS[entry].package), 'dist');

/** The compatibility package's subpaths: each re-exports an audience package's entry. */
const COMPATIBILITY = {
  verifier: '@svc/mcp-api-keys-verifier',
  'verifier-mcp-sdk': '@svc/mcp-api-keys-verifier/mcp-sdk',
  cdk: '@svc/mcp-api-keys-cdk',
  client: '@svc/mcp-api-keys-client',
  elements: '@svc/mcp-api-keys-elements',
  'elements-react': '@svc/mcp-api-keys-elements/react',
} as const;

/** The single-file browser bundles (Lit and the client included), by file name under dist/bundle/. */
export const ELEMENT_BUNDLES = {
  'svc-mcp-api-keys.js': 'component/svc-mcp-api-keys.ts',
  'svc-mcp-workspace-keys.js': 'component/workspace-keys/svc-mcp-workspace-keys.ts',
  'svc-mcp-consent.js': 'component/consent/svc-mcp-consent.ts',
} as const;

/** The constructs' `prebuilt.ts`, swapped for one that points at the bundles next to dist/cdk.js. */
const prebuiltFunctions: Plugin = {
  name: 'prebuilt-functions',
  setup(b) {
    b.onResolve({ filter: /\/prebuilt\.ts$/ }, () => ({ path: 'prebuilt', namespace: 'prebuilt' }));
    b.onLoad({ filter: /.*/, namespace: 'prebuilt' }, () => ({
      contents:
        "import { fileURLToPath } from 'node:url';\n" +
        "export const PREBUILT_FUNCTIONS_DIR = fileURLToPath(new URL('./functions/', import.meta.url));\n",
      loader: 'js',
    }));
    // Packages imported for names the constructs never use (the management routes' handler
    // factories, the Control Tower rules plugin that is the repository's own synth check) are
    // dropped with those names instead of becoming dependencies of the package: an external
    // package is taken as free of side effects, so an import whose names are unused goes.
    b.onResolve({ filter: /^(@[\w-][\w.-]*\/)?[\w-][\w.-]*(\/[\w./-]+)?$/ }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: args.path, external: true, sideEffects: false },
    );
  },
};

const execFileAsync = promisify(execFile);

const library = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: ROOT,
} as const;

/** The elements import the typed client from its package, not a copy of it. */
const clientPackage: Plugin = {
  name: 'client-package',
  setup(b) {
    b.onResolve({ filter: /\/client\/index\.ts$/ }, () => ({
      path: '@svc/mcp-api-keys-client',
      external: true,
    }));
  },
};

/** The compiled ESM of the entry points; returns the packages each package's entry points import. */
async function compileEntryPoints(): Promise<Map<PackageDir, Set<string>>> {
  const entries = (pkg: PackageDir) =>
    Object.fromEntries(
      Object.entries(ENTRY_POINTS)
        .filter(([, entry]) => entry.package === pkg)
        .map(([name, entry]) => [name, entry.source]),
    );
  const node = (pkg: PackageDir, plugins: Plugin[] = []) =>
    build({
      ...library,
      entryPoints: entries(pkg),
      platform: 'node',
      outdir: join(packageDir(pkg), 'dist'),
      plugins,
    });
  const browser = (pkg: PackageDir, plugins: Plugin[] = []) =>
    build({
      ...library,
      entryPoints: entries(pkg),
      platform: 'browser',
      outdir: join(packageDir(pkg), 'dist'),
      tsconfig: 'web/tsconfig.json',
      plugins,
    });
  const built = {
    verifier: await node('verifier'),
    cdk: await node('cdk', [prebuiltFunctions]),
    client: await browser('client'),
    elements: await browser('elements', [clientPackage]),
  };
  return new Map(
    Object.entries(built).map(([pkg, result]) => [
      pkg as PackageDir,
      new Set(importedPackages(result.metafile)),
    ]),
  );
}

function importedPackages(metafile: Metafile): string[] {
  const found: string[] = [];
  for (const output of Object.values(metafile.outputs))
    for (const imp of output.imports)
      if (imp.external && !imp.path.startsWith('node:') && !imp.path.startsWith('.'))
        found.push(
          imp.path
            .split('/')
            .slice(0, imp.path.startsWith('@') ? 2 : 1)
            .join('/'),
        );
  return found;
}

/** Every function in functions/, bundled with its deployment choice (what `ServiceFunction` deploys). */
async function bundleFunctions(): Promise<void> {
  for (const file of readdirSync(join(ROOT, 'functions'))) {
    const name = basename(file, '.ts');
    await bundleFunction(
      name,
      FUNCTION_BUNDLING[name as FunctionName] ?? {},
      join(distOf('cdk'), 'functions', name, 'index.mjs'),
    );
  }
}

async function bundleElements(): Promise<void> {
  mkdirSync(join(distOf('elements'), 'bundle'), { recursive: true });
  for (const [name, entry] of Object.entries(ELEMENT_BUNDLES))
    writeFileSync(join(distOf('elements'), 'bundle', name), await bundleElement(entry));
}

/**
 * `@svc/mcp-api-keys`, kept for the projects that import its subpaths: each subpath re-exports the
 * audience package's entry (one copy of the code, the audience package's), and the single-file
 * bundles are copied, since a page without a bundler cannot follow a package name.
 */
function compatibilityPackage(): void {
  const dist = join(packageDir('mcp-api-keys'), 'dist');
  mkdirSync(join(dist, 'bundle'), { recursive: true });
  for (const [subpath, target] of Object.entries(COMPATIBILITY)) {
    const line = `export * from '${target}';\n`;
    if (subpath !== 'elements-react') writeFileSync(join(dist, `${subpath}.js`), line);
    writeFileSync(join(dist, `${subpath}.d.ts`), line);
  }
  // A side-effect import of `/elements` defines the elements: `export *` alone may be dropped.
  writeFileSync(
    join(dist, 'elements.js'),
    `import '${COMPATIBILITY.elements}';\nexport * from '${COMPATIBILITY.elements}';\n`,
  );
  for (const name of Object.keys(ELEMENT_BUNDLES))
    copyFileSync(join(distOf('elements'), 'bundle', name), join(dist, 'bundle', name));
}

/** `.d.ts` for every source the entry points reach, resolvable without the sources. */
function emitDeclarations(): void {
  rmSync(TYPES, { recursive: true, force: true });
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  execFileSync(tsc, ['-p', join(PACKAGE_DIR, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  // The sources' subpath imports (`#lib/...`) become relative paths: a consumer has no `#lib`.
  for (const file of readdirSync(TYPES, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.d.ts')) continue;
    const path = join(TYPES, file);
    const text = readFileSync(path, 'utf8').replace(
      /(['"])#(lib|infra|functions)\/([^'"]+)\1/g,
      (_m, quote: string, folder: string, rest: string) => {
        const target = relative(dirname(path), join(TYPES, folder, `${rest}.ts`));
        return `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`;
      },
    );
    writeFileSync(path, text);
  }
}

export interface ApiCheck {
  entry: EntryPoint;
  /** False when the public API differs from the committed report. */
  matches: boolean;
  report: string;
  errors: number;
  warnings: number;
}

function extractorConfig(entry: EntryPoint, typesDir: string, distDir: string | undefined): ExtractorConfig {
  const dir = packageDir(ENTRY_POINTS[entry].package);
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: join(typesDir, ENTRY_POINTS[entry].source.replace(/\.ts$/, '.d.ts')),
      compiler: { tsconfigFilePath: join(PACKAGE_DIR, 'tsconfig.api.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${entry}.api.md`,
        reportFolder: join(dir, 'api'),
        reportTempFolder: join(typesDir, 'api'),
      },
      docModel: { enabled: false },
      dtsRollup: {
        enabled: true,
        publicTrimmedFilePath: join(distDir ?? join(dir, 'dist'), `${entry}.d.ts`),
      },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // Internal types a public signature mentions are listed in the report, which is reviewed.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: join(dir, 'api-extractor.json'),
    packageJsonFullPath: join(dir, 'package.json'),
  });
}

/**
 * Rolls up each entry point's declarations into dist/<entry>.d.ts and compares its API with
 * api/<entry>.api.md (rewritten when `update`). One TypeScript program serves every entry point.
 */
export function extractApis(
  update: boolean,
  options: { typesDir?: string; distDir?: string; entries?: EntryPoint[] } = {},
): ApiCheck[] {
  const entries = options.entries ?? (Object.keys(ENTRY_POINTS) as EntryPoint[]);
  const configs = entries.map((entry) => extractorConfig(entry, options.typesDir ?? TYPES, options.distDir));
  const [first] = configs;
  if (!first) return [];
  const compilerState = CompilerState.create(first, {
    additionalEntryPoints: configs.map((c) => c.mainEntryPointFilePath),
  });
  return entries.map((entry, i) => {
    const config = configs[i] as ExtractorConfig;
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      messageCallback: quietInfo,
    });
    return {
      entry,
      matches: !result.apiReportChanged,
      report: join(packageDir(ENTRY_POINTS[entry].package), 'api', `${entry}.api.md`),
      errors: result.errorCount,
      warnings: result.warningCount,
    };
  });
}

/**
 * What a rollup leaves out: api-extractor drops `declare global`, so the elements entry's own block
 * (the tag names and events, in terms of names the entry exports) is appended to dist/elements.d.ts;
 * the React JSX types (packages/elements/elements-react.d.ts, which needs @types/react) ship beside it.
 */
function addElementTypes(): void {
  const declared = readFileSync(join(TYPES, ENTRY_POINTS.elements.source.replace(/\.ts$/, '.d.ts')), 'utf8');
  const globals = /^declare global \{$[\s\S]*?^\}$/m.exec(declared)?.[0];
  if (!globals) throw new Error('web/elements.ts lost its `declare global` block');
  appendFileSync(join(distOf('elements'), 'elements.d.ts'), `\n${globals}\n`);
  copyFileSync(
    join(packageDir('elements'), 'elements-react.d.ts'),
    join(distOf('elements'), 'elements-react.d.ts'),
  );
}

/** api-extractor's chatter ("Analysis will use…") stays out of the output; warnings do not. */
const quietInfo = (message: { logLevel: string; handled: boolean }) => {
  if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
};

/** What each entry point weighs, for the changelog and review. */
function sizes(): string[] {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const files = [
    ...Object.keys(ENTRY_POINTS).flatMap((e) => [`${e}.js`, `${e}.d.ts`]),
    ...Object.keys(ELEMENT_BUNDLES).map((b) => `bundle/${b}`),
  ];
  const lines = files.map((f) => {
    const pkg = f.startsWith('bundle/')
      ? 'elements'
      : ENTRY_POINTS[f.replace(/\.(js|d\.ts)$/, '') as EntryPoint].package;
    const bytes = readFileSync(join(packageDir(pkg), 'dist', f));
    return `packages/${pkg}/dist/${f}: ${kb(bytes.length)} (${kb(gzipSync(bytes).length)} gzip)`;
  });
  const fnDir = join(distOf('cdk'), 'functions');
  for (const fn of readdirSync(fnDir))
    lines.push(
      `packages/cdk/dist/functions/${fn}/index.mjs: ${kb(statSync(join(fnDir, fn, 'index.mjs')).size)}`,
    );
  return lines;
}

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

export interface BuildResult {
  api: ApiCheck[];
  /** The packages each package's entry points import. */
  imported: Partial<Record<PackageDir, string[]>>;
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

/** What a build reads outside node_modules (git's view: tracked and new files, ignored ones left out). */
const INPUTS = ['lib', 'infra', 'functions', 'web', 'bench', 'packages', 'package.json'];
const INPUT_FILES = ['package-lock.json', 'tsconfig.json'];

function inputsDigest(): string {
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
const STAMP = join(TYPES, 'build.json');

function reusableBuild(inputs: string): BuildResult | undefined {
  const complete = (Object.keys(ENTRY_POINTS) as EntryPoint[]).every(
    (entry) =>
      existsSync(join(distOf(entry), `${entry}.js`)) && existsSync(join(distOf(entry), `${entry}.d.ts`)),
  );
  if (!complete || !existsSync(STAMP)) return undefined;
  const stamp = JSON.parse(readFileSync(STAMP, 'utf8')) as BuildResult & { inputs: string };
  return stamp.inputs === inputs ? { api: stamp.api, imported: stamp.imported } : undefined;
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

async function exclusively<T>(work: () => Promise<T>): Promise<T> {
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
  // Each package declares exactly what its entry points import: no more (a dashboard must not
  // install the AWS SDK), no less.
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
