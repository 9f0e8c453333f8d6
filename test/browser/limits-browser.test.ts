import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useConsentApp } from '#test/support/consent-suite';
import { DEMO, demoUser, focused, type KeyPage } from '#test/support/key-page';
import { reloadKeys, textOf } from '#test/support/key-page-dom';
import { soakOnly } from '#test/support/soak';
import { createWorkspaceClient } from '../../web/client/index.ts';

/**
 * How often a key or app may call (contract §19) in the dashboard, in Chromium with axe: a key
 * created with 1,000 calls a day counts its MCP calls on its row ("2 of 1,000 today"), its limits
 * are lowered in a dialog (and a higher one is refused at its field), a workspace's caps are set
 * in the policy form and named on the rows of the keys they cap, and an app approved on the
 * consent page gets the limit chosen there. Rate counts are written at most once a second per
 * instance, at the credential's next verification: the calls here are a second apart.
 */
const { app, person, freshPage, openRequest, landedAtApp, callMcp, listed } =
  useConsentApp('limits browser tests');

/** A person signed in on a fresh key page, with the typed client of their own login. */
async function signedIn() {
  const user = person();
  const kp = await freshPage();
  const { api, token } = await demoUser(app.base, user);
  kp.secrets.add(token);
  await kp.signIn(user);
  return { user, kp, page: kp.page, api, token };
}

/** A row's Limits cell: what limits it, with its calls counted, and "Lower limits". */
const limitsCell = (kp: KeyPage, name: string): Locator => kp.row(name).getByRole('cell').nth(7);

const second = () => new Promise((resolve) => setTimeout(resolve, 1100));

describe('a key’s limits on the key page', () => {
  it('creates a key with 1,000 calls a day; its row counts the calls made with it', async () => {
    const { kp, page } = await signedIn();
    const dialog = await kp.fillCreate('Nightly script', ['Acme Marketing'], ['Read']);
    const limits = dialog.getByRole('group', { name: 'Limits' });
    const perDay = limits.getByRole('spinbutton', { name: 'Calls per day' });
    expect(await perDay.getAttribute('inputmode')).toBe('numeric');
    expect(await perDay.getAttribute('min')).toBe('1');
    await limits.getByRole('spinbutton', { name: 'Calls per minute' }).waitFor();

    await perDay.fill('1000');
    await dialog.getByRole('button', { name: 'Create key' }).scrollIntoViewIfNeeded();
    await kp.screenshot('create-key-limits');
    // Above what the API allows: its refusal is shown at the field, which it describes.
    await perDay.fill('900000000');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const refused = dialog.locator('#limit-per_day-error');
    await refused.getByText(/^Calls per day: /).waitFor();
    expect(await perDay.getAttribute('aria-invalid')).toBe('true');
    expect(await perDay.getAttribute('aria-describedby')).toBe('limit-per_day-hint limit-per_day-error');
    await kp.expectAccessible('create dialog, a limit refused');

    await perDay.fill('1000');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/mcp/api-keys'));
    await dialog.getByRole('button', { name: 'Create key' }).click();
    expect(((await sent).postDataJSON() as { limits?: unknown }).limits).toEqual({ per_day: 1000 });
    const apiKey = await kp.takeShownKey(/Copy your new key/);
    await kp.done();
    await expect
      .poll(() => textOf(limitsCell(kp, 'Nightly script')))
      .toBe('0 of 1,000 today Lower limits of Nightly script');

    // Calls a second apart, each writing the ones before it: the row, reloaded, counts them.
    let made = 0;
    await expect
      .poll(
        async () => {
          expect(await callMcp(apiKey)).toBe(200);
          made += 1;
          await second();
          await reloadKeys(kp.page);
          return textOf(limitsCell(kp, 'Nightly script'));
        },
        { timeout: 40_000, interval: 0 },
      )
      .toMatch(/^[1-9] of 1,000 today /);
    const counted = Number((await textOf(limitsCell(kp, 'Nightly script'))).split(' ')[0]);
    expect(counted).toBeLessThanOrEqual(made);
    await kp.screenshot('key-list-limits');
    await kp.expectAccessible('a key with a day limit, its calls counted');
  });

  soakOnly('lowers its limits in a dialog; one above its limit now is refused at the field', async () => {
    const { kp, page, api } = await signedIn();
    const created = await api.create({
      name: 'Form bot',
      workspace_ids: [DEMO.marketing.id],
      scopes: ['svc.forms.read'],
      limits: { per_day: 1000 },
    });
    kp.secrets.add(created.api_key);
    await reloadKeys(kp.page);
    const lower = limitsCell(kp, 'Form bot').getByRole('button', { name: 'Lower limits of Form bot' });
    await lower.click();
    const dialog = page.getByRole('dialog', { name: 'Lower the limits of “Form bot”' });
    const perDay = dialog.getByRole('spinbutton', { name: 'Calls per day' });
    const perMinute = dialog.getByRole('spinbutton', { name: 'Calls per minute' });
    expect(await perDay.inputValue()).toBe('1000');
    expect(await perDay.getAttribute('max')).toBe('1000');
    expect(await perMinute.inputValue()).toBe('');
    await kp.screenshot('lower-limits');
    await kp.expectAccessible('lower limits dialog');

    // Lowered meanwhile elsewhere (another tab): 500 is now above it, and the API says so at the field.
    await api.update(created.metadata.id, { limits: { per_day: 400 } });
    await perDay.fill('500');
    await dialog.getByRole('button', { name: 'Lower limits' }).click();
    await dialog.locator('#lower-per_day-error').getByText('must be at most 400').waitFor();
    expect(await perDay.getAttribute('aria-invalid')).toBe('true');
    expect(await perDay.getAttribute('aria-describedby')).toContain('lower-per_day-error');
    await kp.expectAccessible('lower limits, refused at the field');

    await perDay.fill('300');
    await perMinute.fill('30');
    await dialog.getByRole('button', { name: 'Lower limits' }).click();
    await kp
      .keys()
      .getByRole('status')
      .getByText('“Form bot” may now make at most 30 calls a minute and 300 a day.')
      .waitFor();
    await expect.poll(() => focused(page)).toBe('button:Lower limits of Form bot');
    await expect
      .poll(() => textOf(limitsCell(kp, 'Form bot')))
      .toBe('0 of 30 this minute 0 of 300 today Lower limits of Form bot');
    const [key] = (await api.list()).data;
    expect(key?.limits).toEqual({ per_minute: 30, per_day: 300 });

    await kp.row('Form bot').getByRole('button', { name: 'History of Form bot' }).click();
    const history = page.getByRole('dialog', { name: /History of “Form bot”/ });
    await history.getByText('Limits lowered: at most 30 calls a minute and 300 a day').waitFor();
    await kp.expectAccessible('history of lowered limits');
  });
});

