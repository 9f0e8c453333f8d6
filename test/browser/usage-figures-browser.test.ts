import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeSummary, DEMO, demoUser, KeyPage, launchChromium } from '#test/support/key-page';
import {
  CALL_LIST_WORKSPACES,
  presentKey,
  type RunningService,
  startService,
} from '#test/support/local-service';
import type { KeysClient } from '../../web/client/index.ts';
import { createUsageClient, type UsageClient } from '../../web/client/usage.ts';
import { daysFrom } from '../../web/component/shared/charts.ts';

/**
 * The usage figures agree with each other and with a key's last use (contract §18), in Chromium
 * with axe: a key presented only after its revocation has refused calls, not uses; a script whose
 * client names no tool shows those calls as naming none, beside the tool it named; and a key used a
 * moment ago, whose counts wait a minute while its `last_used_at` is written at once, is "not
 * counted yet" rather than "0 calls". The first two keys' counts are written as a first service
 * stops (it writes what waits); the page reads them from a second one on the same data, whose
 * counts wait the minute a deployment's do.
 */
const USER = 'ulla';
const SCRIPT = 'Nightly script';
const REVOKED = 'Revoked before use';
const FRESH = 'Just used';
/** The script's calls that name no tool: a `tools/call` in the body only, as a client before 2026-07-28 sends it. */
const UNNAMED = 3;

const NO_TOOL_HINT =
  'No tool named: calls that were not a tool call (such as initialize or tools/list), or came from a ' +
  'client that does not name the tool (an MCP version before 2026-07-28 sends no Mcp-Name).';

let service: RunningService;
let base: string;
let browser: Browser;
let api: KeysClient;
let usage: UsageClient;
let kp: KeyPage | undefined;
const started = Date.now();
const secrets: string[] = [];
const ids: Record<string, string> = {};
let freshKey: string;

/** A `tools/call` of `list_workspaces` that names its tool in the 2026-07-28 headers. */
async function namedToolCall(apiKey: string): Promise<number> {
  const reply = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': 'tools/call',
      'mcp-name': 'list_workspaces',
    },
    body: JSON.stringify(CALL_LIST_WORKSPACES),
  });
  await reply.body?.cancel();
  return reply.status;
}

/** The person, and clients for `base`. */
async function signInApi(): Promise<void> {
  const user = await demoUser(base, USER);
  api = user.api;
  usage = createUsageClient({ baseUrl: base, token: () => user.token });
  secrets.push(user.token);
}

beforeAll(async () => {
  const DATA_DIR = mkdtempSync(join(tmpdir(), 'svc-usage-figures-'));
  let first: RunningService;
  [first, browser] = await Promise.all([startService({ DATA_DIR }), launchChromium()]);
  base = first.url;
  await signInApi();
  for (const name of [SCRIPT, REVOKED, FRESH]) {
    const created = await api.create({
      name,
      workspace_ids: [DEMO.research.id],
      scopes: ['svc.forms.read'],
      expires_in_days: 30,
    });
    ids[name] = created.metadata.id;
    secrets.push(created.api_key);
    if (name === SCRIPT) {
      expect(await namedToolCall(created.api_key)).not.toBe(401);
      for (let i = 0; i < UNNAMED; i++)
        expect(await presentKey(base, created.api_key, CALL_LIST_WORKSPACES)).not.toBe(401);
    } else if (name === REVOKED) {
      await api.revoke(created.metadata.id);
      expect(await presentKey(base, created.api_key)).toBe(401);
    } else freshKey = created.api_key;
  }
  expect(await first.stop()).toBe(0); // writes every count still waiting
  service = await startService({ DATA_DIR });
  base = service.url;
  await signInApi();
  const script = await usage.keyUsage(ids[SCRIPT] as string, { from: daysFrom() });
  expect(script.total).toEqual({
    calls: UNNAMED + 1,
    refused: {},
    tools: { list_workspaces: 1 },
    unnamed: UNNAMED,
  });
}, 150_000);

afterAll(async () => {
  await kp?.close();
  await browser?.close();
  await service?.stop();
  console.log(
    `usage figures browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s; axe: ${axeSummary.join('; ')}`,
  );
});

/** The person's page, signed in, with revoked keys shown. */
async function signedIn(): Promise<KeyPage> {
  await kp?.close();
  kp = await KeyPage.open(browser, base);
  for (const secret of secrets) kp.secrets.add(secret);
  await kp.signIn(USER);
  await kp.page.getByLabel('Show revoked and expired keys and apps').check();
  // The list loads again with the revoked key: its rows are redrawn (a button may change key), so
  // wait for that list, loaded, before anything is clicked.
  await kp
    .keys()
    .getByRole('row', { name: new RegExp(`^${REVOKED} `) })
    .waitFor();
  await kp.keys().locator('table[aria-busy="false"]').waitFor();
  return kp;
}

/** What a person reads of an element: its rendered text, one space between its lines and parts. */
const text = async (locator: Locator) => (await locator.innerText()).replace(/\s+/g, ' ').trim();
/** A key's row, its Last used cell and its Calls cell. */
function row(page: KeyPage, name: string) {
  const tr = page.keys().getByRole('row', { name: new RegExp(`^${name} `) });
  return { tr, lastUsed: tr.getByRole('cell').nth(5), calls: tr.getByRole('cell').nth(6) };
}
const adminUsage = (page: KeyPage) =>
  page.page
    .getByRole('region', { name: 'MCP keys that reach Acme Research' })
    .getByRole('region', { name: 'Usage in the last 30 days' });

