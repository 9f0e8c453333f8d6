import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonClient, type RunningService, startService } from '#test/support/local-service';

/**
 * `<svc-mcp-workspace-keys>` on the local page, as an owner uses it (contract §12): they see a
 * colleague's key to their workspace, cut it off, and the colleague's next MCP call (the official
 * SDK client) lacks the workspace; a policy that disables MCP access takes the rest off. Scanned
 * by axe-core in each state.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const RESEARCH = 'c2a9e7f1-3b4d-4c5e-8f6a-7b8c9d0e1f2a';
const MARKETING = '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';

let service: RunningService;
let browser: Browser;
let page: Page;
const call = jsonClient(() => service.url);
const secrets = new Set<string>();

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}`);
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-governance-')) }),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] }),
  ]);
  page = await (await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' })).newPage();
  await page.goto(`${service.url}/`);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** A colleague's key to Research and Marketing, created through the API as their own page would. */
async function colleagueKey(sub: string, name: string): Promise<string> {
  const token = (await call('POST', '/_dev/token', { body: { sub, email_verified: true } })).json
    .token as string;
  for (const ws of [RESEARCH, MARKETING])
    await call('PUT', `/_dev/memberships/${sub}/${ws}`, { body: { role: 'editor' } });
  const created = await call('POST', '/v1/mcp/api-keys', {
    token,
    body: { name, workspace_ids: [RESEARCH, MARKETING], scopes: ['svc.forms.read'] },
  });
  expect(created.status, created.text).toBe(201);
  secrets.add(created.json.api_key);
  return created.json.api_key as string;
}

/** The workspaces the key reaches now, through the official MCP SDK client. */
async function reachable(apiKey: string): Promise<string[]> {
  const client = new Client({ name: 'governance-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
    return (result.structuredContent as { workspaces: { workspace_id: string }[] }).workspaces
      .map((w) => w.workspace_id)
      .sort();
  } finally {
    await client.close();
  }
}

async function axe(state: string): Promise<void> {
  await page.evaluate(AXE_SOURCE); // through DevTools, so the page's CSP stays in force
  const violations = await page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null }[] };
    const { axe } = globalThis as unknown as { axe: { run(): Promise<Result> } };
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `${state}: ${JSON.stringify(blocking)}`).toEqual([]);
}

const region = () => page.getByRole('region', { name: 'MCP keys that reach Acme Research' });