describe('a workspace’s caps, for its administrators', () => {
  it('an owner caps each credential’s calls; the key’s row then names the policy', async () => {
    const { kp, page, api, token } = await signedIn();
    const created = await api.create({
      name: 'Research bot',
      workspace_ids: [DEMO.research.id],
      scopes: ['svc.forms.read'],
      limits: { per_day: 1000 },
    });
    kp.secrets.add(created.api_key);
    const region = page.getByRole('region', { name: 'MCP keys that reach Acme Research' });
    const perMinute = region.getByRole('spinbutton', { name: 'Calls per minute for each credential' });
    const perDay = region.getByRole('spinbutton', { name: 'Calls per day for each credential' });
    expect(await perDay.inputValue()).toBe('');
    expect(await perDay.getAttribute('inputmode')).toBe('numeric');

    await perMinute.fill('20');
    await perDay.fill('500');
    await kp.screenshot('workspace-policy-limits');
    // Not a whole number from 1: the API's refusal at the field.
    await perDay.fill('0');
    await region.getByRole('button', { name: 'Save policy' }).click();
    await region
      .locator('#cap-per_day-error')
      .getByText(/^Calls per day for each credential: /)
      .waitFor();
    expect(await perDay.getAttribute('aria-invalid')).toBe('true');
    await kp.expectAccessible('policy caps, one refused');

    await perDay.fill('500');
    await region.getByRole('button', { name: 'Save policy' }).click();
    await region
      .getByRole('status')
      .getByText(/^Policy saved\./)
      .waitFor();
    expect(await perDay.getAttribute('aria-invalid')).toBe('false');
    const workspaces = createWorkspaceClient({ baseUrl: app.base, token: () => token });
    const policy = await workspaces.getPolicy(DEMO.research.id);
    expect([policy.max_calls_per_minute, policy.max_calls_per_day]).toEqual([20, 500]);
    await expect
      .poll(() => region.getByRole('list', { name: 'Governance history' }).textContent())
      .toContain('; at most 20 calls a minute and 500 a day for each credential.');
    await kp.expectAccessible('policy caps saved');

    // Written onto the key by the policy's fan-out: its row names the policy beside its own limit.
    await expect
      .poll(
        async () => {
          await reloadKeys(kp.page);
          return textOf(limitsCell(kp, 'Research bot'));
        },
        { timeout: 30_000 },
      )
      .toBe(
        '0 of 20 this minute, the policy of Acme Research ' +
          '0 of 500 today, the policy of Acme Research (its own: 1,000 a day) Lower limits of Research bot',
      );
    await kp.expectAccessible('a key capped by a policy');

    // No caps again, for the tests that follow.
    await perMinute.fill('');
    await perDay.fill('');
    await region.getByRole('button', { name: 'Save policy' }).click();
    await expect
      .poll(async () => (await workspaces.getPolicy(DEMO.research.id)).max_calls_per_day)
      .toBeNull();
  });
});

describe('an app’s limits on the consent page', () => {
  it('approves an app with the limit chosen; one the API refuses is shown at its field', async () => {
    const user = person();
    const { kp, page, consent } = await openRequest(user);
    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).check();
    const section = consent.getByText('Limit how often it may call');
    const perDay = consent.getByRole('spinbutton', { name: 'Calls per day' });
    expect(await perDay.isVisible()).toBe(false); // collapsed
    await section.click();
    await perDay.fill('50');
    await kp.screenshot('consent-limits');
    await perDay.fill('900000000');
    await consent.getByRole('button', { name: 'Approve' }).click();
    await consent
      .getByRole('alert')
      .getByText(/Calls per day: /)
      .waitFor();
    await consent.locator('#limit-per_day-error').waitFor();
    expect(await perDay.getAttribute('aria-invalid')).toBe('true');
    await kp.expectAccessible('consent, a limit refused');

    await perDay.fill('50');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/approve'));
    await consent.getByRole('button', { name: 'Approve' }).click();
    expect(((await sent).postDataJSON() as { limits?: unknown }).limits).toEqual({ per_day: 50 });
    expect((await landedAtApp(page)).get('code')).toMatch(/^svc_mcp_ac_v1_/);
    const [grant] = (await listed(user)) as unknown as { limits: unknown }[];
    expect(grant?.limits).toEqual({ per_minute: null, per_day: 50 });
  });
});
