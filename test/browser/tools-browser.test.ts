import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeSummary, DEMO, demoUser, focused, KeyPage, launchChromium } from '#test/support/key-page';
import {
  CALL_LIST_WORKSPACES,
  presentKey,
  type RunningService,
  startService,
} from '#test/support/local-service';
import { soakOnly } from '#test/support/soak';
import { createWorkspaceClient } from '../../web/client/index.ts';
import { createUsageClient } from '../../web/client/usage.ts';
import { daysFrom } from '../../web/component/shared/charts.ts';

/**
 * A credential's tools in the dashboard (contract §19), in Chromium with axe: a key created with
 * two tools lists them; a key that called one tool, every call naming it, is restricted to it from
 * its usage panel (and a key whose calls named no tool is not, with why); an owner sets the tools
 * AI clients may call in the workspace, and sees the keys holding write tools they did not use in
 * 30 days. Calls name their tool in the 2026-07-28 headers, and their counts are written at the
 * next verification (LOCAL_USAGE_WRITE_SECONDS=0).
 */
const READ_TOOLS = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];
const WRITE_TOOLS = ['create_form', 'replace_draft'];
const DAY_SECONDS = 86_400;

let service: RunningService;
let browser: Browser;
let dataDir: string;
let people = 0;
const pages: KeyPage[] = [];
const started = Date.now();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-tools-'));
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: dataDir, LOCAL_USAGE_WRITE_SECONDS: '0' }),
    launchChromium(),
  ]);
}, 120_000);

afterEach(async () => {
  for (const kp of pages.splice(0)) {
    await kp.expectNoLeaks();
    await kp.close();
  }
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  console.log(
    `tools browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s; axe: ${axeSummary.join('; ')}`,
  );
});

/** A person of the test's own with the typed clients, and a page (not yet signed in) whose secrets are theirs. */
async function person(name: string) {
  const user = `${name}${++people}`;
  const { token, api } = await demoUser(service.url, user);
  const kp = await KeyPage.open(browser, service.url);
  pages.push(kp);
  kp.secrets.add(token);
  const usage = createUsageClient({ baseUrl: service.url, token: () => token });
  const workspaces = createWorkspaceClient({ baseUrl: service.url, token: () => token });
  /** A key to `workspace` with `scopes`, its value a secret of the page. */
  const key = async (
    keyName: string,
    scopes: ('svc.forms.read' | 'svc.forms.write')[],
    workspace: string,
  ) => {
    const created = await api.create({
      name: keyName,
      workspace_ids: [workspace],
      scopes,
      expires_in_days: 45,
    });
    kp.secrets.add(created.api_key);
    return { id: created.metadata.id, apiKey: created.api_key };
  };
  return { user, api, usage, workspaces, kp, page: kp.page, key };
}

