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
 * Builds the published package `@svc/mcp-api-keys` into packages/mcp-api-keys/dist from the
 * repository's sources: compiled ESM per entry point, one rolled-up `.d.ts` each (api-extractor),
 * the single-file element bundles, and the prebuilt Lambda bundles the CDK constructs deploy.
 * `npm run build:package` checks each API report; `-- --update` rewrites the reports.
 */

export const PACKAGE_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(PACKAGE_DIR, '../..');
const DIST = join(PACKAGE_DIR, 'dist');
/** Declarations of every source file, before api-extractor rolls them up (not published). */
export const TYPES = join(PACKAGE_DIR, 'declarations');

/** The entry points: subpath, source file, and where it runs. */
export const ENTRY_POINTS = {
  verifier: { source: 'lib/index.ts', platform: 'node' },
  // `./verifier/mcp-sdk`: an entry of its own, so that only its users load the MCP SDK.
  'verifier-mcp-sdk': { source: 'lib/integrations/mcp-sdk.ts', platform: 'node' },
  cdk: { source: 'infra/index.ts', platform: 'node' },
  client: { source: 'web/client/index.ts', platform: 'browser' },
  elements: { source: 'web/elements.ts', platform: 'browser' },
} as const;
export type EntryPoint = keyof typeof ENTRY_POINTS;

/** The single-file browser bundles (Lit and the client included), by file name under dist/bundle/. */
export const ELEMENT_BUNDLES = {
  'svc-mcp-api-keys.js': 'component/svc-mcp-api-keys.ts',
  'svc-mcp-workspace-keys.js': 'component/workspace-keys/svc-mcp-workspace-keys.ts',
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
    // The Control Tower rules plugin is the repository's own synth check, not the constructs':
    // its import is dropped with the unused class instead of becoming a dependency.
    b.onResolve({ filter: /^@cdklabs\/cdk-validator-cfnguard$/ }, (args) => ({
      path: args.path,
      external: true,
      sideEffects: false,
    }));
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

/** The compiled ESM of the entry points; returns the packages they import. */
async function compileEntryPoints(): Promise<Set<string>> {
  const node = await build({
    ...library,
    entryPoints: Object.fromEntries(
      Object.entries(ENTRY_POINTS)
        .filter(([, entry]) => entry.platform === 'node')
        .map(([name, entry]) => [name, entry.source]),
    ),
    platform: 'node',
    outdir: DIST,
    plugins: [prebuiltFunctions],
  });
  // One build for both browser entries: the client is one shared chunk, not two copies.
  const browser = await build({
    ...library,
    entryPoints: { client: ENTRY_POINTS.client.source, elements: ENTRY_POINTS.elements.source },
    platform: 'browser',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outdir: DIST,
    tsconfig: 'web/tsconfig.json',
  });
  return new Set([...importedPackages(node.metafile), ...importedPackages(browser.metafile)]);
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
      join(DIST, 'functions', name, 'index.mjs'),
    );
  }
}

async function bundleElements(): Promise<void> {
  mkdirSync(join(DIST, 'bundle'), { recursive: true });
  for (const [name, entry] of Object.entries(ELEMENT_BUNDLES))
    writeFileSync(join(DIST, 'bundle', name), await bundleElement(entry));
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

function extractorConfig(entry: EntryPoint, typesDir: string, distDir: string): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: PACKAGE_DIR,
      mainEntryPointFilePath: join(typesDir, ENTRY_POINTS[entry].source.replace(/\.ts$/, '.d.ts')),
      compiler: { tsconfigFilePath: join(PACKAGE_DIR, 'tsconfig.api.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${entry}.api.md`,
        reportFolder: join(PACKAGE_DIR, 'api'),
        reportTempFolder: join(typesDir, 'api'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: true, publicTrimmedFilePath: join(distDir, `${entry}.d.ts`) },
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
    configObjectFullPath: join(PACKAGE_DIR, 'api-extractor.json'),
    packageJsonFullPath: join(PACKAGE_DIR, 'package.json'),
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
  const configs = entries.map((entry) =>
    extractorConfig(entry, options.typesDir ?? TYPES, options.distDir ?? DIST),
  );
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
      report: join(PACKAGE_DIR, 'api', `${entry}.api.md`),
      errors: result.errorCount,
      warnings: result.warningCount,
    };
  });
}