describe('an owner governs their workspace in the browser', () => {
  it('sees a colleague’s key, cuts it off after confirmation; the colleague’s next MCP call lacks the workspace', async () => {
    const apiKey = await colleagueKey('colleague-bo', 'Bo’s laptop');
    expect(await reachable(apiKey)).toEqual([MARKETING, RESEARCH].sort());

    await page.getByLabel('User id').fill('owner-ana');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const row = region().getByRole('row', { name: /Bo’s laptop/ });
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('colleague-bo');
    // Why an owner sees the panel, in one line.
    await region().getByText('You see this because you administer Acme Research').waitFor();
    // The admin's view never names the key's other workspaces.
    expect(await region().innerText()).not.toContain(MARKETING);
    await axe('workspace keys listed');

    await row.getByRole('button', { name: 'Cut off Bo’s laptop' }).click();
    const dialog = page.getByRole('dialog', { name: /Cut “Bo’s laptop” off from Acme Research/ });
    await dialog.waitFor();
    await axe('cut-off confirmation');
    await dialog.getByRole('button', { name: 'Cut off' }).click();
    // The status cell, not the row: the row's own button is labelled "Cut off" before the change.
    await row.locator('.status.removed').waitFor();
    expect(await row.getByRole('button', { name: 'Cut off Bo’s laptop' }).count()).toBe(0);
    expect(await reachable(apiKey)).toEqual([MARKETING]);
    await expect
      .poll(() => region().getByRole('list', { name: 'Governance history' }).textContent())
      .toContain('cut off by owner-ana');

    // The colleague's own page says who removed what.
    const mine = await call('POST', '/_dev/token', { body: { sub: 'colleague-bo', email_verified: true } });
    const list = await call('GET', '/v1/mcp/api-keys', { token: mine.json.token });
    expect(list.json.data[0].removed_workspace_ids).toEqual([RESEARCH]);
  });

  it('a policy that disables MCP access takes every key off the workspace', async () => {
    const first = await colleagueKey('colleague-cy', 'Cy desktop');
    const second = await colleagueKey('colleague-di', 'Di laptop');
    await page.getByRole('combobox', { name: 'Show' }).selectOption('active');
    await region()
      .getByRole('row', { name: /Di laptop/ })
      .waitFor();
    await page.getByRole('checkbox', { name: /Allow MCP keys to reach Acme Research/ }).uncheck();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await region()
      .getByRole('status')
      .getByText(/2 keys will lose access/)
      .waitFor();
    await axe('policy saved');
    // Within the contract's 60 s; locally it takes a poll of the stream.
    await expect.poll(() => reachable(first), { timeout: 30_000, interval: 500 }).toEqual([MARKETING]);
    expect(await reachable(second)).toEqual([MARKETING]);
    const text = await page.content();
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('asks the owner to sign in again when saving the policy needs a recent login, then saves it', async () => {
    // Arranged through the API: Ana owns Research, whose policy keeps MCP keys out.
    const owner = (await call('POST', '/_dev/token', { body: { sub: 'owner-ana', email_verified: true } }))
      .json.token as string;
    await call('PUT', `/_dev/memberships/owner-ana/${RESEARCH}`, { body: { role: 'owner' } });
    const off = await call('PUT', `/v1/mcp/workspaces/${RESEARCH}/policy`, {
      token: owner,
      body: {
        mcp_access: 'disabled',
        allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
        max_expiry_days: null,
      },
    });
    expect(off.status, off.text).toBe(200);

    if (await page.getByRole('button', { name: 'Sign out' }).isVisible())
      await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User id').fill('owner-ana');
    await page.getByLabel(/Last sign-in 20 minutes ago/).check();
    await page.getByRole('button', { name: 'Sign in' }).click();
    const access = page.getByRole('checkbox', { name: /Allow MCP keys to reach Acme Research/ });
    await expect.poll(() => access.isChecked()).toBe(false);
    await access.check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Sign in again to continue' });
    await prompt.getByText('this action needs a sign-in from the last 15 minutes').waitFor();
    await axe('sign-in-again prompt');
    await prompt.getByRole('button', { name: 'Sign in again' }).click();
    await region()
      .getByRole('status')
      .getByText(/Policy saved\. 0 keys will lose access/)
      .waitFor();
    await expect.poll(() => access.isChecked()).toBe(true);
    await expect
      .poll(() => region().getByRole('list', { name: 'Governance history' }).textContent())
      .toContain('MCP access enabled');

    // Apps people approve only: the boxes for API keys and IdP-managed apps unchecked, the policy
    // saved, the history says so.
    const keys = page.getByRole('checkbox', { name: 'API keys', exact: true });
    const enterprise = page.getByRole('checkbox', { name: 'Apps your organisation’s sign-in lets in' });
    await expect.poll(() => keys.isChecked()).toBe(true);
    await expect.poll(() => enterprise.isChecked()).toBe(true);
    await keys.uncheck();
    await enterprise.uncheck();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect
      .poll(() => region().getByRole('list', { name: 'Governance history' }).textContent())
      .toContain('MCP access enabled; OAuth apps only');
    const saved = await call('GET', `/v1/mcp/workspaces/${RESEARCH}/policy`, { token: owner });
    expect(saved.json.credential_kinds).toEqual(['oauth_grant']);
    await expect.poll(() => keys.isChecked()).toBe(false);
    await expect
      .poll(() => page.getByRole('checkbox', { name: 'Apps people approve through OAuth' }).isChecked())
      .toBe(true);
    // Every kind again, for the tests that follow.
    await keys.check();
    await enterprise.check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect
      .poll(
        async () =>
          (await call('GET', `/v1/mcp/workspaces/${RESEARCH}/policy`, { token: owner })).json
            .credential_kinds,
      )
      .toEqual(['api_key', 'oauth_grant', 'enterprise_grant']);
  });

  it('offers no action on a key that no longer works: a revoked key has no “Cut off” button', async () => {
    // Arranged through the API: Ed has two keys to Research and revokes one himself.
    const ed = (await call('POST', '/_dev/token', { body: { sub: 'colleague-ed', email_verified: true } }))
      .json.token as string;
    await call('PUT', `/_dev/memberships/colleague-ed/${RESEARCH}`, { body: { role: 'editor' } });
    const create = (name: string) =>
      call('POST', '/v1/mcp/api-keys', {
        token: ed,
        body: { name, workspace_ids: [RESEARCH], scopes: ['svc.forms.read'] },
      });
    const [tablet, phone] = [await create('Ed tablet'), await create('Ed phone')];
    expect([tablet.status, phone.status]).toEqual([201, 201]);
    secrets.add(tablet.json.api_key).add(phone.json.api_key);
    expect((await call('DELETE', `/v1/mcp/api-keys/${tablet.json.metadata.id}`, { token: ed })).status).toBe(
      200,
    );

    if (await page.getByRole('button', { name: 'Sign out' }).isVisible())
      await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('User id').fill('owner-ana');
    await page.getByLabel(/Last sign-in 20 minutes ago/).uncheck();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('combobox', { name: 'Show' }).selectOption({ label: 'All' });
    const revoked = region().getByRole('row', { name: /Ed tablet/ });
    const active = region().getByRole('row', { name: /Ed phone/ });
    await active.getByRole('button', { name: 'Cut off Ed phone' }).waitFor();
    await expect.poll(() => revoked.getByRole('cell').nth(2).textContent()).toBe('revoked');
    expect(await revoked.getByRole('button').count()).toBe(0);
    await axe('a revoked key beside an active one');
  });
});
