import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '#test/support/local-service';

/**
 * The key page in a real browser (Debian's Chromium, driven by playwright-core), used as a
 * person uses it: by role and label, with the keyboard, and scanned by axe-core.
 * `npm run screenshots` refreshes the pictures in docs/screenshots.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS ? 'docs/screenshots' : '.tmp/screenshots';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const KEY = /^svc_mcp_v1_[0-9A-Za-z]{71}$/;
const WORKSPACE = '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';

let service: RunningService;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every key and token this run has seen: none may show up where it must not. */
const secrets = new Set<string>();
const consoleLines: string[] = [];
const requestUrls: string[] = [];
const axeSummary: string[] = [];
const started = Date.now();

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: the browser tests need Debian's chromium ` +
        '(apt-get install -y chromium; .ci/run installs it) or CHROMIUM_PATH set to another build.',
    );
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-browser-')) }),
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
  ]);
  base = service.url;
  context = await browser.newContext({
    viewport: { width: 1200, height: 820 },
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
  page.on('request', (request) => requestUrls.push(request.url()));
  page.on('response', async (response) => {
    if (new URL(response.url()).pathname === '/_dev/token' && response.ok()) {
      secrets.add(((await response.json()) as { token: string }).token);
    }
  });
  await page.goto(`${base}/`);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  console.log(
    `browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s in all; axe: ${axeSummary.join('; ')}`,
  );
});

// --- helpers --------------------------------------------------------------------------------

async function signIn(user: string, options: { staleLogin?: boolean } = {}): Promise<void> {
  await page.getByLabel('User id').fill(user);
  await page.getByLabel(/Last sign-in 20 minutes ago/).setChecked(options.staleLogin === true);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: `Signed in as ${user}` }).waitFor();
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('User id').waitFor();
}

const keysRegion = () => page.getByRole('region', { name: 'MCP API keys' });
const createButton = () => keysRegion().getByRole('button', { name: 'Create key', exact: true });
const row = (name: string) => page.getByRole('row', { name: new RegExp(name) });

/** Opens the create dialog and fills it; returns the dialog (not yet submitted). */
async function fillCreate(name: string, workspaces: string[], scopes: string[] = ['Read'], days = 30) {
  await createButton().click();
  const dialog = page.getByRole('dialog', { name: 'Create an MCP API key' });
  await dialog.getByLabel('Name').fill(name);
  for (const ws of workspaces) await dialog.getByLabel(ws).check();
  for (const scope of ['Read', 'Write', 'Generate']) {
    await dialog.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).setChecked(scopes.includes(scope));
  }
  await dialog.getByLabel('Expires after (days)').fill(String(days));
  return dialog;
}

/** Reads the key the open dialog shows once, and closes the dialog with its Done button. */
async function takeShownKey(title: RegExp): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  const apiKey = await dialog.getByLabel(/^MCP API key/).inputValue();
  expect(apiKey).toMatch(KEY);
  secrets.add(apiKey);
  return apiKey;
}

/** Where in the page a string appears: the DOM with every shadow root and field value, storage, URL, cookies. */
async function tracesOf(needle: string): Promise<string[]> {
  return page.evaluate((text) => {
    interface DomNode {
      nodeType: number;
      nodeValue: string | null;
      childNodes: ArrayLike<DomNode>;
      shadowRoot?: DomNode | null;
      attributes?: ArrayLike<{ name: string; value: string }>;
      value?: unknown;
      localName?: string;
    }
    type Store = { length: number; key(i: number): string | null; getItem(k: string): string | null };
    const w = globalThis as unknown as {
      document: { documentElement: DomNode; cookie: string; title: string };
      localStorage: Store;
      sessionStorage: Store;
      location: { href: string };
      history: { state: unknown };
    };
    const found: string[] = [];
    const visit = (node: DomNode) => {
      if (node.nodeValue?.includes(text)) found.push('DOM text');
      for (const attr of Array.from(node.attributes ?? [])) {
        if (attr.value.includes(text)) found.push(`attribute ${attr.name} of <${node.localName}>`);
      }
      if (typeof node.value === 'string' && node.value.includes(text))
        found.push(`value of <${node.localName}>`);
      if (node.shadowRoot) visit(node.shadowRoot);
      for (const child of Array.from(node.childNodes)) visit(child);
    };
    visit(w.document.documentElement);
    for (const [name, store] of [
      ['localStorage', w.localStorage],
      ['sessionStorage', w.sessionStorage],
    ] as const) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i) ?? '';
        if (key.includes(text) || store.getItem(key)?.includes(text)) found.push(name);
      }
    }
    if (w.location.href.includes(text)) found.push('URL');
    if (w.document.cookie.includes(text)) found.push('cookie');
    if (JSON.stringify(w.history.state ?? null).includes(text)) found.push('history state');
    return found;
  }, needle);
}

