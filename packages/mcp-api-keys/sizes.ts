import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { distOf, ELEMENT_BUNDLES, ENTRY_POINTS, type EntryPoint, packageDir } from './layout.ts';

/** What each entry point weighs, for the changelog and review. */
export function sizes(): string[] {
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
