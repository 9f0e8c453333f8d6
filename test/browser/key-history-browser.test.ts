import { describe, expect, it } from 'vitest';
import { axeSummary, focused } from '#test/support/key-page';
import { useKeyPagePerTest, useKeyPageService } from '#test/support/key-page-suite';
import { soakOnly } from '#test/support/soak';

/**
 * The key page at / of `npm start` in a real browser (as browser.test.ts): a key's history, the
 * keyboard alone, a key that grants nothing, the API's errors in the form, the re-sign-in prompt,
 * and the accessibility scan's own control.
 */
const shared = useKeyPageService('key history browser tests');

describe('the key page at / of npm start: history, keyboard, errors', () => {
  // A person and a page of their own for each test: nothing one test does is seen by another.
  const on = useKeyPagePerTest(shared);
  const { arrangeKey, arrangeRevokedLineage, showAll } = on;

  it('shows a key’s history, newest first: created, rotated, created, revoked', async () => {
    const { kp, page, user } = on.current();
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
    const { kp, page, user } = on.current();
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
    const { kp, page, user } = on.current();
    await kp.signIn(user);
    await kp.createButton().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toBe('name');
    await page.keyboard.type('Cursor (desktop)');
    await page.keyboard.press('Tab'); // the first workspace
    await page.keyboard.press('Space');
    expect(await focused(page)).toMatch(/^input:/);
    // Past the workspaces, the scopes and the five tools Read allows.
    for (let i = 0; i < 6 + 5; i++) await page.keyboard.press('Tab');
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
    const { kp, page, user } = on.current();
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
    const { kp, page, user } = on.current();
    await kp.signIn(user);
    const dialog = await kp.fillCreate('Too much', ['Acme Support'], ['Write']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('role viewer in workspace Acme Support does not allow svc.forms.write').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('asks the person to sign in again when the API answers reauthentication_required, then carries on', async () => {
    const { kp, page, user } = on.current();
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
    const { kp, page, user } = on.current();
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
    const { kp, page, user } = on.current();
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
