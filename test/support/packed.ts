import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { ApiCheck, PackageDir, Packed } from '../../packages/mcp-api-keys/build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the package tier's background set-up (test/support/pack-setup.ts) writes its result. */
    packDir: string;
  }
}

/**
 * The consumer projects of the package tier: other teams' projects, outside this repository, each
 * a fixture of test/package/fixtures/<name> with the tarballs of `packages` installed by npm (and
 * `installs` from the registry), and the heavy tools it also uses linked from this repository's
 * node_modules rather than installed again (peer dependencies are the project's own: installed
 * with `--legacy-peer-deps`, then linked).
 */
export const CONSUMERS = {
  // A platform team's CDK apps.
  cdk: { packages: ['cdk'], links: ['aws-cdk-lib', 'constructs', 'cdk-nag', '@types/node'] },
  // A team's MCP server verifying keys in-process.
  'mcp-server': { packages: ['verifier'], links: ['@modelcontextprotocol/sdk', '@types/node'] },
  // A dashboard page bundling the element, with the client it imports.
  dashboard: { packages: ['elements', 'client'], links: ['esbuild', '@types/node'] },
  // A React 19 dashboard type-checking the elements in JSX (the repository has no @types/react).
  'react-dashboard': {
    packages: ['elements', 'client'],
    links: [],
    installs: ['react@19', '@types/react@19'],
  },
  // A project still on `@svc/mcp-api-keys`'s subpaths.
  compatibility: {
    packages: ['mcp-api-keys', 'verifier', 'cdk', 'client', 'elements'],
    links: ['aws-cdk-lib', 'constructs', '@modelcontextprotocol/sdk', '@types/node'],
  },
  // Contract §16's framework integrations: the team's own MCP SDK v1 (the package's optional
  // peer), Hono, Express and their types.
  integrations: {
    packages: ['verifier'],
    links: [
      '@modelcontextprotocol/sdk',
      'hono',
      '@hono/node-server',
      'express',
      '@types/node',
      '@types/express',
      '@types/express-serve-static-core',
      '@types/body-parser',
      '@types/connect',
      '@types/http-errors',
      '@types/qs',
      '@types/range-parser',
      '@types/send',
      '@types/serve-static',
    ],
  },
} satisfies Record<string, { packages: PackageDir[]; links: string[]; installs?: string[] }>;
export type Consumer = keyof typeof CONSUMERS;

/** The packages a package brings: itself, and what it depends on (each audience package's own set). */
export const BRINGS: Record<PackageDir, PackageDir[]> = {
  verifier: ['verifier'],
  cdk: ['cdk'],
  client: ['client'],
  elements: ['elements', 'client'],
  'mcp-api-keys': ['mcp-api-keys', 'verifier', 'cdk', 'client', 'elements'],
};

/** An installed project: its directory, or why npm could not install it. */
export type Installed = { dir: string } | { error: string };

/** A command's exit code and output, stdout and stderr together. */
export interface Ran {
  code: number;
  output: string;
}

/** What test/support/pack-run.ts writes once the packages are packed. */
export type PackResult =
  | { ok: true; api: ApiCheck[]; tarballs: Record<PackageDir, Packed> }
  | { ok: false; message: string };

/** What test/support/pack-run.ts writes next, once every project is installed. */
export interface InstallResult {
  /** Each consumer project, installed. */
  consumers: Record<Consumer, Installed>;
  /** Each package installed alone (with the packages it brings, `BRINGS`) into an empty project. */
  alone: Record<PackageDir, Installed>;
}

export const PACK_RESULT = 'pack-result.json';
export const INSTALL_RESULT = 'install-result.json';
/** Then, one by one, each installed consumer project's `tsc -p tsconfig.json` (a `Ran`). */
export const typecheckResult = (name: Consumer) => `typecheck-${name}.json`;
/** What test/support/pack-setup.ts writes when the process exits: its code and its stderr. */
export const PACK_EXIT = 'pack-exit.json';
const PACK_WAIT_MS = 10 * 60_000;

/** Waits for a file of the background set-up; throws when the process exited without writing it. */
async function read<T>(dir: string, file: string): Promise<T> {
  const deadline = Date.now() + PACK_WAIT_MS;
  for (;;) {
    if (existsSync(join(dir, file))) return JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
    if (existsSync(join(dir, PACK_EXIT))) {
      // Written before the process exited, or not at all.
      if (existsSync(join(dir, file))) continue;
      const exit = JSON.parse(readFileSync(join(dir, PACK_EXIT), 'utf8')) as { exit: string; stderr: string };
      throw new Error(`the package tier's set-up exited (${exit.exit}) without ${file}:\n${exit.stderr}`);
    }
    if (Date.now() > deadline)
      throw new Error(`the package tier's set-up did not write ${file} in ${PACK_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The run's packages, packed once (test/support/pack-setup.ts, in the background from the start
 * of the run); a failed build or pack fails with its message. The consumer projects are installed
 * from the tarballs after that, and each is type-checked once they all are: `installed` and
 * `typecheck` wait for those (a failed install fails the tests of its project with npm's output).
 */
export async function packed() {
  const dir = inject('packDir');
  const outcome = await read<PackResult>(dir, PACK_RESULT);
  if (!outcome.ok) throw new Error(`packing the packages failed:\n${outcome.message}`);
  const dirOf = (name: string, installed: Installed) => {
    if ('error' in installed) throw new Error(`npm install in ${name} failed:\n${installed.error}`);
    return installed.dir;
  };
  let installs: Promise<InstallResult> | undefined;
  const installed = async () => {
    installs ??= read<InstallResult>(dir, INSTALL_RESULT);
    const result = await installs;
    return {
      /** A consumer project's directory (throws npm's output when its install failed). */
      consumer: (name: Consumer) => dirOf(name, result.consumers[name]),
      /** The directory a package was installed into alone. */
      alone: (pkg: PackageDir) => dirOf(`installed-${pkg}`, result.alone[pkg]),
    };
  };
  return {
    api: outcome.api,
    tarballs: outcome.tarballs,
    installed,
    /** The project's `tsc -p tsconfig.json`, run in the background once every project was installed. */
    typecheck: async (name: Consumer): Promise<Ran> => {
      (await installed()).consumer(name);
      return read<Ran>(dir, typecheckResult(name));
    },
  };
}
