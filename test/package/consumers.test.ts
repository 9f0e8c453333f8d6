import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localEndpoint } from '#lib/store/client';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { BRINGS, packed } from '#test/support/packed';
import { runCommand as run } from '#test/support/run-command';
import { soakOnly } from '#test/support/soak';
import {
  type ApiCheck,
  type EntryPoint,
  extractApis,
  PACKAGES,
  type PackageDir,
  type Packed,
  packageDir,
  TYPES,
} from '../../packages/mcp-api-keys/build.ts';

/**
 * Other teams' projects, outside this repository (under the OS temp directory), installing only
 * the `npm pack` tarballs of packages/ (one package per audience, contract §16): a platform team's
 * CDK apps (`@svc/mcp-api-keys-cdk`, in cdk-app.test.ts), a team's MCP server verifying keys in-process
 * (`@svc/mcp-api-keys-verifier`), a dashboard page bundling the element and a React 19 dashboard
 * type-checking the elements in JSX (`@svc/mcp-api-keys-elements`, with the client it imports),
 * and a project still on `@svc/mcp-api-keys`'s subpaths. The packages are packed once for the run
 * and the projects installed from the tarballs in the background from the run's start
 * (test/support/pack-setup.ts; what each project installs and links: `CONSUMERS` in
 * test/support/packed.ts); this file waits for them.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const KEY = /^svc_mcp_v1_[0-9A-Za-z]{71}$/;
const started = Date.now();

let work: string;
let tarballs: Record<PackageDir, Packed>;
let api: ApiCheck[];
let service: RunningService;
let dataDir: string;
const call = jsonClient(() => service.url);
const projects: Record<'mcp-server' | 'dashboard' | 'react-dashboard' | 'compatibility', string> = {
  'mcp-server': '',
  dashboard: '',
  'react-dashboard': '',
  compatibility: '',
};
/** The packing's outcome: each project's `tsc -p tsconfig.json` is run in the background once installed. */
let ready: Awaited<ReturnType<typeof packed>>;
/** Where each package was installed alone into an empty project. */
const alone = {} as Record<PackageDir, string>;
/** What each package weighs installed alone into an empty project (peer dependencies excluded). */
const installed = {} as Record<PackageDir, { bytes: number; packages: number }>;

const _exec = promisify(execFile);

/** Bytes of every file under `dir` (what the project's disk holds), and the packages npm installed there. */
function measure(dir: string): { bytes: number; packages: number } {
  const modules = join(dir, 'node_modules');
  let bytes = 0;
  for (const entry of readdirSync(modules, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  const lock = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return { bytes, packages: Object.keys(lock.packages).filter((path) => path !== '').length };
}

let starting: Promise<RunningService>;

/**
 * The local service starts and the packing is awaited before the first test; the tests of the
 * tarballs themselves run while the projects are still being installed (in the background), and
 * each describe below that needs an installed project, or the service, waits for it first.
 */
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-consumers-'));
  dataDir = join(work, 'service-data');
  starting = startService({ DATA_DIR: dataDir });
  // Awaited by the tests that call the service (and stopped in afterAll); a failure fails them.
  starting.catch(() => {});
  ready = await packed();
  ({ api, tarballs } = ready);
}, 600_000);

let installing: Promise<void> | undefined;
/** The consumer projects, and each package installed alone, once the background installed them. */
const projectsInstalled = () => {
  installing ??= (async () => {
    const done = await ready.installed();
    for (const name of Object.keys(projects) as (keyof typeof projects)[])
      projects[name] = done.consumer(name);
    for (const pkg of Object.keys(BRINGS) as PackageDir[]) {
      alone[pkg] = done.alone(pkg);
      installed[pkg] = measure(alone[pkg]);
    }
  })();
  return installing;
};
const serviceStarted = async () => {
  service = await starting;
};

