import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  axeSummary,
  DEMO,
  demoUser,
  focused,
  KEY,
  KeyPage,
  launchChromium,
  tracesOf,
} from '#test/support/key-page';
import {
  CALL_LIST_WORKSPACES,
  presentKey,
  type RunningService,
  startService,
} from '#test/support/local-service';
import { soakOnly } from '#test/support/soak';
import type { KeysClient } from '../../web/client/index.ts';

/**
 * The key page at / of `npm start` in a real browser, as a person uses it: by role and label, with
 * the keyboard, and scanned by axe-core. Each test signs in its own user on its own page and
 * arranges the keys it needs through the typed client; `npm run screenshots` refreshes the
 * pictures in docs/screenshots.
 */
const WORKSPACE = DEMO.marketing.id;

let service: RunningService;
let base: string;
let browser: Browser;
let context: BrowserContext;
const started = Date.now();

beforeAll(async () => {
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-browser-')) }),
    launchChromium(),
  ]);
  base = service.url;
  context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  console.log(
    `browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s in all; axe: ${axeSummary.join('; ')}`,
  );
});

/** `list_workspaces` through the MCP endpoint with a key: the status it answers. */
const callMcp = (apiKey: string) => presentKey(base, apiKey, CALL_LIST_WORKSPACES);

const LAPTOP = 'Claude Desktop (laptop)';
/** One person per test (the pictures show who is signed in, so they have names). */
const PEOPLE = [
  'ana',
  'ben',
  'cleo',
  'dana',
  'eli',
  'femi',
  'gus',
  'hana',
  'ivo',
  'jun',
  'kai',
  'lea',
  'milo',
];
let tests = 0;

