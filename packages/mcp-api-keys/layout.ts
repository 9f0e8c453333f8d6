import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the packages' sources are and where each package's build goes (packages/mcp-api-keys/build.ts). */

/** packages/mcp-api-keys: the compatibility package, and the build's own files (declarations, tsconfigs). */
export const PACKAGE_DIR = fileURLToPath(new URL('.', import.meta.url));
export const PACKAGES_DIR = join(PACKAGE_DIR, '..');
/** The repository, whose lib/, infra/ and web/ hold every package's sources. */
export const ROOT = join(PACKAGE_DIR, '../..');
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
/** Where an entry point's build goes: its package's dist/. */
export const distOf = (entry: EntryPoint) => join(packageDir(ENTRY_POINTS[entry].package), 'dist');

/** The compatibility package's subpaths: each re-exports an audience package's entry. */
export const COMPATIBILITY = {
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
