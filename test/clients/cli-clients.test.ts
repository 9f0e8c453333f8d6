import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '#test/support/key-page';
import { type RunningService, startService } from '#test/support/local-service';
import { connectedApps, consentInBrowser, revokeOnKeyPage } from '#test/support/oauth-browser';

/**
 * The CLIs that treat a 401 as "sign in" (issue: other OAuth clients), opt-in (`npm run
 * test:clients`, not `npm test`: they are large): Codex and opencode are installed from the npm
 * registry into a cache directory, pointed at `npm start`'s `/mcp` with no key, and their own
 * sign-in command is run; their browser opener is a stub that hands the URL to Chromium, where the
 * person approves on the consent page.
 */
const CACHE = process.env.CLIENTS_CACHE ?? join(tmpdir(), 'svc-mcp-cli-clients');
const VERSIONS = { codex: '@openai/codex@0.171.0', opencode: 'opencode-ai@1.18.33' };

let service: RunningService;
let base: string;
let browser: Browser;

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

beforeAll(async () => {
  mkdirSync(CACHE, { recursive: true });
  if (
    !existsSync(join(CACHE, 'node_modules/.bin/opencode')) ||
    !existsSync(join(CACHE, 'node_modules/.bin/codex'))
  ) {
    writeFileSync(join(CACHE, 'package.json'), '{"name":"cli-clients","private":true}');
    const install = run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', VERSIONS.codex, VERSIONS.opencode],
      process.env,
      CACHE,
    );
    expect(await install.exited, install.output()).toBe(0);
    // Install scripts are off (npm 11 runs none it was not told to allow); opencode's links its
    // platform binary, so it is run by name, once.
    const postinstall = run(
      process.execPath,
      ['postinstall.mjs'],
      process.env,
      join(CACHE, 'node_modules/opencode-ai'),
    );
    expect(await postinstall.exited, postinstall.output()).toBe(0);
  }
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-cli-clients-')) }),
    launchChromium(),
  ]);
  base = service.url;
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A person's home for one CLI, with a browser opener that writes the URL it is given to a file. */
function home() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-home-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const opened = join(dir, 'opened.txt');
  writeFileSync(opened, '');
  for (const opener of ['xdg-open', 'x-www-browser']) {
    writeFileSync(join(bin, opener), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
    chmodSync(join(bin, opener), 0o755);
  }
  const env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: dir,
    NO_COLOR: '1',
    TERM: 'dumb',
  };
  const urls = () => readFileSync(opened, 'utf8').split('\n').filter(Boolean);
  return { dir, env, urls };
}