describe('the usage figures agree with each other and with the last use', () => {
  it('a key presented only after its revocation shows a refused call beside "Never" used', async () => {
    const page = await signedIn();
    const { tr, lastUsed, calls } = row(page, REVOKED);
    await expect
      .poll(() => text(calls))
      .toBe('1 refused call in 7 days Presented 1 time after revocation Usage of Revoked before use');
    expect(await text(lastUsed)).toBe('Never');
    await tr.getByRole('img', { name: /^Calls per day: 1 call in 30 days, 1 refused, most on / }).waitFor();
    await tr.getByRole('button', { name: `Usage of ${REVOKED}` }).click();
    const dialog = page.page.getByRole('dialog', { name: `Usage of “${REVOKED}”` });
    await dialog.getByText('all refused').waitFor();
    expect(await text(dialog.locator('.totals'))).toBe('1 call, all refused.');
    await dialog.getByText('No call was accepted.').waitFor();
    await page.expectAccessible('a revoked key presented once');
    await page.expectNoLeaks();
  });

  it('the calls whose client named no tool are shown as such, in the key’s usage and the workspace’s', async () => {
    const page = await signedIn();
    const { tr, calls } = row(page, SCRIPT);
    await expect.poll(() => text(calls)).toMatch(/^4 calls in 7 days /);
    await tr.getByRole('button', { name: `Usage of ${SCRIPT}` }).click();
    const dialog = page.page.getByRole('dialog', { name: `Usage of “${SCRIPT}”` });
    const tools = dialog.getByRole('list', { name: 'Accepted calls by tool' });
    await tools.waitFor();
    expect(
      await tools
        .getByRole('listitem')
        .allTextContents()
        .then((l) => l.map((t) => t.replace(/\s+/g, ' ').trim())),
    ).toEqual([`No tool named ${UNNAMED}`, 'list_workspaces 1']);
    expect(await text(dialog.locator('p.hint', { hasText: 'No tool named:' }))).toBe(NO_TOOL_HINT);
    await page.expectAccessible('a key’s calls by tool, some naming none');
    await dialog.getByRole('button', { name: 'Close' }).click();

    const region = adminUsage(page);
    const perKey = region.getByRole('table', { name: /^Calls per key or app to Acme Research/ });
    const scriptRow = perKey.getByRole('row', { name: new RegExp(`^${SCRIPT}`) });
    await expect
      .poll(async () => text(scriptRow.getByRole('cell').nth(2)))
      .toBe(`No tool named ${UNNAMED} list_workspaces 1`);
    await region.getByRole('combobox', { name: 'Group by' }).selectOption('tool');
    const perTool = region.getByRole('table', { name: /^Calls per tool to Acme Research/ });
    await expect
      .poll(async () => Promise.all((await perTool.getByRole('row').all()).slice(1).map(text)))
      .toEqual([`No tool named ${UNNAMED} 0`, 'list_workspaces 1 0']);
    await region.scrollIntoViewIfNeeded();
    await page.expectAccessible('workspace usage per tool, with the calls naming none');
    await page.expectNoLeaks();
  });

  it('a key used a moment ago is "not counted yet", not "0 calls", until its counts are written', async () => {
    const usedAt = Date.now();
    expect(await presentKey(base, freshKey, CALL_LIST_WORKSPACES)).not.toBe(401);
    // `last_used_at` is written at once; the counts wait a minute (LOCAL_USAGE_WRITE_SECONDS unset).
    await expect
      .poll(async () => (await api.list({ limit: 10 })).data.find((k) => k.id === ids[FRESH])?.last_used_at)
      .toBeTruthy();
    expect((await usage.keyUsage(ids[FRESH] as string, { from: daysFrom() })).total.calls).toBe(0);

    const page = await signedIn();
    const { tr, lastUsed, calls } = row(page, FRESH);
    await expect
      .poll(() => text(calls))
      .toBe(`Calls not counted yet Counts can be minutes late Usage of ${FRESH}`);
    expect(await text(lastUsed)).not.toBe('Never');
    // Its sparkline, once drawn, says the same.
    await tr.getByRole('img', { name: 'Calls per day: No calls counted yet in 30 days' }).waitFor();
    await tr.getByRole('button', { name: `Usage of ${FRESH}` }).click();
    const dialog = page.page.getByRole('dialog', { name: `Usage of “${FRESH}”` });
    const late = dialog.locator('p.hint', { hasText: 'is not counted yet' });
    expect(await text(late)).toMatch(/^Its last use, .+, is not counted yet: counts can be minutes late\.$/);
    await page.expectAccessible('a key used a moment ago');
    await dialog.getByRole('button', { name: 'Close' }).click();
    const counted = adminUsage(page).locator('p.hint', { hasText: 'Not counted yet' });
    expect(await text(counted)).toMatch(
      new RegExp(`^Not counted yet: the last use of ${FRESH} \\(.+\\); counts can be minutes late\\.$`),
    );
    await page.expectNoLeaks();
    // Had the counts been written meanwhile, the page would have had nothing to say.
    expect(Date.now() - usedAt).toBeLessThan(60_000);
  });
});
