import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeSummary, DEMO, demoUser, KeyPage, launchChromium } from '#test/support/key-page';
import { presentKey, type RunningService, startService } from '#test/support/local-service';
import type { CredentialUsage, WorkspaceUsage } from '../../web/client/usage.ts';
import { createUsageClient } from '../../web/client/usage.ts';
import { daysFrom } from '../../web/component/shared/charts.ts';

/**
 * The usage pictures (contract §18) in Chromium: a person's key makes tool calls with the official
 * SDK v2 client (its `Mcp-Name` header names the tool), a second key is revoked and presented
 * again; the key list then shows each key's 30-day sparkline and its calls of the last 7 days, the
 * usage panel the calls per day, refusals and tools, and the workspace's administrators see the
 * usage per key and per client with the revoked key still presented called out. axe-core scans
 * each state; `UPDATE_SCREENSHOTS=1` writes the pictures in docs/screenshots.
 */
const USER = 'uma';
const LAPTOP = 'Claude Code (laptop)';
const OLD = 'Old CI key';
const TOOL_CALLS = 3;
const PRESENTED = 4;

let service: RunningService;
let base: string;
let browser: Browser;
let kp: KeyPage | undefined;
const started = Date.now();
/** What the API says the two keys did, once every count was written. */
let laptop: CredentialUsage;
let workspace: WorkspaceUsage;
let laptopId: string;
const secrets: string[] = [];

/** The laptop key's accepted calls by tool, most first, as the page writes them. */
const toolsText = () => {
  const unnamed = `No tool named ${laptop.total.calls - TOOL_CALLS}`;
  const named = `list_workspaces ${TOOL_CALLS}`;
  return laptop.total.calls - TOOL_CALLS > TOOL_CALLS ? `${unnamed} ${named}` : `${named} ${unnamed}`;
};

/** A row's name that holds `text` as it is. */
const named = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/**
 * Tool calls through the official SDK v2 client, which names each tool in its `Mcp-Name` header;
 * how many requests it sent (each verified, so each counted).
 */
async function callTools(apiKey: string, times: number): Promise<number> {
  let requests = 0;
  const client = new Client(
    { name: 'usage-browser', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      fetch: (url, init) => {
        requests++;
        return fetch(url, init);
      },
    }),
  );
  try {
    for (let i = 0; i < times; i++) await client.callTool({ name: 'list_workspaces', arguments: {} });
  } finally {
    await client.close();
  }
  return requests;
}

beforeAll(async () => {
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-usage-')), LOCAL_USAGE_WRITE_SECONDS: '0' }),
    launchChromium(),
  ]);
  base = service.url;
  const { token, api } = await demoUser(base, USER);
  const create = (name: string) =>
    api.create({ name, workspace_ids: [DEMO.research.id], scopes: ['svc.forms.read'], expires_in_days: 30 });
  const [used, old] = [await create(LAPTOP), await create(OLD)];
  secrets.push(token, used.api_key, old.api_key);
  laptopId = used.metadata.id;
  // Every request presenting the key counts: the SDK's own, and the one below.
  const requests = (await callTools(used.api_key, TOOL_CALLS)) + 1;
  await api.revoke(old.metadata.id);
  for (let i = 0; i < PRESENTED; i++) expect(await presentKey(base, old.api_key)).toBe(401);
  // Counts wait for the next verification (LOCAL_USAGE_WRITE_SECONDS=0): one more call writes them.
  expect(await presentKey(base, used.api_key)).not.toBe(401);

  // Written alongside the verification, the last call's by the timer a second later: read until the
  // revoked key's last presentation and every call of the used key show.
  const usage = createUsageClient({ baseUrl: base, token: () => token });
  const range = { from: daysFrom() };
  for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 200))) {
    workspace = await usage.workspaceUsage(DEMO.research.id, range);
    const counted = workspace.groups.find((g) => g.key === laptopId)?.calls === requests;
    if ((workspace.revoked_still_presented[0]?.presented === PRESENTED && counted) || Date.now() > deadline)
      break;
  }
  expect(workspace.revoked_still_presented).toEqual([
    expect.objectContaining({ name: OLD, presented: PRESENTED }),
  ]);
  laptop = await usage.keyUsage(laptopId, range);
  expect(laptop.total.calls).toBe(requests);
  expect(laptop.total.tools).toEqual({ list_workspaces: TOOL_CALLS });
}, 120_000);

afterAll(async () => {
  await kp?.close();
  await browser?.close();
  await service?.stop();
  console.log(
    `usage browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s; axe: ${axeSummary.join('; ')}`,
  );
});

/** The person's page, signed in: the key list and, below it, the owned workspace's administrators' view. */
async function signedIn(): Promise<KeyPage> {
  await kp?.close();
  kp = await KeyPage.open(browser, base);
  for (const secret of secrets) kp.secrets.add(secret);
  await kp.signIn(USER);
  return kp;
}

