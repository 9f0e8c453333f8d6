import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { soakOnly } from '#test/support/soak';

/**
 * The example of each published package's README runs as written (contract §16): the README's
 * `// example.ts` (or `// app.ts`) block, with only the package's name resolved to its source
 * entry. The verifier's refuses requests as contract §7 says, the client's lists keys from a
 * stand-in of the API, the CDK app synthesizes the authorizer on a REST API, and the elements'
 * module (which needs a browser to run: the browser tier runs the elements) type-checks and
 * bundles for browsers.
 */
const ROOT = process.cwd();
// Under the repository (ignored by git): the CDK example resolves aws-cdk-lib from its node_modules.
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, '.tmp/package-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's example block named `file`, its package's imports pointed at `sources`. */
function example(pkg: string, file: string, sources: Record<string, string>): string {
  const readme = readFileSync(`packages/${pkg}/README.md`, 'utf8');
  const code = new RegExp(`\`\`\`ts\\n(// ${file.replace('.', '\\.')}\\n[\\s\\S]*?)\`\`\``).exec(readme)?.[1];
  if (!code) throw new Error(`packages/${pkg}/README.md has no ${file} example`);
  let resolved = code;
  for (const [name, source] of Object.entries(sources))
    resolved = resolved.replaceAll(`'${name}'`, `'${resolve(source)}'`);
  const path = join(dir, `${pkg}-${file}`);
  writeFileSync(path, resolved);
  return path;
}

describe('the README of @svc/mcp-api-keys-verifier', () => {
  it('runs its example as written: no key and a malformed key are refused as contract §7 says', async () => {
    const file = example('verifier', 'example.ts', { '@svc/mcp-api-keys-verifier': 'lib/index.ts' });
    const { authenticate } = (await import(file)) as {
      authenticate: (request: Request) => Promise<{ refused?: Response; caller?: unknown }>;
    };
    const missing = await authenticate(new Request('https://mcp.example.com/mcp', { method: 'POST' }));
    expect(missing.refused?.status).toBe(401);
    expect(missing.refused?.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');
    const malformed = await authenticate(
      new Request('https://mcp.example.com/mcp', {
        method: 'POST',
        headers: { authorization: 'Bearer svc_mcp_v1_not-a-key' },
      }),
    );
    expect(malformed.refused?.status).toBe(401);
    expect(await malformed.refused?.json()).toMatchObject({
      error: { message: 'The API key is malformed; copy it again in full.' },
    });
  });
});

describe('the README of @svc/mcp-api-keys-client', () => {
  it('runs its example as written against a stand-in of the API: the active keys’ names, none when signed out', async () => {
    const file = example('client', 'example.ts', { '@svc/mcp-api-keys-client': 'web/client/index.ts' });
    const { activeKeyNames } = (await import(file)) as {
      activeKeyNames: (baseUrl: string, token: () => Promise<string>) => Promise<string[]>;
    };
    const asked: string[] = [];
    const api = createServer((req, res) => {
      asked.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      if (req.headers.authorization !== 'Bearer signed-in')
        res.writeHead(401, { 'content-type': 'application/problem+json' }).end(
          JSON.stringify({
            type: 'about:blank',
            title: 'Unauthorized',
            status: 401,
            detail: 'Sign in.',
            code: 'unauthorized',
            request_id: 'r1',
          }),
        );
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: [{ name: 'laptop' }, { name: 'ci' }], next_cursor: null }));
    });
    await new Promise<void>((ready) => api.listen(0, '127.0.0.1', ready));
    try {
      const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      expect(await activeKeyNames(base, async () => 'signed-in')).toEqual(['laptop', 'ci']);
      expect(await activeKeyNames(base, async () => 'expired')).toEqual([]);
      expect(asked[0]).toBe('GET /v1/mcp/api-keys?status=active Bearer signed-in');
    } finally {
      api.close();
    }
  });
});

describe('the README of @svc/mcp-api-keys-cdk', () => {
  soakOnly(
    'synthesizes its app as written: the REST API’s POST /mcp behind the key service’s authorizer',
    async () => {
      const file = example('cdk', 'app.ts', { '@svc/mcp-api-keys-cdk': 'infra/index.ts' });
      const out = join(dir, 'cdk.out');
      process.env.CDK_OUTDIR = out;
      try {
        await import(file);
      } finally {
        delete process.env.CDK_OUTDIR;
      }
      const template = JSON.parse(readFileSync(join(out, 'TeamMcp.template.json'), 'utf8')) as {
        Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
      };
      const resources = Object.values(template.Resources);
      expect(resources.filter((r) => r.Type === 'AWS::ApiGateway::Authorizer')).toEqual([
        expect.objectContaining({ Properties: expect.objectContaining({ Type: 'REQUEST' }) }),
      ]);
      expect(resources.find((r) => r.Type === 'AWS::ApiGateway::Method')?.Properties).toMatchObject({
        HttpMethod: 'POST',
        AuthorizationType: 'CUSTOM',
      });
      // A synth that bundles the authorizer with esbuild: sized, like the hooks, for a busy machine.
    },
    180_000,
  );
});

describe('the README of @svc/mcp-api-keys-elements', () => {
  const source = resolve('web/elements.ts');

  it('type-checks its example as written', async () => {
    const file = example('elements', 'example.ts', {});
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: resolve('web/tsconfig.json'),
        compilerOptions: { noEmit: true, paths: { '@svc/mcp-api-keys-elements': [source] } },
        include: [],
        files: [file],
      }),
    );
    const tsc = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
      { cwd: ROOT },
    ).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: `${err.stdout}${err.stderr}` }));
    expect(tsc.stdout).toBe('');
  }, 120_000);

  it('bundles its example for browsers: the side-effect import defines the three elements', async () => {
    const file = example('elements', 'example.ts', {});
    const toSource: Plugin = {
      name: 'package-to-source',
      setup(b) {
        b.onResolve({ filter: /^@svc\/mcp-api-keys-elements$/ }, () => ({ path: source }));
      },
    };
    const bundled = await build({
      entryPoints: [file],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      tsconfig: 'web/tsconfig.json',
      plugins: [toSource],
    });
    const text = bundled.outputFiles[0]?.text ?? '';
    for (const tag of ['svc-mcp-api-keys', 'svc-mcp-workspace-keys', 'svc-mcp-consent'])
      expect(text).toContain(`"${tag}"`);
  });
});
