import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createKeysClient, type KeysClient } from '../../web/client/index.ts';
import { focused, tracesOf } from './key-page-dom.ts';

/**
 * The key page of `npm start` in a real browser (Debian's Chromium, driven by playwright-core),
 * used as a person uses it: by role and label, with the keyboard, scanned by axe-core. Each test
 * opens its own page as its own user, and arranges the keys it needs through the typed client.
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
/** `npm run screenshots` sets it: only then are the pictures in docs/screenshots written. */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS ? 'docs/screenshots' : undefined;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const KEY = /^svc_mcp_v1_[0-9A-Za-z]{71}$/;

/** The dev page's demo workspaces, with the role its sign-in gives (web/dev/dev.ts). */
export const DEMO = {
  marketing: { id: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61', role: 'editor' },
  support: { id: '8b1d3c0e-5f7a-4e2b-9c6d-1a2b3c4d5e6f', role: 'viewer' },
  research: { id: 'c2a9e7f1-3b4d-4c5e-8f6a-7b8c9d0e1f2a', role: 'owner' },
} as const;

/** Every axe run of the file, for its closing line. */
export const axeSummary: string[] = [];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: the browser tests need Debian's chromium ` +
        '(apt-get install -y chromium; .ci/run installs it) or CHROMIUM_PATH set to another build.',
    );
  }
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A dev-issuer login for `sub`, fresh unless `authAgeSeconds`, as the dev page mints it. */
export async function devToken(base: string, sub: string, authAgeSeconds = 0): Promise<string> {
  const reply = await fetch(`${base}/_dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub, email_verified: true, auth_age_seconds: authAgeSeconds }),
  });
  if (!reply.ok) throw new Error(`dev token: ${reply.status}`);
  return ((await reply.json()) as { token: string }).token;
}

/**
 * `sub` as the dev page's sign-in makes them (a member of the demo workspaces), with the typed
 * client of a fresh login: what a test uses to arrange keys before it opens the page.
 */
export async function demoUser(base: string, sub: string): Promise<{ token: string; api: KeysClient }> {
  for (const { id, role } of Object.values(DEMO)) {
    const reply = await fetch(`${base}/_dev/memberships/${sub}/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role }),
    });
    if (reply.status !== 200) throw new Error(`membership not granted: ${reply.status}`);
  }
  const token = await devToken(base, sub);
  return { token, api: createKeysClient({ baseUrl: base, token: () => token }) };
}

/** One browser context with the page at `/`, and what it leaked, if anything. */
export class KeyPage {
  /** Every key and token this page's test has seen: none may show up where it must not. */
  readonly secrets = new Set<string>();
  readonly consoleLines: string[] = [];
  readonly requestUrls: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly base: string,
  ) {}

  static async open(browser: Browser, base: string): Promise<KeyPage> {
    const context = await browser.newContext({
      viewport: { width: 1200, height: 820 },
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const keyPage = new KeyPage(context, await context.newPage(), base);
    const { page } = keyPage;
    page.on('console', (message) => keyPage.consoleLines.push(message.text()));
    page.on('pageerror', (error) => keyPage.consoleLines.push(`pageerror: ${error.message}`));
    page.on('request', (request) => keyPage.requestUrls.push(request.url()));
    page.on('response', async (response) => {
      if (new URL(response.url()).pathname === '/_dev/token' && response.ok()) {
        keyPage.secrets.add(((await response.json()) as { token: string }).token);
      }
    });
    await page.goto(`${base}/`);
    return keyPage;
  }

  async signIn(user: string, options: { staleLogin?: boolean } = {}): Promise<void> {
    await this.page.getByLabel('User id').fill(user);
    await this.page.getByLabel(/Last sign-in 20 minutes ago/).setChecked(options.staleLogin === true);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
    await this.page.getByRole('heading', { name: `Signed in as ${user}` }).waitFor();
    // The dev page has made the person a member of its last demo workspace: sign-in is over.
    await this.page.getByRole('button', { name: 'Leave Acme Research' }).waitFor();
  }

  async signOut(): Promise<void> {
    await this.page.getByRole('button', { name: 'Sign out' }).click();
    await this.page.getByLabel('User id').waitFor();
  }

  keys(): Locator {
    return this.page.getByRole('region', { name: 'MCP API keys' });
  }

  createButton(): Locator {
    return this.keys().getByRole('button', { name: 'Create key', exact: true });
  }

  row(name: string | RegExp): Locator {
    return this.page.getByRole('row', { name: typeof name === 'string' ? new RegExp(name) : name });
  }

  /** Opens the create dialog and fills it; returns the dialog (not yet submitted). */
  async fillCreate(
    name: string,
    workspaces: string[],
    scopes: string[] = ['Read'],
    days = 30,
  ): Promise<Locator> {
    await this.createButton().click();
    const dialog = this.page.getByRole('dialog', { name: 'Create an MCP API key' });
    await dialog.getByLabel('Name').fill(name);
    for (const ws of workspaces) await dialog.getByLabel(ws).check();
    for (const scope of ['Read', 'Write', 'Generate']) {
      await dialog
        .getByRole('checkbox', { name: new RegExp(`^${scope} `) })
        .setChecked(scopes.includes(scope));
    }
    await dialog.getByLabel('Expires after (days)').fill(String(days));
    return dialog;
  }

  /** Reads the key the open dialog shows once (and remembers it as a secret). */
  async takeShownKey(title: RegExp): Promise<string> {
    const dialog = this.page.getByRole('dialog', { name: title });
    const apiKey = await dialog.getByLabel(/^MCP API key/).inputValue();
    expect(apiKey).toMatch(KEY);
    this.secrets.add(apiKey);
    return apiKey;
  }

  /** Clicks the shown-once dialog's Done and waits for it to go. */
  async done(): Promise<void> {
    await this.page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await this.page.getByRole('dialog').waitFor({ state: 'detached' });
  }

  /** axe-core on the whole page (shadow DOM included): no serious or critical violation. */
  async expectAccessible(state: string): Promise<void> {
    await this.page.evaluate(AXE_SOURCE); // through DevTools, so the page's CSP stays in force
    const violations = await this.page.evaluate(async () => {
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

  /**
   * Under `npm run screenshots` only, saves a picture of the page to docs/screenshots; a key on
   * screen is masked (a key never goes into a screenshot).
   */
  async screenshot(name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    await this.page.screenshot({
      path: join(SCREENSHOTS, `${name}.png`),
      mask: [this.page.getByRole('textbox', { name: /^MCP API key “/ })],
      maskColor: '#c8c8d0',
    });
  }

  /**
   * No key or token of this test in the console, a request URL, storage, the URL, cookies or the
   * DOM (every shadow root and field value), and no CSP violation or page error.
   */
  async expectNoLeaks(): Promise<void> {
    for (const secret of this.secrets) {
      expect(await tracesOf(this.page, secret)).toEqual([]);
      expect(this.consoleLines.filter((line) => line.includes(secret))).toEqual([]);
      expect(this.requestUrls.filter((url) => url.includes(secret))).toEqual([]);
    }
    expect(this.consoleLines.filter((line) => /Content Security Policy|pageerror/i.test(line))).toEqual([]);
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

export { focused, tracesOf };