describe('the key page at / of npm start', () => {
  let kp: KeyPage;
  let page: Page;
  /** A user of its own for each test: nothing one test does is seen by another. */
  let user: string;

  beforeEach(async () => {
    user = `${PEOPLE[tests % PEOPLE.length]}${tests >= PEOPLE.length ? tests : ''}`;
    tests += 1;
    kp = await KeyPage.open(browser, base);
    page = kp.page;
  });

  afterEach(async () => {
    expect(kp.secrets.size).toBeGreaterThan(0); // at least the login: the check below has something to find
    await kp.expectNoLeaks();
    await kp.close();
  });

  /** Arranges a key for this test's user through the typed client; its value is a secret of the test. */
  async function arrangeKey(
    name = LAPTOP,
    scopes: ('svc.forms.read' | 'svc.forms.generate')[] = ['svc.forms.read', 'svc.forms.generate'],
  ): Promise<{ api: KeysClient; id: string; apiKey: string }> {
    const { api, token } = await demoUser(base, user);
    kp.secrets.add(token);
    const created = await api.create({ name, workspace_ids: [WORKSPACE], scopes, expires_in_days: 45 });
    kp.secrets.add(created.api_key);
    return { api, id: created.metadata.id, apiKey: created.api_key };
  }

  /** A key that was created, rotated, and whose replacement was revoked: four events in its lineage. */
  async function arrangeRevokedLineage(): Promise<void> {
    const { api, id } = await arrangeKey();
    const rotated = await api.rotate(id);
    kp.secrets.add(rotated.api_key);
    await api.revoke(rotated.metadata.id);
  }

  const showAll = (on: boolean) => kp.keys().getByLabel('Show revoked and expired keys').setChecked(on);

  it('signs a person in with the dev issuer and shows their (empty) key list', async () => {
    await page.getByRole('heading', { name: 'Dev sign-in' }).waitFor();
    await kp.expectAccessible('sign-in');
    await kp.signIn(user);
    await kp.keys().getByText('No keys yet').waitFor();
    await kp.expectAccessible('empty list');
  });

  it('creates a key and shows it once, with a copy button and a client configuration', async () => {
    await kp.signIn(user);
    const dialog = await kp.fillCreate(LAPTOP, ['Acme Marketing'], ['Read', 'Generate'], 45);
    // Each scope says what it allows and, from the API's scope/role table, the role it needs.
    const scopeHints = await dialog
      .getByRole('group', { name: 'Scopes' })
      .getByRole('paragraph')
      .allInnerTexts();
    expect(scopeHints).toEqual([
      'List workspaces and forms, read drafts.',
      'Create forms and replace drafts (needs editor).',
      'AI-generated form previews (needs editor).',
    ]);
    await kp.screenshot('create-key');
    await kp.expectAccessible('create dialog');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'Copy your new key' });
    await shown.getByText('This is the only time the key is shown').waitFor();
    const apiKey = await kp.takeShownKey(/Copy your new key/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('status').getByText('Key copied.').waitFor();
    const clipboard = () =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText();
    expect(await page.evaluate(clipboard)).toBe(apiKey);
    const config =
      (await shown.getByRole('group', { name: 'Configuration for Claude Code' }).textContent()) ?? '';
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
    await kp.screenshot('key-shown-once');
    await kp.expectAccessible('key shown once');
    expect(await callMcp(apiKey)).toBe(200); // the key shown is the real one
    await kp.done();
  });

  it('leaves no trace of the key once the dialog is closed, and returns focus to Create', async () => {
    await kp.signIn(user);
    const dialog = await kp.fillCreate('Laptop', ['Acme Marketing']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const apiKey = await kp.takeShownKey(/Copy your new key/);
    await kp.done();
    await expect.poll(() => focused(page)).toBe('create');
    // The whole key and any long piece of it; afterEach checks the console and request URLs too.
    for (const needle of [apiKey, apiKey.slice(20, 60)]) expect(await tracesOf(page, needle)).toEqual([]);
  });

  it('lists a key: name, hint, scopes, workspaces, status, expiry and last use', async () => {
    const { apiKey } = await arrangeKey();
    expect(await callMcp(apiKey)).toBe(200);
    await kp.signIn(user);
    await kp.row('Claude Desktop').waitFor();
    const cells = await kp.row('Claude Desktop').getByRole('cell').allInnerTexts();
    const [hint, scopes, workspaces, status, expires, lastUsed] = cells.map((c) =>
      c.replace(/\s+/g, ' ').trim(),
    );
    expect(hint).toBe(`svc_mcp_v1_…${apiKey.slice(-4)}`);
    expect(scopes).toBe('svc.forms.read svc.forms.generate');
    expect(workspaces).toBe('Acme Marketing');
    expect(status).toBe('Active');
    expect(Date.parse(expires ?? '')).toBeGreaterThan(Date.now() + 44 * 86_400_000);
    expect(lastUsed).not.toBe('Never'); // the MCP call above
    await kp.screenshot('key-list');
    await kp.expectAccessible('key list');
  });

  it('rotates after a confirmation and shows the replacement once; the old value stops working', async () => {
    const { apiKey } = await arrangeKey();
    await kp.signIn(user);
    await kp
      .row('Claude Desktop')
      .getByRole('button', { name: /^Rotate/ })
      .click();
    const confirm = page.getByRole('alertdialog', { name: /Rotate “Claude Desktop \(laptop\)”\?/ });
    await confirm.getByText('The current key stops working at once').waitFor();
    await confirm.getByRole('button', { name: 'Rotate key' }).click();
    const replacement = await kp.takeShownKey(/Copy your replacement key/);
    expect(replacement).not.toBe(apiKey);
    await kp.done();
    expect(await callMcp(apiKey)).toBe(401);
    expect(await callMcp(replacement)).toBe(200);
    await kp.row(`…${replacement.slice(-4)}`).waitFor();
    expect(await tracesOf(page, replacement)).toEqual([]);
  });

  it('revokes only after a confirmation', async () => {
    await arrangeKey();
    await kp.signIn(user);
    const revoke = kp.row('Claude Desktop').getByRole('button', { name: /^Revoke/ });
    await revoke.click();
    const confirm = page.getByRole('alertdialog', { name: /Revoke “Claude Desktop \(laptop\)”\?/ });
    await confirm.getByText('This can’t be undone').waitFor();
    await kp.screenshot('revoke-confirm');
    await kp.expectAccessible('revoke confirmation');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await kp.row('Claude Desktop').getByText('Active', { exact: true }).count()).toBe(1);

    await revoke.click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    const notice = kp.keys().getByRole('status');
    await notice.getByText('Key “Claude Desktop (laptop)” revoked.').waitFor();
    // On screen, not only for screen readers: the row is gone, and the page says why.
    expect((await notice.boundingBox())?.height).toBeGreaterThan(16);
    await kp.keys().getByText('No keys yet').waitFor();
    await showAll(true);
    await kp.row(/Claude Desktop.*Revoked/).waitFor();
  });

  it('tells a rotated key from a revoked one when revoked keys are shown: Rotated names its replacement', async () => {
    await arrangeRevokedLineage();
    await kp.signIn(user);
    await showAll(true);
    const replacement = kp.row(/Claude Desktop.*Revoked/);
    await replacement.waitFor();
    const hint = await replacement.getByRole('cell').first().innerText(); // the key's hint
    const rotated = kp.row(/Claude Desktop.*Rotated/);
    expect(await rotated.getByText('Revoked', { exact: true }).count()).toBe(0);
    expect((await rotated.innerText()).replace(/\s+/g, ' ')).toContain(`Rotated Replaced by ${hint.trim()}`);
    await kp.expectAccessible('rotated and revoked keys');
  });

  it('shows a key’s history, newest first: created, rotated, created, revoked', async () => {
    await arrangeRevokedLineage();
    await kp.signIn(user);
    await showAll(true);
    const history = kp
      .row(/Claude Desktop.*Revoked/)
      .first()
      .getByRole('button', { name: 'History of Claude Desktop (laptop)' });
    await history.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'History of “Claude Desktop (laptop)”' });
    await dialog.getByRole('status').getByText('4 events.').waitFor();
    await expect.poll(() => focused(page)).toBe('button:Close');
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
    await kp.screenshot('key-history');
    await kp.expectAccessible('key history');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('button:History of Claude Desktop (laptop)');
  });

  it('loads a long history a page at a time with “Load more”', async () => {
    await arrangeRevokedLineage();
    // The real API, with pages of 2 instead of 20: the second page follows next_cursor.
    await page.route('**/v1/mcp/api-keys/*/events*', (route) => {
      const url = new URL(route.request().url());
      url.searchParams.set('limit', '2');
      return route.continue({ url: url.href });
    });
    await kp.signIn(user);
    await showAll(true);
    await kp
      .row(/Claude Desktop.*Revoked/)
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
    expect(await focused(page)).toMatch(/^tr:/); // the last row, not lost with the button
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('works with the keyboard alone, and returns focus where it was', async () => {
    await kp.signIn(user);
    await kp.createButton().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('name');
    await page.keyboard.type('Cursor (desktop)');
    await page.keyboard.press('Tab'); // the first workspace
    await page.keyboard.press('Space');
    expect(await focused(page)).toMatch(/^input:/);
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab'); // past the workspaces and scopes
    expect(await focused(page)).toBe('expires');
    await page.keyboard.press('Enter'); // submits the form
    await page.getByRole('dialog', { name: 'Copy your new key' }).waitFor();
    await expect.poll(() => focused(page)).toBe('button:Copy key');
    await kp.takeShownKey(/Copy your new key/);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('create');

    await kp
      .row('Cursor')
      .getByRole('button', { name: /^Revoke/ })
      .focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('button:Cancel');
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page)).toBe('button:Revoke Cursor (desktop)');
  });

  it('flags a key whose creator left its workspaces: it grants nothing', async () => {
    await arrangeKey('Cursor (desktop)', ['svc.forms.read']);
    await kp.signIn(user);
    await page.getByRole('button', { name: 'Leave Acme Marketing' }).click();
    const cursor = kp.row('Cursor');
    await cursor.getByText('No access').waitFor();
    await cursor.getByText('(you left this workspace)').waitFor();
    await kp.screenshot('no-access');
    await page.getByRole('button', { name: 'Join Acme Marketing as editor' }).click();
    await cursor.getByText('Active').waitFor();
  });

  it('shows the API’s field errors in the form, naming the workspace', async () => {
    await kp.signIn(user);
    const dialog = await kp.fillCreate('Too much', ['Acme Support'], ['Write']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('role viewer in workspace Acme Support does not allow svc.forms.write').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('asks the person to sign in again when the API answers reauthentication_required, then carries on', async () => {
    await kp.signIn(user, { staleLogin: true });
    const dialog = await kp.fillCreate('Zed (work laptop)', ['Acme Research'], ['Read', 'Write']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Sign in again to continue' });
    await prompt.getByText('needs a sign-in from the last 15 minutes').waitFor();
    await expect.poll(() => focused(page)).toBe('button:Sign in again');
    await kp.screenshot('sign-in-again');
    await kp.expectAccessible('sign-in-again prompt');
    await prompt.getByRole('button', { name: 'Sign in again' }).click();
    await kp.takeShownKey(/Copy your new key/);
    await kp.done();
    await kp.row('Zed').waitFor();
  });

  soakOnly('leaves the key as it was when the person declines to sign in again', async () => {
    await arrangeKey('Zed (work laptop)', ['svc.forms.read']);
    await kp.signIn(user, { staleLogin: true });
    await kp
      .row('Zed')
      .getByRole('button', { name: /^Rotate/ })
      .click();
    const rotate = page.getByRole('alertdialog', { name: /Rotate/ });
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Sign in again to continue' });
    await prompt.getByRole('button', { name: 'Cancel' }).click();
    await rotate.getByRole('alert').getByText('Sign in again: this action needs a login').waitFor();
    await rotate.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await kp.row('Zed').getByText('Active', { exact: true }).count()).toBe(1);
  });

  it('has an accessibility scan that sees inside the element (a control that must fail)', async () => {
    await kp.signIn(user);
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
    await expect(kp.expectAccessible('control: an unnamed button')).rejects.toThrow(/button-name/);
    axeSummary.pop();
    await inject(false);
    await kp.expectAccessible('control removed');
  });
});

describe('the page itself', () => {
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
      expect(member.status).toBe(200);
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
  await shown.getByRole('button', { name: 'Done' }).click();
  return apiKey;
}
