import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ELEMENT_BUNDLES, ENTRY_POINTS } from '../../packages/mcp-api-keys/build.ts';

/**
 * What a dashboard's bundler meets: each browser entry of the package (the client, the elements
 * and the single-file bundles) bundled from source for `platform: 'browser'`, with every package
 * it imports followed. A `node:` import anywhere in that graph (e.g. lib/keys/format.ts, which
 * mints keys with node:crypto) would fail in a browser: each one found is listed with its importer.
 */
const BROWSER_ENTRIES = [
  ...Object.values(ENTRY_POINTS)
    .filter((e) => e.platform === 'browser')
    .map((e) => e.source),
  ...Object.values(ELEMENT_BUNDLES).map((file) => `web/${file}`),
];

async function nodeImports(entry: string): Promise<string[]> {
  const found: string[] = [];
  const recordNode: Plugin = {
    name: 'record-node-imports',
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (args) => {
        found.push(`${args.path} (imported by ${args.importer})`);
        return { path: args.path, external: true };
      });
    },
  };
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    tsconfig: 'web/tsconfig.json',
    plugins: [recordNode],
  });
  return found;
}

describe('the browser entries', () => {
  it('are the client, the elements and the three single-file bundles', () => {
    expect(BROWSER_ENTRIES).toEqual([
      'web/client/index.ts',
      'web/elements.ts',
      'web/component/svc-mcp-api-keys.ts',
      'web/component/workspace-keys/svc-mcp-workspace-keys.ts',
      'web/component/consent/svc-mcp-consent.ts',
    ]);
  });

  it.each(BROWSER_ENTRIES)('%s reaches no Node built-in', async (entry) => {
    expect(await nodeImports(entry)).toEqual([]);
  });

  it('a test entry that does reach one is caught (lib/keys/format.ts)', async () => {
    expect(await nodeImports('lib/keys/format.ts')).toEqual([
      expect.stringContaining('node:crypto'),
      expect.stringContaining('node:zlib'),
    ]);
  });

  it('the client offers the key grammar from its Node-free module', async () => {
    const client = await import('../../web/client/index.ts');
    const { KEY_PATTERN, KEY_SCANNER_PATTERN, KEY_LENGTH, KEY_PREFIX } = await import('#lib/keys/format');
    expect([client.KEY_PATTERN, client.KEY_SCANNER_PATTERN, client.KEY_LENGTH, client.KEY_PREFIX]).toEqual([
      KEY_PATTERN,
      KEY_SCANNER_PATTERN,
      KEY_LENGTH,
      KEY_PREFIX,
    ]);
  });
});