describe('usage, as the key page and the workspace view picture it', () => {
  it('each key’s row has a 30-day sparkline named by its summary, and its calls of the last 7 days', async () => {
    const page = await signedIn();
    const calls = laptop.total.calls;
    expect(calls).toBeGreaterThanOrEqual(TOOL_CALLS);
    const row = page.keys().getByRole('row', { name: named(LAPTOP) });
    const spark = row.getByRole('img', { name: /^Calls per day: / });
    await spark.waitFor();
    expect(await spark.getAttribute('aria-label')).toMatch(
      new RegExp(`^Calls per day: ${calls} calls in 30 days, most on \\w+ \\d+ \\(${calls}\\)$`),
    );
    await row.getByText(`${calls} calls in 7 days`).waitFor();
    // The revoked key: every call it made was refused, and each counts.
    await page.page.getByLabel('Show revoked and expired keys and apps').check();
    const old = page.keys().getByRole('row', { name: named(OLD) });
    await old.getByText(`${PRESENTED} refused calls in 7 days`).waitFor();
    await old.getByText(`Presented ${PRESENTED} times after revocation`).waitFor();
    await old
      .getByRole('img', { name: `Calls per day: ${PRESENTED} calls in 30 days`, exact: false })
      .waitFor();
    await page.expectAccessible('key list with sparklines');
    await page.screenshot('key-list-usage');
    await page.expectNoLeaks();
  });

  it('the usage panel shows calls per day, the refusals by reason and the tools, with the numbers as text', async () => {
    const page = await signedIn();
    await page
      .keys()
      .getByRole('button', { name: `Usage of ${LAPTOP}` })
      .click();
    const dialog = page.page.getByRole('dialog', { name: `Usage of “${LAPTOP}”` });
    await dialog.getByText(`${laptop.total.calls} calls`, { exact: true }).waitFor();
    await dialog.getByText('none refused').waitFor();
    const chart = dialog.getByRole('img', { name: /^Calls per day: / });
    expect(await chart.getAttribute('aria-label')).toContain(`${laptop.total.calls} calls in 30 days`);
    // The chart's numbers, as a (visually hidden) table: one row a day, today's with the calls.
    const days = dialog.getByRole('table', { name: 'Calls per day' });
    expect(await days.getByRole('row').count()).toBe(31); // the header and 30 days
    const today = days.getByRole('row').last();
    expect(await today.getByRole('cell').allTextContents()).toEqual([String(laptop.total.calls), '0']);
    // The SDK's requests that were not a tool call (initialize) count as naming no tool.
    const tools = dialog.getByRole('list', { name: 'Accepted calls by tool' });
    expect((await tools.innerText()).replace(/\s+/g, ' ').trim()).toBe(toolsText());
    await dialog.getByText('No tool named: calls that were not a tool call', { exact: false }).waitFor();
    await dialog.getByText('No call was refused.').waitFor();
    await page.expectAccessible('usage panel');
    await page.screenshot('key-usage');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The revoked key's panel: its calls were refused, as revoked.
    await page.page.getByLabel('Show revoked and expired keys and apps').check();
    await page
      .keys()
      .getByRole('button', { name: `Usage of ${OLD}` })
      .click();
    const refusals = page.page
      .getByRole('dialog', { name: `Usage of “${OLD}”` })
      .getByRole('list', { name: 'Refusals by reason' });
    await expect.poll(() => refusals.textContent()).toMatch(new RegExp(`Revoked\\s*${PRESENTED}`));
    await page.expectAccessible('usage panel of a revoked key');
    await page.expectNoLeaks();
  });

  it('administrators see the usage per key and per client, and the revoked key still presented called out', async () => {
    const page = await signedIn();
    const region = page.page.getByRole('region', { name: 'MCP keys that reach Acme Research' });
    const usage = region.getByRole('region', { name: 'Usage in the last 30 days' });
    const warning = usage.getByRole('region', { name: 'Revoked but still presented' });
    await expect
      .poll(async () => (await warning.textContent())?.replace(/\s+/g, ' '))
      .toMatch(new RegExp(`${OLD} .*key of ${USER}, revoked .*: presented ${PRESENTED} times`));
    const perKey = usage.getByRole('table', { name: /^Calls per key or app to Acme Research/ });
    const laptopGroup = workspace.groups.find((g) => g.key === laptopId);
    expect(laptopGroup?.calls).toBe(laptop.total.calls);
    const cells = (row: Locator) => row.getByRole('cell').allInnerTexts();
    const trimmed = (texts: string[]) => texts.map((t) => t.replace(/\s+/g, ' ').trim());
    // The table may still be drawing when the warning shows: poll until its rows are there.
    await expect
      .poll(async () => trimmed(await cells(perKey.getByRole('row', { name: named(LAPTOP) }))))
      .toEqual([String(laptop.total.calls), '0', toolsText()]);
    expect(trimmed(await cells(perKey.getByRole('row', { name: named(OLD) })))).toEqual([
      String(PRESENTED),
      `Revoked: ${PRESENTED}`,
      'none',
    ]);
    await usage.scrollIntoViewIfNeeded();
    await page.expectAccessible('workspace usage per key, a revoked key still presented');
    await page.screenshot('workspace-usage');

    await usage.getByRole('combobox', { name: 'Group by' }).selectOption('client');
    const perClient = usage.getByRole('table', { name: /^Calls per client to Acme Research/ });
    const apiKeys = perClient.getByRole('row', { name: /API keys/ });
    await apiKeys.waitFor();
    expect(trimmed(await cells(apiKeys))[0]).toBe(String(workspace.total.calls));
    expect(workspace.total.calls).toBe(laptop.total.calls + PRESENTED);
    await page.expectAccessible('workspace usage per client');
    await page.expectNoLeaks();
  });
});
