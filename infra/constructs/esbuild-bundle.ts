import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { type BundlingChoice, esbuildSettings } from './bundling.ts';
import { trimSourceMap } from './source-map.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/*
 * A function's bundle made outside a synth, exactly as `ServiceFunction` makes it: the published
 * CDK package's prebuilt bundles (packages/mcp-api-keys/build.ts), the bundle tests and the
 * benchmarks' cold starts. The constructs never import it.
 */

/**
 * Bundles `functions/<name>.ts` with `ServiceFunction`'s esbuild options
 * (infra/constructs/service-function.ts) and the function's bundling choice. Returns the size
 * in KB and the esbuild metafile (what went into the bundle).
 */
export async function bundleFunction(name: string, choice: BundlingChoice, outfile: string) {
  return bundleEntry(join(ROOT, 'functions', `${name}.ts`), choice, outfile);
}

/** Bundles any entry point the way `bundleFunction` bundles a function (a cold start's floor). */
export async function bundleEntry(entry: string, choice: BundlingChoice, outfile: string) {
  const settings = esbuildSettings(choice);
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    sourcemap: settings.sourceMap,
    sourcesContent: false,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    external: settings.external,
    alias: settings.alias,
    supported: settings.supported,
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'silent',
  });
  if (settings.sourceMap) trimSourceMap(`${outfile}.map`);
  return { kb: statSync(outfile).size / 1024, metafile: result.metafile };
}
