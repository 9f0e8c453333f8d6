import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The framework examples of docs/mcp-servers.md run as written: each file is started with `node`,
 * as the page says (only the package's names point at its source entries), listens on `PORT` and
 * answers a request without a key, one with a malformed key and its Protected Resource Metadata
 * (none of which needs AWS). Run locally with no public URL set, they name their own address and
 * `npm start` as the authorization server. The packed package's copies are run, with a public URL
 * set, by test/package/integrations.test.ts.
 */
const ROOT = process.cwd();
const PAGE = readFileSync('docs/mcp-servers.md', 'utf8');
const SOURCES = {
  '@svc/mcp-api-keys-verifier/mcp-sdk': 'lib/integrations/mcp-sdk.ts',
  '@svc/mcp-api-keys-verifier': 'lib/index.ts',
};
// Under the repository (ignored by git), so that the examples resolve hono, express and the SDK.
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, '.tmp/mcp-servers-examples-'));
const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) child.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** The page's TypeScript blocks that start with `// <file>.ts`, by file name. */
function examples(): Record<string, string> {
  return Object.fromEntries(
    [...PAGE.matchAll(/```ts\n(\/\/ ([\w-]+\.ts)\b[^\n]*\n[\s\S]*?)```/g)].map((m) => [m[2], m[1] ?? '']),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
}

/**
 * Runs `node <file>` with PORT set, as a reader would, until it prints its URL. tsx loads the
 * package's TypeScript sources (the published package is JavaScript, which `node` runs as it is).
 */
async function start(file: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: dir,
    // A local run: no public URL nor issuer set (undefined removes one the run might have).
    env: { ...process.env, PORT: String(port), MCP_SERVER_URL: undefined, OAUTH_ISSUER: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  return new Promise((ready, fail) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /MCP server at (http:\/\/localhost:\d+\/mcp)/.exec(output)?.[1];
      if (url) ready(url);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => fail(new Error(`node ${file} exited with ${code}: ${output}`)));
  });
}

const post = (authorization?: string): RequestInit => ({
  method: 'POST',
  headers: {
    ...(authorization && { authorization }),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});

describe('the framework examples of docs/mcp-servers.md', () => {
  const files = examples();
  for (const [file, code] of Object.entries(files)) {
    let resolved = code;
    for (const [name, source] of Object.entries(SOURCES))
      resolved = resolved.replaceAll(`'${name}'`, `'${resolve(source)}'`);
    writeFileSync(join(dir, file), resolved);
  }

  it('are the shared mcp.ts and one file per framework, Hono naming its Node server', () => {
    expect(Object.keys(files).sort()).toEqual(['express.ts', 'hono.ts', 'mcp.ts', 'sdk.ts']);
    expect(files['hono.ts']).toContain("from '@hono/node-server'");
    expect(PAGE).toContain('`@hono/node-server`');
  });

  it.each(['hono.ts', 'express.ts', 'sdk.ts'])(
    '%s listens when run with node, and refuses a request without a key and a malformed key',
    async (file) => {
      // The address it printed, which a local run names as its resource.
      const own = await start(file);
      const url = own.replace('localhost', '127.0.0.1');
      const missing = await fetch(url, post());
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toContain(
        `resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', own)}"`,
      );
      const malformed = await fetch(url, post('Bearer svc_mcp_v1_not-a-key'));
      expect(malformed.status).toBe(401);
      expect(JSON.stringify(await malformed.json())).toContain('The API key is malformed');
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({
        resource: own,
        authorization_servers: ['http://127.0.0.1:3000'],
      });
    },
    60_000,
  );
});

describe('the packaging commands of docs/mcp-servers.md', () => {
  const version = JSON.parse(readFileSync('packages/verifier/package.json', 'utf8')).version as string;
  const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;

  it('say how to get the package before anything installs it: packed from this repository, or the registry once published', () => {
    const getting = /```sh\n([\s\S]*?)```/.exec(PAGE);
    expect(getting?.[1]).toContain('npm run build:package');
    expect(scripts['build:package']).toBeDefined();
    expect(getting?.[1]).toContain('(cd packages/verifier && npm pack)');
    expect(getting?.[1]).toContain(
      `npm install <clone>/packages/verifier/svc-mcp-api-keys-verifier-${version}.tgz`,
    );
    // It is the page's first code block: nothing before it installs the package by its name,
    // which answers 404 until the package is published.
    expect(PAGE.indexOf('```')).toBe(getting?.index);
    expect(PAGE.slice(0, getting?.index).replace(/\s+/g, ' ')).toContain(
      '`npm install @svc/mcp-api-keys-verifier` answers 404',
    );
  });

  it('say that the examples are ES modules before the first of them', () => {
    const said = PAGE.indexOf('`"type": "module"`');
    expect(said).toBeGreaterThan(-1);
    expect(said).toBeLessThan(PAGE.indexOf('```ts'));
  });

  it('leave nothing for git to commit: a tarball npm pack writes beside a package is ignored', () => {
    expect(PAGE).toContain('(cd packages/verifier && npm pack)');
    const ignored = execFileSync(
      'git',
      ['check-ignore', '--no-index', 'packages/verifier/svc-mcp-api-keys-verifier-1.0.0.tgz'],
      { encoding: 'utf8' },
    );
    expect(ignored.trim()).toBe('packages/verifier/svc-mcp-api-keys-verifier-1.0.0.tgz');
  });
});