async function until(predicate: () => boolean, what: string, output: () => string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`no ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops a CLI still waiting for its sign-in: SIGTERM, then SIGKILL if it is still there after 3 s. */
const stop = async (child: ChildProcess, exited: Promise<unknown>) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
};

describe('opencode', () => {
  it('`opencode mcp auth svc` registers, reaches the consent page and connects; a revocation sends it back', async () => {
    const h = home();
    mkdirSync(join(h.dir, '.config/opencode'), { recursive: true });
    writeFileSync(
      join(h.dir, '.config/opencode/opencode.json'),
      JSON.stringify({ mcp: { svc: { type: 'remote', url: `${base}/mcp` } } }),
    );
    const opencode = join(CACHE, 'node_modules/.bin/opencode');
    const auth = run(opencode, ['mcp', 'auth', 'svc'], h.env, h.dir);
    try {
      await until(() => h.urls().length === 1, 'browser opened', auth.output);
      const url = new URL(h.urls()[0] as string);
      expect(url.origin + url.pathname).toBe(`${base}/oauth/authorize`);
      const user = `opencode-${Date.now().toString(36)}`;
      const redirect = url.searchParams.get('redirect_uri') as string;
      await consentInBrowser(browser, base, String(url), user, undefined, redirect);
      // opencode registered itself by DCR, under its own name.
      const [app] = await connectedApps(base, user);
      expect(app).toMatchObject({ status: 'active' });
      expect(await auth.exited, auth.output()).toBe(0);
      expect(auth.output()).toMatch(/success|authenticated/i);

      const list = run(opencode, ['mcp', 'list'], h.env, h.dir);
      await list.exited;
      expect(list.output()).toMatch(/svc/);
      expect(list.output()).not.toMatch(/needs authentication/i);

      await revokeOnKeyPage(browser, base, user, app?.name as string);
      const after = run(opencode, ['mcp', 'list'], h.env, h.dir);
      await after.exited;
      expect(after.output()).toMatch(/needs authentication|failed|unauthori[sz]ed|401/i);
    } finally {
      await stop(auth.child, auth.exited);
    }
  }, 300_000);
});

describe('Codex', () => {
  it('`codex mcp add` detects OAuth and starts the sign-in at the authorization endpoint with its client metadata document', async () => {
    const h = home();
    const codex = join(CACHE, 'node_modules/.bin/codex');
    // Adding a server that advertises OAuth starts Codex's sign-in at once (`codex mcp login svc` does the same later).
    const add = run(codex, ['mcp', 'add', 'svc', '--url', `${base}/mcp`], h.env, h.dir);
    try {
      const url = new URL(await signInUrl(h, add));
      expect(add.output()).toMatch(/Detected OAuth support/);
      expect(url.origin + url.pathname).toBe(`${base}/oauth/authorize`);
      // Codex identifies itself by a metadata document on chatgpt.com: where that host can be
      // reached, the consent page follows as for opencode; offline, the page says why it cannot.
      expect(url.searchParams.get('client_id')).toMatch(/^https:\/\/chatgpt\.com\//);
      const page = await fetch(url, { redirect: 'manual' });
      if (page.status === 302)
        expect(new URL(page.headers.get('location') as string).pathname).toBe('/consent');
      else expect(await page.text()).toMatch(/metadata document/i);
    } finally {
      await stop(add.child, add.exited);
    }
  }, 120_000);

  it('with metadata documents off, Codex registers by DCR: `codex mcp add` and, after a revocation, `codex mcp login` connect', async () => {
    // A deployment whose functions cannot reach the internet turns metadata documents off; the
    // metadata says so and Codex registers instead (this machine cannot reach chatgpt.com either).
    const offline = await startService({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-cli-clients-dcr-')),
      OAUTH_CLIENT_METADATA_DOCUMENTS: '0',
    });
    const h = home();
    const codex = join(CACHE, 'node_modules/.bin/codex');
    const user = `codex-${Date.now().toString(36)}`;
    const signIn = async (args: string[]) => {
      const opened = h.urls().length;
      const cli = run(codex, args, h.env, h.dir);
      try {
        const url = new URL(await signInUrl(h, cli, opened));
        expect(url.origin + url.pathname).toBe(`${offline.url}/oauth/authorize`);
        expect(url.searchParams.get('client_id')).not.toMatch(/^https:/);
        await consentInBrowser(
          browser,
          offline.url,
          String(url),
          user,
          undefined,
          url.searchParams.get('redirect_uri') as string,
        );
        expect(await cli.exited, cli.output()).toBe(0);
        return cli.output();
      } finally {
        await stop(cli.child, cli.exited);
      }
    };
    try {
      const added = await signIn(['mcp', 'add', 'svc', '--url', `${offline.url}/mcp`]);
      expect(added).toMatch(/Successfully logged in/);
      const [app] = await connectedApps(offline.url, user);
      expect(app).toMatchObject({ status: 'active' });
      const list = run(codex, ['mcp', 'list'], h.env, h.dir);
      await list.exited;
      expect(list.output()).toMatch(/^svc\s+\S+\/mcp\s+-\s+enabled\s+OAuth\s*$/m);

      await revokeOnKeyPage(browser, offline.url, user, app?.name as string);
      const again = await signIn(['mcp', 'login', 'svc']);
      expect(again).toMatch(/Successfully logged in to MCP server 'svc'/);
      const apps = await connectedApps(offline.url, user);
      expect(apps.map((a) => a.status).sort()).toEqual(['active', 'revoked']);
    } finally {
      await offline.stop();
    }
  }, 300_000);
});

/** The authorization URL a CLI opened or printed. */
async function signInUrl(
  h: ReturnType<typeof home>,
  cli: ReturnType<typeof run>,
  opened = 0,
): Promise<string> {
  const printed = () => /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(cli.output())?.[1];
  await until(() => h.urls().length > opened || printed() !== undefined, 'sign-in URL', cli.output);
  return h.urls()[opened] ?? (printed() as string);
}
