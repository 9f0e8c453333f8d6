import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const WEB = fileURLToPath(new URL('.', import.meta.url));

/** Entry points of the browser bundles, relative to web/. */
export const BUNDLES = {
  /** The embeddable element with the typed client: what a dashboard loads. */
  'svc-mcp-api-keys.js': 'component/svc-mcp-api-keys.ts',
  /** The administrators' element of a workspace (contract §12). */
  'svc-mcp-workspace-keys.js': 'component/workspace-keys/svc-mcp-workspace-keys.ts',
  /** The consent page's element of the OAuth flow (contract §15). */
  'svc-mcp-consent.js': 'component/consent/svc-mcp-consent.ts',
  /** The local page: the dev sign-in around the element. */
  'dev.js': 'dev/dev.ts',
  /** The local consent page (`/consent`): the same dev sign-in around `<svc-mcp-consent>`. */
  'consent.js': 'dev/consent.ts',
} as const;

/** Bundles one entry for browsers, minified, as an ES module. */
export async function bundle(entry: string): Promise<Uint8Array> {
  const result = await build({
    entryPoints: [`${WEB}${entry}`],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    tsconfig: `${WEB}tsconfig.json`,
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  return output.contents;
}

// `npm run build:web`: writes dist/web/ for a dashboard to host, and prints the sizes.
if (import.meta.url === `file://${process.argv[1]}`) {
  mkdirSync('dist/web', { recursive: true });
  for (const [name, entry] of Object.entries(BUNDLES)) {
    const bytes = await bundle(entry);
    writeFileSync(`dist/web/${name}`, bytes);
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(`dist/web/${name}: ${kb(bytes.length)} (${kb(gzipSync(bytes).length)} gzip)`);
  }
}