/** The focused element, looking through shadow roots: its id, or its role and text. */
function focused(): Promise<string> {
  return page.evaluate(() => {
    type El = {
      shadowRoot: { activeElement: El | null } | null;
      id: string;
      localName: string;
      textContent: string;
    };
    let el = (globalThis as unknown as { document: { activeElement: El | null } }).document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el ? el.id || `${el.localName}:${el.textContent.trim()}` : '';
  });
}

/** axe-core on the whole page (shadow DOM included): no serious or critical violation. */
async function expectAccessible(state: string): Promise<void> {
  await page.evaluate(AXE_SOURCE); // through DevTools, so the page's CSP stays in force
  const violations = await page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] };
    const { axe } = globalThis as unknown as { axe: { run(): Promise<Result> } };
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  axeSummary.push(
    `${state}: ${violations.length ? violations.map((v) => `${v.id} (${v.impact})`).join(', ') : 'no violation'}`,
  );
  expect(blocking, `${state}: ${JSON.stringify(blocking)}`).toEqual([]);
}

/** Saves a picture of the page; a key on screen is masked (a key never goes into a screenshot). */
const screenshot = (name: string) =>
  page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    mask: [page.getByRole('textbox', { name: /^MCP API key “/ })],
    maskColor: '#c8c8d0',
  });

async function callMcp(apiKey: string): Promise<number> {
  const reply = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_workspaces', arguments: {} },
    }),
  });
  await reply.body?.cancel();
  return reply.status;
}

// --- the page --------------------------------------------------------------------------------