/**
 * What a rollup leaves out: api-extractor drops `declare global`, so the elements entry's own block
 * (the tag names and events, in terms of names the entry exports) is appended to dist/elements.d.ts;
 * the React JSX types (elements-react.d.ts, which needs @types/react) ship beside it.
 */
function addElementTypes(): void {
  const declared = readFileSync(join(TYPES, ENTRY_POINTS.elements.source.replace(/\.ts$/, '.d.ts')), 'utf8');
  const globals = /^declare global \{$[\s\S]*?^\}$/m.exec(declared)?.[0];
  if (!globals) throw new Error('web/elements.ts lost its `declare global` block');
  appendFileSync(join(DIST, 'elements.d.ts'), `\n${globals}\n`);
  copyFileSync(join(PACKAGE_DIR, 'elements-react.d.ts'), join(DIST, 'elements-react.d.ts'));
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
    const bytes = readFileSync(join(DIST, f));
    return `dist/${f}: ${kb(bytes.length)} (${kb(gzipSync(bytes).length)} gzip)`;
  });
  const fnDir = join(DIST, 'functions');
  for (const fn of readdirSync(fnDir))
    lines.push(`dist/functions/${fn}/index.mjs: ${kb(statSync(join(fnDir, fn, 'index.mjs')).size)}`);
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
  imported: string[];
}

/**
 * Builds the package (or keeps the build of the same inputs) while no other process builds or
 * packs it: test files running side by side must not empty dist/ under each other.
 */
export function buildPackage(options: BuildOptions = {}): Promise<BuildResult> {
  return exclusively(() => buildOrReuse(options));
}

/** The built package as `npm pack` makes it, in `destination` (building it first, or reusing the build). */
export function packPackage(destination: string): Promise<BuildResult & { tarball: string }> {
  return exclusively(async () => {
    const built = await buildOrReuse({ quiet: true });
    const packed = await execFileAsync('npm', ['pack', '--pack-destination', destination, '--json'], {
      cwd: PACKAGE_DIR,
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string }[];
    if (!info) throw new Error(`npm pack made no tarball: ${packed.stdout}${packed.stderr}`);
    return { ...built, tarball: join(destination, info.filename) };
  });
}

/** What a build reads outside node_modules (git's view: tracked and new files, ignored ones left out). */
const INPUTS = ['lib', 'infra', 'functions', 'web', 'bench', 'packages/mcp-api-keys', 'package.json'];
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
  const complete = Object.keys(ENTRY_POINTS).every(
    (entry) => existsSync(join(DIST, `${entry}.js`)) && existsSync(join(DIST, `${entry}.d.ts`)),
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
        throw new Error(`another build of the package held ${LOCK} for 15 minutes`);
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
  rmSync(DIST, { recursive: true, force: true });
  const imported = await compileEntryPoints();
  step('entry points');
  const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const undeclared = [...imported].filter((p) => !declared.has(p));
  if (undeclared.length > 0)
    throw new Error(`packages/mcp-api-keys/package.json lacks dependencies: ${undeclared.join(', ')}`);
  const unused = [...declared].filter((p) => !imported.has(p));
  if (unused.length > 0) throw new Error(`packages/mcp-api-keys/package.json: unused ${unused.join(', ')}`);
  await bundleFunctions();
  step('function bundles');
  await bundleElements();
  step('element bundles');
  emitDeclarations();
  step('declarations');
  const api = extractApis(update);
  addElementTypes();
  step('api reports');
  for (const line of sizes()) log(line);
  for (const check of api)
    log(
      `api/${check.entry}.api.md: ${check.matches ? 'unchanged' : 'CHANGED'} (${relative(ROOT, check.report)})`,
    );
  return { api, imported: [...imported].sort() };
}

// `npm run build:package [-- --update]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const update = process.argv.includes('--update');
  const { api } = await buildPackage({ update, reuse: false });
  const stale = api.filter((a) => !a.matches || a.errors > 0);
  if (stale.length > 0 && !update) {
    console.error(
      `The public API changed: ${stale.map((a) => a.entry).join(', ')}. Review the difference, ` +
        'then run `npm run build:package -- --update` and commit packages/mcp-api-keys/api/.',
    );
    process.exit(1);
  }
}