/** A `tools/call` that names its tool in the Mcp-Method and Mcp-Name headers (SEP-2243): its status. */
async function namedCall(apiKey: string, tool: string, workspace: string): Promise<number> {
  const reply = await fetch(`${service.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: tool === 'list_workspaces' ? {} : { workspace_id: workspace } },
    }),
  });
  await reply.body?.cancel();
  return reply.status;
}

/** What a person reads of an element: its text, one space between its lines and parts. */
const text = async (locator: Locator) => (await locator.innerText()).replace(/\s+/g, ' ').trim();
/** The names of the checkboxes of a group, as a person hears them. */
const boxes = async (group: Locator) =>
  Promise.all(
    (await group.getByRole('checkbox').all()).map(async (box) => (await box.getAttribute('value')) ?? ''),
  );
/** The key row's "Scopes and tools" cell. */
const scopesCell = (kp: KeyPage, name: string) => kp.row(name).getByRole('cell').nth(1);

describe('a credential’s tools on the key page', () => {
  it('creates a key limited to two of the tools its scopes allow, and lists them', async () => {
    const { kp, user, api } = await person('tova');
    await kp.signIn(user);
    const dialog = await kp.fillCreate('Form reader', ['Acme Marketing'], ['Read']);
    const tools = dialog.getByRole('group', { name: 'Tools' });
    await expect.poll(() => boxes(tools)).toEqual(READ_TOOLS);
    // Write allows two more, ticked; the destructive one says so. Unticking Write takes them away.
    await dialog.getByRole('checkbox', { name: /^Write / }).check();
    await expect.poll(() => boxes(tools)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
    await tools.getByRole('checkbox', { name: 'replace_draft Replace a draft (destroys data)' }).waitFor();
    for (const box of await tools.getByRole('checkbox').all()) expect(await box.isChecked()).toBe(true);
    await dialog.getByRole('checkbox', { name: /^Write / }).uncheck();
    await expect.poll(() => boxes(tools)).toEqual(READ_TOOLS);
    for (const tool of ['list_workspaces', 'compile_dsl', 'validate_definition'])
      await tools.getByRole('checkbox', { name: new RegExp(`^${tool} `) }).uncheck();
    await kp.screenshot('create-key-tools');
    await kp.expectAccessible('create dialog, two tools ticked');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await kp.takeShownKey(/Copy your new key/);
    await kp.done();

    await expect
      .poll(() => text(scopesCell(kp, 'Form reader')))
      .toBe('svc.forms.read Tools: list_forms, read_draft');
    const [created] = (await api.list()).data;
    expect(created?.tools).toEqual(['list_forms', 'read_draft']);
    await kp.expectAccessible('a key limited to two tools');
  });

  it('restricts a key to the tools it used from its usage panel; the next call of another tool is refused', async () => {
    const { kp, page, user, usage, key } = await person('ugo');
    const { id, apiKey } = await key('Form script', ['svc.forms.read'], DEMO.marketing.id);
    // Two calls: the second writes the first's counts, the timer its own a second later.
    for (let i = 0; i < 2; i++)
      expect(await namedCall(apiKey, 'list_workspaces', DEMO.marketing.id)).toBe(200);
    await expect
      .poll(async () => (await usage.keyUsage(id, { from: daysFrom() })).tools_used_30d, { timeout: 15_000 })
      .toEqual(['list_workspaces']);

    await kp.signIn(user);
    await expect
      .poll(() => text(scopesCell(kp, 'Form script')))
      .toBe('svc.forms.read Tools: every tool its scopes allow');
    await kp.row('Form script').getByRole('button', { name: 'Usage of Form script' }).click();
    const panel = page.getByRole('dialog', { name: 'Usage of “Form script”' });
    const tools = panel.getByRole('region', { name: 'Tools it may call' });
    await tools.getByText('Used 1 of its 5 tools in 30 days').waitFor();
    expect(await text(tools.getByRole('paragraph').first())).toBe(
      'Used 1 of its 5 tools in 30 days: list_workspaces.',
    );
    const restrict = tools.getByRole('button', { name: 'Restrict to these tools' });
    expect(await restrict.getAttribute('aria-describedby')).toBe('restrict-hint');
    await kp.screenshot('key-usage-tools');
    await kp.expectAccessible('usage panel offering a restriction');
    await restrict.click();
    await tools.getByRole('status').getByText('Restricted: it may now call only list_workspaces.').waitFor();
    await expect.poll(() => focused(page)).toBe('restricted');
    await tools.getByText('Used 1 of its 1 tool in 30 days').waitFor();
    expect(await restrict.count()).toBe(0);
    await kp.expectAccessible('usage panel after the restriction');
    await panel.getByRole('button', { name: 'Close' }).click();
    await expect
      .poll(() => text(scopesCell(kp, 'Form script')))
      .toBe('svc.forms.read Tools: list_workspaces');

    expect(await namedCall(apiKey, 'list_workspaces', DEMO.marketing.id)).toBe(200);
    expect(await namedCall(apiKey, 'list_forms', DEMO.marketing.id)).toBe(403);
  });

  soakOnly('does not offer the restriction while some calls named no tool, and says why', async () => {
    const { kp, page, user, usage, key } = await person('vito');
    const { id, apiKey } = await key('Old client', ['svc.forms.read'], DEMO.marketing.id);
    // A tools/call in the body only, as a client before 2026-07-28 sends it; then one naming its tool.
    expect(await presentKey(service.url, apiKey, CALL_LIST_WORKSPACES)).toBe(200);
    expect(await namedCall(apiKey, 'list_workspaces', DEMO.marketing.id)).toBe(200);
    await expect
      .poll(
        async () => {
          const read = await usage.keyUsage(id, { from: daysFrom() });
          return [read.calls_tool_unknown_30d, read.tools_used_30d];
        },
        { timeout: 15_000 },
      )
      .toEqual([1, ['list_workspaces']]);

    await kp.signIn(user);
    await kp.row('Old client').getByRole('button', { name: 'Usage of Old client' }).click();
    const tools = page
      .getByRole('dialog', { name: 'Usage of “Old client”' })
      .getByRole('region', { name: 'Tools it may call' });
    await tools.getByText('Used 1 of its 5 tools in 30 days').waitFor();
    expect(await text(tools.getByRole('paragraph').last())).toBe(
      'Restricting it is not offered: 1 call in 30 days did not name its tool (a client before MCP 2026-07-28 ' +
        'sends no Mcp-Name header), so it may be using a tool not listed here.',
    );
    expect(await tools.getByRole('button', { name: 'Restrict to these tools' }).count()).toBe(0);
    await kp.expectAccessible('usage panel, restriction not offered');
  });
});

describe('the tools in a workspace, for its administrators', () => {
  const governance = (kp: KeyPage) =>
    kp.page.getByRole('region', { name: 'MCP keys that reach Acme Research' });

  it('an owner allows only some tools in the workspace: saved, in its history, and on the keys reaching it', async () => {
    const { kp, user, api, workspaces, key } = await person('wren');
    await key('Research reader', ['svc.forms.read'], DEMO.research.id);
    await kp.signIn(user);
    const region = governance(kp);
    const tools = region.getByRole('group', { name: 'Tools AI clients may call here' });
    const box = (tool: string) => tools.getByRole('checkbox', { name: new RegExp(`^${tool} `) });
    await expect.poll(() => tools.getByRole('radio', { name: 'All tools' }).isChecked()).toBe(true);
    expect(await box('replace_draft').isDisabled()).toBe(true);
    await tools.getByRole('radio', { name: 'Only the tools ticked below' }).check();
    expect(await box('replace_draft').isDisabled()).toBe(false);
    for (const tool of [...READ_TOOLS.slice(2), ...WRITE_TOOLS, 'generate_form_preview'])
      await box(tool).uncheck();
    await kp.screenshot('workspace-policy-tools');
    await kp.expectAccessible('policy form, two tools allowed');
    await region.getByRole('button', { name: 'Save policy' }).click();
    await region
      .getByRole('status')
      .getByText(/^Policy saved\./)
      .waitFor();
    expect((await workspaces.getPolicy(DEMO.research.id)).allowed_tools).toEqual([
      'list_workspaces',
      'list_forms',
    ]);
    await expect
      .poll(() => region.getByRole('list', { name: 'Governance history' }).textContent())
      .toContain('; tools list_workspaces, list_forms.');

    // Written onto each credential reaching the workspace: the person's own key page says so.
    await expect
      .poll(async () => (await api.list()).data[0]?.workspace_rules[DEMO.research.id]?.tools, {
        timeout: 30_000,
      })
      .toEqual(['list_workspaces', 'list_forms']);
    await kp.keys().getByLabel('Show revoked and expired keys and apps').check();
    await expect
      .poll(() => text(scopesCell(kp, 'Research reader')))
      .toBe(
        'svc.forms.read Tools: every tool its scopes allow ' +
          'In Acme Research, the workspace’s policy allows only list_workspaces, list_forms',
      );

    // Every tool again, for the tests that follow.
    await tools.getByRole('radio', { name: 'All tools' }).check();
    expect(await box('replace_draft').isDisabled()).toBe(true);
    await region.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(async () => (await workspaces.getPolicy(DEMO.research.id)).allowed_tools).toBeNull();
  });

  soakOnly(
    'names the keys holding write tools here that they did not use in 30 days',
    async () => {
      const colleague = await person('xavi');
      await colleague.key('Old writer', ['svc.forms.write'], DEMO.research.id);
      // A month on: the same data, with the functions' clock and the page's 31 days ahead.
      expect(await service.stop()).toBe(0);
      service = await startService({
        DATA_DIR: dataDir,
        LOCAL_USAGE_WRITE_SECONDS: '0',
        LOCAL_CLOCK_OFFSET_SECONDS: String(31 * DAY_SECONDS),
      });
      const { kp, user } = await person('yara');
      await kp.context.clock.setFixedTime(Date.now() + 31 * DAY_SECONDS * 1000);
      await kp.page.reload();
      await kp.signIn(user);
      const unused = governance(kp).getByRole('region', { name: 'Write tools not used in 30 days' });
      const item = unused.getByRole('listitem').filter({ hasText: 'Old writer' });
      await expect
        .poll(() => text(item))
        .toMatch(
          new RegExp(
            `^Old writer svc_mcp_v1_…\\w{4} \\(key of ${colleague.user}\\) holds create_form, replace_draft ` +
              'and did not use them in 30 days\\.$',
          ),
        );
      await unused.scrollIntoViewIfNeeded();
      await kp.expectAccessible('write tools not used in 30 days');
    },
    60_000,
  );
});
