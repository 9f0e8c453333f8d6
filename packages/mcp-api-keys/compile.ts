import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { FUNCTION_BUNDLING, type FunctionName } from '../../infra/constructs/bundling.ts';
import { bundleFunction } from '../../infra/constructs/esbuild-bundle.ts';
import { bundle as bundleElement } from '../../web/build.ts';
import {
  COMPATIBILITY,
  distOf,
  ELEMENT_BUNDLES,
  ENTRY_POINTS,
  type PackageDir,
  packageDir,
  ROOT,
} from './layout.ts';

/**
 * The packages' code (packages/mcp-api-keys/build.ts): each entry point compiled to ESM, the
 * Lambda bundles the CDK constructs deploy, the elements' single-file bundles, and the
 * compatibility package's re-exports.
 */

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
export async function compileEntryPoints(): Promise<Map<PackageDir, Set<string>>> {
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
  const browser = (pkg: PackageDir, plugins: Plugin[] = [], compact = false) =>
    build({
      ...library,
      entryPoints: entries(pkg),
      platform: 'browser',
      outdir: join(packageDir(pkg), 'dist'),
      tsconfig: 'web/tsconfig.json',
      plugins,
      // The client's code minified (its exports keep their names): the
      // package stays within its 50 kB (contract §16) while its types, with their docs, grow.
      ...(compact && { minify: true }),
    });
  const built = {
    verifier: await node('verifier'),
    cdk: await node('cdk', [prebuiltFunctions]),
    client: await browser('client', [], true),
    elements: await browser('elements', [clientPackage]),
  };
  return new Map(
    Object.entries(built).map(([pkg, result]) => [
      pkg as PackageDir,
      new Set(importedPackages(result.metafile)),
    ]),
  );
}

/** The packages a build's outputs import, by name (`@scope/name` or `name`). */
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
export async function bundleFunctions(): Promise<void> {
  for (const file of readdirSync(join(ROOT, 'functions'))) {
    const name = basename(file, '.ts');
    await bundleFunction(
      name,
      FUNCTION_BUNDLING[name as FunctionName] ?? {},
      join(distOf('cdk'), 'functions', name, 'index.mjs'),
    );
  }
}

/** The elements' single-file bundles, Lit and the client included. */
export async function bundleElements(): Promise<void> {
  mkdirSync(join(distOf('elements'), 'bundle'), { recursive: true });
  for (const [name, entry] of Object.entries(ELEMENT_BUNDLES))
    writeFileSync(join(distOf('elements'), 'bundle', name), await bundleElement(entry));
}

/**
 * `@svc/mcp-api-keys`, kept for the projects that import its subpaths: each subpath re-exports the
 * audience package's entry (one copy of the code, the audience package's), and the single-file
 * bundles are copied, since a page without a bundler cannot follow a package name.
 */
export function compatibilityPackage(): void {
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