afterAll(async () => {
  await (await starting?.catch(() => undefined))?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`consumer tests: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
});

/** What each tarball must hold besides its manifest, README, LICENSE and CHANGELOG. */
const SHIPPED: Record<PackageDir, string[]> = {
  verifier: [
    'dist/verifier.js',
    'dist/verifier.d.ts',
    'dist/verifier-mcp-sdk.js',
    'dist/verifier-mcp-sdk.d.ts',
  ],
  cdk: ['dist/cdk.js', 'dist/cdk.d.ts', 'dist/functions/mcp-authorizer/index.mjs'],
  client: ['dist/client.js', 'dist/client.d.ts'],
  elements: [
    'dist/elements.js',
    'dist/elements.d.ts',
    'dist/elements-react.d.ts',
    'dist/bundle/svc-mcp-api-keys.js',
    'dist/bundle/svc-mcp-workspace-keys.js',
    'dist/bundle/svc-mcp-consent.js',
  ],
  'mcp-api-keys': [
    'dist/verifier.js',
    'dist/verifier-mcp-sdk.d.ts',
    'dist/cdk.js',
    'dist/client.d.ts',
    'dist/elements.js',
    'dist/elements-react.d.ts',
    'dist/bundle/svc-mcp-api-keys.js',
  ],
};

describe('the packages', () => {
  it('have a public API per entry point equal to its committed report (packages/<package>/api)', () => {
    const changed = api.filter((a) => !a.matches || a.errors > 0).map((a) => a.entry);
    expect(changed, 'run `npm run build:package -- --update`, review and commit the reports').toEqual([]);
    expect(api.map((a) => a.entry).sort()).toEqual([
      'cdk',
      'client',
      'elements',
      'verifier',
      'verifier-mcp-sdk',
    ]);
  });

  soakOnly(
    'fails the API check when an export is added without updating the report',
    () => {
      const changed = join(work, 'declarations-changed');
      cpSync(TYPES, changed, { recursive: true });
      const entry = join(changed, 'lib/index.d.ts');
      writeFileSync(
        entry,
        `${readFileSync(entry, 'utf8')}\nexport declare const addedWithoutReview: number;\n`,
      );
      const entries: EntryPoint[] = ['verifier'];
      const [check] = extractApis(false, { typesDir: changed, distDir: join(work, 'dist-changed'), entries });
      expect(check?.matches).toBe(false);
    },
    120_000,
  );

  it.each(Object.keys(PACKAGES) as PackageDir[])(
    '%s holds its built entry points only: no source, test, bench, local-mode or dev file',
    async (pkg) => {
      const listed = await run(work, 'tar', ['-tzf', tarballs[pkg].tarball]);
      const files = listed.stdout
        .trim()
        .split('\n')
        .map((f) => f.replace(/^package\//, ''));
      expect(files).toEqual(
        expect.arrayContaining([...SHIPPED[pkg], 'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']),
      );
      const unexpected = files.filter(
        (f) =>
          !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+\.(js|mjs|d\.ts|mjs\.map))$/.test(f) ||
          /\/(test|bench|local|dev|fixtures)\//.test(f),
      );
      expect(unexpected).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8'));
      expect(manifest).toMatchObject({
        name: PACKAGES[pkg].name,
        license: 'Apache-2.0',
        repository: { directory: `packages/${pkg}` },
        homepage: expect.stringMatching(/^https:\/\//),
      });
      // Ranges, not pins: a team's lockfile deduplicates the AWS SDK and Lit with its own.
      for (const range of Object.values({ ...manifest.dependencies, ...manifest.peerDependencies }))
        expect(range).toMatch(/^\^/);
    },
  );

  it('put nothing of local mode or tests into the function bundles (their source maps)', () => {
    const maps = readdirSync(join(packageDir('cdk'), 'dist/functions')).map((fn) =>
      JSON.parse(readFileSync(join(packageDir('cdk'), 'dist/functions', fn, 'index.mjs.map'), 'utf8')),
    ) as { sources: string[] }[];
    const sources = maps.flatMap((m) => m.sources);
    expect(sources.some((s) => s.includes('lib/keys/'))).toBe(true);
    expect(sources.filter((s) => /(infra\/local|\/test\/|\/bench\/|web\/dev)/.test(s))).toEqual([]);
  });
});

describe('what each audience installs (npm install of the tarball into an empty project)', () => {
  beforeAll(projectsInstalled, 600_000);
  afterAll(() => {
    // The figures of docs/benchmarks.md ("Packages").
    const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    console.log('| package | packed | installed | packages installed |');
    for (const [pkg, size] of Object.entries(installed))
      console.log(
        `| \`${PACKAGES[pkg as PackageDir].name}\` | ${kb(tarballs[pkg as PackageDir].size)} | ${kb(size.bytes)} | ${size.packages} |`,
      );
  });

  // A dashboard that needs the client installs the client (docs/benchmarks.md, "Packages").
  it('the client: itself alone, at most 50 kB', () => {
    expect(installed.client.packages).toBe(1);
    expect(installed.client.bytes).toBeLessThanOrEqual(50_000);
  });

  it('the elements: the client and Lit, nothing of AWS or the CDK', () => {
    const dir = join(alone.elements, 'node_modules');
    expect(readdirSync(join(dir, '@svc')).sort()).toEqual(['mcp-api-keys-client', 'mcp-api-keys-elements']);
    expect(existsSync(join(dir, 'lit'))).toBe(true);
    expect(existsSync(join(dir, '@aws-sdk'))).toBe(false);
    expect(installed.elements.packages).toBeLessThan(10);
  });

  it('the verifier: the AWS SDK clients it calls, no zod, no CDK, no Lit, no MCP SDK', () => {
    const dir = join(alone.verifier, 'node_modules');
    for (const absent of ['zod', 'aws-cdk-lib', 'lit', '@modelcontextprotocol', '@middy'])
      expect(existsSync(join(dir, absent)), absent).toBe(false);
    expect(existsSync(join(dir, '@aws-sdk/client-kms'))).toBe(true);
  });

  it('the CDK constructs: the settings’ zod, one middy parser and jose (the routes’ token checks), not the CDK (the app’s own) nor the AWS SDK', () => {
    const dir = join(alone.cdk, 'node_modules');
    for (const absent of ['aws-cdk-lib', 'constructs', '@aws-sdk', 'lit', '@modelcontextprotocol'])
      expect(existsSync(join(dir, absent)), absent).toBe(false);
    expect(
      readdirSync(dir)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual(['@middy', '@svc', 'jose', 'zod']);
  });
});

