import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PATTERN } from '#lib/keys/format';
import { type RunningService, startService } from '#test/support/local-service';
import { DEFAULT_ENV_VAR, mcpClientConfigs, shellLine } from '../../web/client/mcp-clients.ts';

/**
 * The client picker of the key page's shown-once dialog, in a real browser: a person picks their
 * client and copies its configuration and the shell line; the key is never displayed twice.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let service: RunningService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is missing at ${CHROMIUM} (apt-get install -y chromium)`);
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-picker-')) }),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] }),
  ]);
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
  page = await context.newPage();
  await page.goto(`${service.url}/`);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

const clipboard = () =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

/** Signs in, creates a key and returns it with the dialog that shows it once. */
async function createKey() {
  await page.getByLabel('User id').fill('erin');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Signed in as erin' }).waitFor();
  await page
    .getByRole('region', { name: 'MCP API keys' })
    .getByRole('button', { name: 'Create key', exact: true })
    .click();
  const create = page.getByRole('dialog', { name: 'Create an MCP API key' });
  await create.getByLabel('Name').fill('picker');
  await create.getByLabel('Acme Marketing').check();
  await create.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('dialog', { name: 'Copy your new key' });
  const apiKey = await shown.getByLabel(/^MCP API key/).inputValue();
  expect(apiKey).toMatch(KEY_PATTERN);
  return { shown, apiKey };
}

describe('the client picker in the shown-once dialog', () => {
  it('offers every client; copies its configuration and the shell line with the key; shows the key once', async () => {
    const { shown, apiKey } = await createKey();
    const url = `${service.url}/mcp`;
    const withKey = mcpClientConfigs({ url, apiKey });
    const displayed = mcpClientConfigs({ url });
    const picker = shown.getByLabel('Your MCP client');
    const offered = await picker.locator('option').allTextContents();
    expect(offered).toEqual([...withKey.map((c) => c.name), 'ChatGPT or claude.ai']);

    for (const name of ['Claude Desktop', 'Codex CLI', 'VS Code']) {
      await picker.selectOption({ label: name });
      const config = shown.getByRole('group', { name: `Configuration for ${name}` });
      expect(await config.textContent()).toBe(displayed.find((c) => c.name === name)?.text);
      await shown.getByRole('button', { name: `Copy configuration for ${name}` }).click();
      await shown.getByRole('status').getByText('Configuration copied.').waitFor();
      expect(await clipboard()).toBe(withKey.find((c) => c.name === name)?.text);
    }
    // The Claude Desktop configuration copied above held the key; nothing on screen but its field does.
    await picker.selectOption({ label: 'Codex CLI' });
    await shown.getByRole('button', { name: 'Copy shell line' }).click();
    await shown.getByRole('status').getByText('Shell line copied.').waitFor();
    expect(await clipboard()).toBe(shellLine(DEFAULT_ENV_VAR, apiKey));
    const onScreen = await shown.locator('pre').allTextContents();
    expect(onScreen.length).toBeGreaterThan(1);
    for (const text of onScreen) expect(text).not.toContain(apiKey);

    await picker.selectOption({ label: 'ChatGPT or claude.ai' });
    await shown.getByText(/ChatGPT.*OAuth only/).waitFor();
    await shown.getByText(/claude\.ai.*OAuth only/).waitFor();

    await page.evaluate(AXE_SOURCE);
    const serious = await page.evaluate(async () => {
      type Result = { violations: { id: string; impact: string | null }[] };
      const { axe } = globalThis as unknown as { axe: { run(): Promise<Result> } };
      return (await axe.run()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    });
    expect(serious).toEqual([]);
  }, 60_000);

  it('remembers the client picked for the next key, and keeps no key once the dialog closes', async () => {
    await page
      .getByRole('dialog', { name: 'Copy your new key' })
      .getByRole('button', { name: 'Done' })
      .click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // The element re-renders after the dialog closes: the picker (and the key it held) goes then.
    await expect.poll(() => page.locator('svc-mcp-client-config').count()).toBe(0);
    await page
      .getByRole('button', { name: /^Rotate/ })
      .first()
      .click();
    await page
      .getByRole('alertdialog', { name: /^Rotate/ })
      .getByRole('button', { name: 'Rotate key' })
      .click();
    const shown = page.getByRole('dialog', { name: 'Copy your replacement key' });
    // The last pick above was "ChatGPT or claude.ai".
    expect(await shown.getByLabel('Your MCP client').inputValue()).toBe('oauth-only');
  }, 60_000);
});