describe('the key page at / of npm start', () => {
  let firstKey: string;

  it('is served with a strict Content Security Policy and no referrer', async () => {
    const reply = await fetch(`${base}/`);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(reply.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(reply.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
    const bundle = await fetch(`${base}/assets/svc-mcp-api-keys.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toContain('svc-mcp-api-keys');
  });

  it('signs a person in with the dev issuer and shows their (empty) key list', async () => {
    await page.getByRole('heading', { name: 'Dev sign-in' }).waitFor();
    await expectAccessible('sign-in');
    await signIn('dana');
    await keysRegion().getByText('No keys yet').waitFor();
    await expectAccessible('empty list');
  });

  it('creates a key and shows it once, with a copy button and a client configuration', async () => {
    const dialog = await fillCreate('Claude Desktop (laptop)', ['Acme Marketing'], ['Read', 'Generate'], 45);
    await screenshot('create-key');
    await expectAccessible('create dialog');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'Copy your new key' });
    await shown.getByText('This is the only time the key is shown').waitFor();
    firstKey = await takeShownKey(/Copy your new key/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('status').getByText('Key copied.').waitFor();
    const clipboard = () =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText();
    expect(await page.evaluate(clipboard)).toBe(firstKey);
    const config = (await shown.locator('pre').textContent()) ?? '';
    expect(JSON.parse(config)).toEqual({
      mcpServers: {
        svc: {
          type: 'http',
          url: `${base}/mcp`,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands the variable, not us
          headers: { Authorization: 'Bearer ${SVC_MCP_API_KEY}' },
        },
      },
    });
    await screenshot('key-shown-once');
    await expectAccessible('key shown once');
    expect(await callMcp(firstKey)).toBe(200); // the key shown is the real one
  });

  it('leaves no trace of the key once the dialog is closed: DOM, storage, URL, console', async () => {
    await page
      .getByRole('dialog', { name: 'Copy your new key' })
      .getByRole('button', { name: 'Done' })
      .click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(focused).toBe('create');
    for (const needle of [firstKey, firstKey.slice(20, 60)]) expect(await tracesOf(needle)).toEqual([]);
    for (const token of secrets) expect(await tracesOf(token)).toEqual([]);
    for (const secret of secrets) {
      expect(consoleLines.filter((line) => line.includes(secret))).toEqual([]);
      expect(requestUrls.filter((url) => url.includes(secret))).toEqual([]);
    }
  });

  it('lists the key: name, hint, scopes, workspaces, status, expiry and last use', async () => {
    await page.evaluate(() =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { refresh(): Promise<void> } } }
      ).document
        .querySelector('svc-mcp-api-keys')
        .refresh(),
    );
    const cells = await row('Claude Desktop').getByRole('cell').allInnerTexts();
    const [hint, scopes, workspaces, status, expires, lastUsed] = cells.map((c) =>
      c.replace(/\s+/g, ' ').trim(),
    );
    expect(hint).toBe(`svc_mcp_v1_…${firstKey.slice(-4)}`);
    expect(scopes).toBe('svc.forms.read svc.forms.generate');
    expect(workspaces).toBe('Acme Marketing');
    expect(status).toBe('Active');
    expect(Date.parse(expires ?? '')).toBeGreaterThan(Date.now() + 44 * 86_400_000);
    expect(lastUsed).not.toBe('Never'); // the MCP call above
    await screenshot('key-list');
    await expectAccessible('key list');
  });

  it('rotates after a confirmation and shows the replacement once; the old value stops working', async () => {
    await row('Claude Desktop')
      .getByRole('button', { name: /^Rotate/ })
      .click();
    const confirm = page.getByRole('alertdialog', { name: /Rotate “Claude Desktop \(laptop\)”\?/ });
    await confirm.getByText('The current key stops working at once').waitFor();
    await confirm.getByRole('button', { name: 'Rotate key' }).click();
    const replacement = await takeShownKey(/Copy your replacement key/);
    expect(replacement).not.toBe(firstKey);
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await callMcp(firstKey)).toBe(401);
    expect(await callMcp(replacement)).toBe(200);
    await row(`…${replacement.slice(-4)}`).waitFor();
    expect(await tracesOf(replacement)).toEqual([]);
  });

  it('revokes only after a confirmation', async () => {
    await row('Claude Desktop')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    const confirm = page.getByRole('alertdialog', { name: /Revoke “Claude Desktop \(laptop\)”\?/ });
    await confirm.getByText('This can’t be undone').waitFor();
    await screenshot('revoke-confirm');
    await expectAccessible('revoke confirmation');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await row('Claude Desktop').getByText('Active', { exact: true }).count()).toBe(1);

    await row('Claude Desktop')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await keysRegion().getByRole('status').getByText('Key “Claude Desktop (laptop)” revoked.').waitFor();
    await keysRegion().getByText('No keys yet').waitFor();
    await keysRegion().getByLabel('Show revoked and expired keys').check();
    await expect.poll(() => page.getByRole('row', { name: /Claude Desktop.*Revoked/ }).count()).toBe(2);
    await keysRegion().getByLabel('Show revoked and expired keys').uncheck();
  });

  it('shows a key’s history, newest first: created, rotated, created, revoked', async () => {
    await keysRegion().getByLabel('Show revoked and expired keys').check();
    const history = page
      .getByRole('row', { name: /Claude Desktop.*Revoked/ })
      .first()
      .getByRole('button', { name: 'History of Claude Desktop (laptop)' });
    await history.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'History of “Claude Desktop (laptop)”' });
    await dialog.getByRole('status').getByText('4 events.').waitFor();
    await expect.poll(focused).toBe('button:Close');
    const table = dialog.getByRole('table', { name: 'Events of “Claude Desktop (laptop)”' });
    expect(await table.getByRole('columnheader').allInnerTexts()).toEqual(['When', 'What', 'Who']);
    const rows = table.getByRole('row').filter({ has: page.getByRole('cell') });
    const what = (await rows.evaluateAll((trs) => trs.map((tr) => tr.children[1]?.textContent ?? ''))).map(
      (text) => text.replace(/\s+/g, ' ').trim(),
    );
    // Newest first; the two events of the rotation share its instant, so either may come first.
    expect(what[0]).toMatch(/^Revoked \(svc_mcp_v1_…/);
    expect(what.slice(1, 3).sort()).toEqual([
      expect.stringMatching(/^Created by rotating the previous key \(svc_mcp_v1_…\w{4}\) svc.forms.read/),
      expect.stringMatching(/^Rotated into a new key \(svc_mcp_v1_…\w{4}\); this one stopped working$/),
    ]);
    expect(what[3]).toMatch(
      /^Created “Claude Desktop \(laptop\)” \(svc_mcp_v1_…\w{4}\) svc.forms.read, svc.forms.generate; expires /,
    );
    for (const cells of await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''))) {
      expect(cells).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/); // the exact time, beside the local one
    }
    expect(await rows.getByRole('cell', { name: 'You' }).count()).toBe(4);
    const times = await table
      .locator('time')
      .evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime') ?? ''));
    expect([...times].sort().reverse()).toEqual(times);
    expect(await dialog.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await screenshot('key-history');
    await expectAccessible('key history');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(focused).toBe('button:History of Claude Desktop (laptop)');
    await keysRegion().getByLabel('Show revoked and expired keys').uncheck();
  });

  it('loads a long history a page at a time with “Load more”', async () => {
    // The real API, with pages of 2 instead of 20: the second page follows next_cursor.
    const pages = '**/v1/mcp/api-keys/*/events*';
    await page.route(pages, (route) => {
      const url = new URL(route.request().url());
      url.searchParams.set('limit', '2');
      return route.continue({ url: url.href });
    });
    await keysRegion().getByLabel('Show revoked and expired keys').check();
    await page
      .getByRole('row', { name: /Claude Desktop.*Revoked/ })
      .first()
      .getByRole('button', { name: /^History/ })
      .click();
    const dialog = page.getByRole('dialog', { name: /^History of/ });
    await dialog.getByRole('status').getByText('2 events, more to load.').waitFor();
    await dialog.getByRole('button', { name: 'Load more' }).click();
    await dialog.getByRole('status').getByText('4 events.').waitFor();
    expect(await dialog.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const what = await dialog
      .getByRole('row')
      .evaluateAll((trs) => trs.map((tr) => tr.children[1]?.textContent));
    expect(what.at(-1)).toMatch(/^\s*Created “Claude Desktop/);
    expect(await focused()).toMatch(/^tr:/); // the last row, not lost with the button
    await page.unroute(pages);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await keysRegion().getByLabel('Show revoked and expired keys').uncheck();
  });

  it('works with the keyboard alone, and returns focus where it was', async () => {
    await createButton().focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('name');
    await page.keyboard.type('Cursor (desktop)');
    await page.keyboard.press('Tab'); // the first workspace
    await page.keyboard.press('Space');
    expect(await focused()).toMatch(/^input:/);
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab'); // past the workspaces and scopes
    expect(await focused()).toBe('expires');
    await page.keyboard.press('Enter'); // submits the form
    await page.getByRole('dialog', { name: 'Copy your new key' }).waitFor();
    await expect.poll(focused).toBe('button:Copy key');
    secrets.add(await takeShownKey(/Copy your new key/));
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(focused).toBe('create');

    await row('Cursor')
      .getByRole('button', { name: /^Revoke/ })
      .focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('button:Cancel');
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('button:Revoke Cursor (desktop)');
  });

  it('flags a key whose creator left its workspaces: it grants nothing', async () => {
    await page.getByRole('button', { name: 'Leave Acme Marketing' }).click();
    const cursor = row('Cursor');
    await cursor.getByText('No access').waitFor();
    await cursor.getByText('(you left this workspace)').waitFor();
    await screenshot('no-access');
    await page.getByRole('button', { name: 'Join Acme Marketing as editor' }).click();
    await cursor.getByText('Active').waitFor();
  });

  it('shows the API’s field errors in the form, naming the workspace', async () => {
    const dialog = await fillCreate('Too much', ['Acme Support'], ['Write']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('role viewer in workspace Acme Support does not allow svc.forms.write').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await signOut();
  });

  it('asks the person to sign in again when the API answers reauthentication_required, then carries on', async () => {
    await signIn('erik', { staleLogin: true });
    const dialog = await fillCreate('Zed (work laptop)', ['Acme Research'], ['Read', 'Write']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Sign in again to continue' });
    await prompt.getByText('needs a sign-in from the last 15 minutes').waitFor();
    await expect.poll(focused).toBe('button:Sign in again');
    await screenshot('sign-in-again');
    await expectAccessible('sign-in-again prompt');
    await prompt.getByRole('button', { name: 'Sign in again' }).click();
    secrets.add(await takeShownKey(/Copy your new key/));
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await row('Zed').waitFor();

    await signOut(); // a stale login again; declining leaves the key as it was
    await signIn('erik', { staleLogin: true });
    await row('Zed')
      .getByRole('button', { name: /^Rotate/ })
      .click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate key' }).click();
    await prompt.getByRole('button', { name: 'Cancel' }).click();
    const rotate = page.getByRole('alertdialog', { name: /Rotate/ });
    await rotate.getByRole('alert').getByText('Sign in again: this action needs a login').waitFor();
    await rotate.getByRole('button', { name: 'Cancel' }).click();
    expect(await row('Zed').getByText('Active', { exact: true }).count()).toBe(1);
  });

  it('has an accessibility scan that sees inside the element (a control that must fail)', async () => {
    const inject = (add: boolean) =>
      page.evaluate((on) => {
        type Root = { querySelector(s: string): { remove(): void } | null; append(n: unknown): void };
        const { document } = globalThis as unknown as {
          document: { querySelector(s: string): { shadowRoot: Root }; createElement(t: string): unknown };
        };
        const root = document.querySelector('svc-mcp-api-keys').shadowRoot;
        if (on) root.append(document.createElement('button'));
        else root.querySelector('button:empty')?.remove();
      }, add);
    await inject(true);
    await expect(expectAccessible('control: an unnamed button')).rejects.toThrow(/button-name/);
    axeSummary.pop();
    await inject(false);
  });

  it('never put a key or a token in the console, a URL, storage or the DOM', async () => {
    expect(secrets.size).toBeGreaterThanOrEqual(6);
    for (const secret of secrets) {
      expect(await tracesOf(secret)).toEqual([]);
      expect(consoleLines.filter((line) => line.includes(secret))).toEqual([]);
      expect(requestUrls.filter((url) => url.includes(secret))).toEqual([]);
    }
    expect(consoleLines.filter((line) => /Content Security Policy|pageerror/i.test(line))).toEqual([]);
  });
});

// --- CORS -----------------------------------------------------------------------------------

describe('CORS in local mode', () => {
  const preflight = (origin: string) =>
    fetch(`${base}/v1/mcp/api-keys`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });

  it('answers a preflight from a local dashboard with the deployed methods, headers and max-age', async () => {
    const reply = await preflight('http://localhost:5173');
    expect(reply.status).toBe(204);
    expect(Object.fromEntries([...reply.headers].filter(([h]) => h.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': 'http://localhost:5173',
      'access-control-allow-methods': 'GET,POST,PUT,DELETE',
      'access-control-allow-headers': 'authorization,content-type',
      'access-control-max-age': '3600',
    });
  });

  it('gives a foreign origin no allow header, on the preflight and on the answer', async () => {
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(204);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const answer = await fetch(`${base}/v1/mcp/api-keys`, { headers: { origin: 'https://evil.example' } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('exposes the headers a dashboard reads, on the gateway’s own 401 too', async () => {
    const reply = await fetch(`${base}/v1/mcp/api-keys`, { headers: { origin: 'http://127.0.0.1:5173' } });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
    expect(reply.headers.get('access-control-expose-headers')).toBe(
      'location,x-request-id,retry-after,www-authenticate,apigw-requestid',
    );
  });

  describe('from another local origin, in the browser', () => {
    const servers: Server[] = [];
    /** A page on another origin that embeds the element from the service, as a dashboard would. */
    const dashboard = (user: string) => `<!doctype html><html lang="en"><head><title>Dashboard</title>
      <script type="module" src="${base}/assets/svc-mcp-api-keys.js"></script></head>
      <body><main><h1>Another dashboard</h1><svc-mcp-api-keys base-url="${base}"></svc-mcp-api-keys></main>
      <script type="module">
        const api = (path, init) => fetch('${base}' + path, init);
        const json = { 'content-type': 'application/json' };
        const mint = async (age) => (await (await api('/_dev/token', { method: 'POST', headers: json,
          body: JSON.stringify({ sub: '${user}', auth_age_seconds: age }) })).json()).token;
        const token = await mint(0);
        await customElements.whenDefined('svc-mcp-api-keys');
        document.querySelector('svc-mcp-api-keys').getToken = () => token;
        // What a dashboard reads from an error across origins: the RFC 9470 challenge and the request id.
        const stale = await mint(3600);
        const reply = await api('/v1/mcp/api-keys', { method: 'POST',
          headers: { ...json, authorization: 'Bearer ' + stale },
          body: JSON.stringify({ name: 'x', workspace_ids: ['${WORKSPACE}'], scopes: ['svc.forms.read'] }) });
        window.probe = { status: reply.status, challenge: reply.headers.get('www-authenticate'),
          requestId: reply.headers.get('x-request-id') };
      </script></body></html>`;
    const foreign =
      () => `<!doctype html><html lang="en"><head><title>Elsewhere</title></head><body><main><h1>Elsewhere</h1>
      <script type="module">
        window.probe = await fetch('${base}/_dev/token', { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sub: 'mallory' }) }).then((r) => 'answered ' + r.status, (e) => e.name);
      </script></main></body></html>`;

    async function serve(host: string, html: string): Promise<string> {
      const server = createServer((req, res) => {
        res.writeHead(req.url === '/' ? 200 : 204, { 'content-type': 'text/html; charset=utf-8' });
        res.end(req.url === '/' ? html : '');
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      return `http://${host}:${(server.address() as AddressInfo).port}/`;
    }
    const probe = (p: Page) =>
      p
        .waitForFunction(() => (globalThis as unknown as { probe?: unknown }).probe)
        .then((h) => h.jsonValue());

    afterAll(async () => {
      for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('lets a dashboard on http://127.0.0.1:<other port> embed the element and call the API', async () => {
      const other = await context.newPage();
      const errors: string[] = [];
      other.on(
        'console',
        (m) => m.type() === 'error' && !m.text().includes('status of 401') && errors.push(m.text()),
      );
      // Dev memberships use PUT, which the deployed CORS does not allow: set them up server-side.
      const member = await fetch(`${base}/_dev/memberships/fran/${WORKSPACE}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'editor' }),
      });
      expect(member.status).toBe(204);
      await other.goto(await serve('127.0.0.1', dashboard('fran')));
      expect(await probe(other)).toEqual({
        status: 401,
        challenge: 'Bearer error="insufficient_user_authentication", max_age="900"',
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      await other.getByText('No keys yet').waitFor();
      const created = await fillCreateOn(other, 'From another origin');
      expect(created).toMatch(KEY);
      await other.getByRole('row', { name: /From another origin/ }).waitFor();
      expect(errors).toEqual([]);
      await other.close();
    });

    it('blocks a page on a foreign origin (http://127.0.0.2:<port>)', async () => {
      const other = await context.newPage();
      const errors: string[] = [];
      other.on('console', (m) => errors.push(m.text()));
      await other.goto(await serve('127.0.0.2', foreign()));
      expect(await probe(other)).toBe('TypeError');
      expect(errors.join('\n')).toMatch(/blocked by CORS policy/);
      await other.close();
    });
  });
});

async function fillCreateOn(other: Page, name: string): Promise<string> {
  await other.getByRole('button', { name: 'Create key', exact: true }).click();
  const dialog: Locator = other.getByRole('dialog', { name: 'Create an MCP API key' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Workspace IDs').fill(WORKSPACE);
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const shown = other.getByRole('dialog', { name: 'Copy your new key' });
  const apiKey = await shown.getByLabel(/^MCP API key/).inputValue();
  secrets.add(apiKey);
  await shown.getByRole('button', { name: 'Done' }).click();
  return apiKey;
}