describe('a project still on @svc/mcp-api-keys, from the tarballs', () => {
  beforeAll(projectsInstalled, 600_000);
  it('type-checks every subpath it imported before the split', async () => {
    const result = await ready.typecheck('compatibility');
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('loads them: the compatibility package re-exports the audience packages', async () => {
    const ran = await run(projects.compatibility, process.execPath, ['main.ts']);
    expect(ran.output).not.toContain('Error');
    expect(JSON.parse(ran.stdout)).toEqual({
      verifier: 'function',
      denial: 401,
      sdk: 'function',
      cdk: 'function',
      client: 'function',
      grammar: false,
      workspace: 'editor',
    });
  }, 60_000);
});

/**
 * The local service's DynamoDB Local endpoint: the run's DynamoDB Local, which the service uses
 * (`DYNAMODB_LOCAL_URL`, test/support/global-setup.ts), and the access key file of the service's
 * database there.
 */
function localDynamoEndpoint(): string {
  const shared = inject('dynamoEndpoint');
  if (!shared) throw new Error('the run’s DynamoDB Local is not set up for the package tier');
  const accessKeyId = readFileSync(join(dataDir, 'dynamodb', 'access-key-id'), 'utf8').trim();
  return `http://${accessKeyId}@${new URL(shared).host}`;
}

describe('a team’s MCP server verifying keys in-process, from the tarball', () => {
  beforeAll(() => Promise.all([projectsInstalled(), serviceStarted()]), 600_000);
  let server: ChildProcess | undefined;
  afterAll(() => server?.kill());

  it('type-checks against the shipped declarations', async () => {
    const result = await ready.typecheck('mcp-server');
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('answers the official client for a valid key, and 401 with contract §7’s message once it is revoked', async () => {
    const { token, workspaceId } = await devMember(call, 'team-mcp-user');
    const created = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'team server', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
    });
    expect(created.status).toBe(201);
    const apiKey = created.json.api_key as string;
    expect(apiKey).toMatch(KEY);

    // The verifier's options, as they are: nothing comes from the server's environment.
    const options = {
      keysTableName: 'svc-mcp-api-keys',
      membershipsTableName: 'svc-workspace-memberships',
      region: 'us-east-1',
      ...localEndpoint(localDynamoEndpoint()),
      pepper: {
        version: 1,
        base64: readFileSync(join(dataDir, 'pepper', 'pepper-v1.bin')).toString('base64'),
      },
    };
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !/^(AWS_|KEYS_|MEMBERSHIPS_|PEPPER_|DYNAMODB_)/.test(name),
      ),
    );
    server = spawn(process.execPath, ['server.ts', JSON.stringify(options)], {
      cwd: projects['mcp-server'],
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<string>((resolve, reject) => {
      server?.stdout?.on('data', (d: Buffer) => {
        const match = /listening on (\d+)/.exec(d.toString());
        if (match?.[1]) resolve(match[1]);
      });
      server?.once('exit', (code) => reject(new Error(`the MCP server exited with ${code}`)));
    });
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const connect = async () => {
      const client = new Client({ name: 'team-client', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
        }),
      );
      return client;
    };

    const client = await connect();
    const answer = await client.callTool({ name: 'whoami', arguments: {} });
    await client.close();
    const [content] = answer.content as { type: string; text: string }[];
    expect(JSON.parse(content?.text ?? '{}')).toEqual({
      kind: 'api_key',
      user_id: 'team-mcp-user',
      workspaces: [workspaceId],
    });

    const revoked = await call('DELETE', `/v1/mcp/api-keys/${created.json.metadata.id}`, { token });
    expect(revoked.status).toBe(200);
    // The official client refuses with the body's message; the raw answer below shows the status.
    await expect(connect()).rejects.toThrow('The API key was revoked; create or rotate a key.');
    const refused = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error.message).toBe('The API key was revoked; create or rotate a key.');
  }, 60_000);
});

describe('a dashboard page bundling the element from the tarball', () => {
  beforeAll(() => Promise.all([projectsInstalled(), serviceStarted()]), 600_000);
  let site: Server | undefined;
  afterAll(() => site?.close());

  it('type-checks against the shipped declarations', async () => {
    const result = await ready.typecheck('dashboard');
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('defines nothing from a type-only import: esbuild drops it, Lit and all', async () => {
    const built = await run(projects.dashboard, process.execPath, ['build.ts']);
    expect(built.output).toBe('');
    const typeOnly = readFileSync(join(projects.dashboard, 'public/type-only.js'), 'utf8');
    expect(typeOnly).not.toContain('customElements');
    expect(typeOnly.length).toBeLessThan(200);
  }, 60_000);

  it('creates a key against the local service in Chromium; a plain side-effect import defines both elements', async () => {
    const dir = projects.dashboard;
    const built = await run(dir, process.execPath, ['build.ts']);
    expect(built.output).toBe('');
    const html = readFileSync(join(dir, 'index.html'), 'utf8').replace('__SERVICE_URL__', service.url);
    const script = readFileSync(join(dir, 'public/main.js'));
    site = createServer((req, res) => {
      if (req.url === '/main.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((resolve) => site?.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const { token, workspaceId } = await devMember(call, 'team-dashboard-user');

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${origin}/`);
      await page.locator('body[data-ready="true"]').waitFor();
      expect(await page.locator('body').getAttribute('data-defined')).toBe(
        'svc-mcp-api-keys svc-mcp-workspace-keys',
      );
      // The host page hands the element the user's token and workspaces, as a dashboard does.
      await page.evaluate(
        ({ token, workspaceId }) => {
          type Host = { workspaces: unknown; getToken: () => Promise<string> };
          const { document } = globalThis as unknown as {
            document: { querySelector(s: string): Host | null };
          };
          const element = document.querySelector('svc-mcp-api-keys');
          if (!element) throw new Error('no element');
          element.workspaces = [{ id: workspaceId, name: 'Marketing', role: 'editor' }];
          element.getToken = async () => token;
        },
        { token, workspaceId },
      );
      await page.getByRole('button', { name: 'Create key', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an MCP API key' });
      await dialog.getByLabel('Name').fill('From the package');
      await dialog.getByLabel('Marketing').check();
      await dialog.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByRole('dialog', { name: 'Copy your new key' });
      expect(await shown.getByLabel(/^MCP API key/).inputValue()).toMatch(KEY);
      // The page's typed listener read the event's detail.
      expect(await page.locator('body').getAttribute('data-created')).toBe('From the package');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
    const listed = await call('GET', '/v1/mcp/api-keys', { token });
    expect(listed.json.data.map((k: { name: string }) => k.name)).toEqual(['From the package']);
  }, 180_000);
});

describe('a React 19 dashboard, from the tarball', () => {
  beforeAll(projectsInstalled, 600_000);
  it('type-checks both elements in JSX, the tag-name map and the typed events', async () => {
    const result = await ready.typecheck('react-dashboard');
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);
});
