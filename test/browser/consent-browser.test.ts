import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APP, SCOPES, signIn, useConsentApp } from '#test/support/consent-suite';
import { focused } from '#test/support/key-page';

/**
 * The consent page of the OAuth flow (contract §15) at `/consent` of `npm start`, in Chromium: an
 * app registered by DCR opens a real `GET /oauth/authorize`, the person answers on the page, and
 * the browser lands back at the app (a loopback page of this file) with the code, which works at
 * the token endpoint. Used by role and label, scanned by axe-core; no token of a test reaches the
 * page. What the key page then shows of the grant: connected-apps-browser.test.ts.
 */
const { app, person, freshPage, openRequest, landedAtApp, redeem, callMcp, listed } =
  useConsentApp('consent browser tests');

describe('the consent page at /consent of npm start', () => {
  it('shows the app’s request and, approved, sends the browser back to the app with code, state and iss', async () => {
    const { kp, page, consent, request, consentUrl } = await openRequest(person());
    const facts = await consent.getByRole('definition').allInnerTexts();
    expect(facts[0]).toMatch(new RegExp(`^${APP.replace(/[()]/g, '\\$&')} Unverified`));
    await consent.getByText('nothing confirms who made it').waitFor();
    expect(facts[1]).toBe(`a program on this computer (${new URL(app.callback).host})`); // returns you to
    expect(facts[2]).toBe(`${app.base}/mcp`); // the MCP server
    // The requested scopes are ticked, the other is offered unticked.
    const scope = (label: string) => consent.getByRole('checkbox', { name: new RegExp(`^${label} svc`) });
    expect(await scope('Read').isChecked()).toBe(true);
    expect(await scope('Write').isChecked()).toBe(true);
    expect(await scope('Generate').isChecked()).toBe(false);
    await consent.getByText('Requested by the app.').first().waitFor();
    expect(await consent.getByLabel('Access expires after (days)').inputValue()).toBe('30');
    await kp.screenshot('consent');
    await kp.expectAccessible('consent form');

    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).check();
    await consent.getByRole('button', { name: 'Approve' }).click();
    const query = await landedAtApp(page);
    expect([...query.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(query.get('state')).toBe(request.state);
    expect(query.get('iss')).toBe(app.base);
    const tokens = await redeem(kp, query.get('code') ?? '', request.verifier);
    expect(tokens.scope).toBe(SCOPES);
    expect(await callMcp(tokens.access_token)).toBe(200);

    // The request was used: opening it again says so.
    await page.goto(consentUrl);
    await signIn(page, 'someone-else');
    await page.getByRole('heading', { name: 'This sign-in request can’t be used' }).waitFor();
  });

  it('explains before Approve what a role refuses, and shows the API’s refusal under the workspace it concerns', async () => {
    const { kp, page, consent } = await openRequest(person());
    const support = consent.getByRole('checkbox', { name: 'Acme Support' });
    await support.check();
    await consent
      .getByText('Your role here (viewer) doesn’t allow Write, so approving would be refused.')
      .waitFor();
    await consent.getByRole('button', { name: 'Approve' }).click();
    const alert = consent.getByRole('alert');
    await alert.getByText('You can’t give this access in some of the workspaces you chose.').waitFor();
    await expect.poll(() => focused(page)).toBe('consent-error');
    // The API's sentence sits under Acme Support, the workspace named, and describes its checkbox.
    await consent.getByText('role viewer in workspace Acme Support does not allow svc.forms.write').waitFor();
    expect(await support.getAttribute('aria-invalid')).toBe('true');
    expect(await support.evaluate((input) => input.getAttribute('aria-describedby'))).toMatch(/ws-error-1/);
    await kp.screenshot('consent-refused');
    await kp.expectAccessible('consent refused under a workspace');

    await support.uncheck();
    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).check();
    await consent.getByRole('button', { name: 'Approve' }).click();
    expect((await landedAtApp(page)).get('code')).toMatch(/^svc_mcp_ac_v1_/);
  });

  it('sends only the tools left ticked: the app may call those, and not the one unticked', async () => {
    const user = person();
    const { kp, page, consent } = await openRequest(user);
    const tools = consent.getByRole('group', { name: 'Tools' });
    // Read and Write are requested: their seven tools, all ticked; Generate's comes with its scope.
    await expect.poll(() => tools.getByRole('checkbox').count()).toBe(7);
    for (const box of await tools.getByRole('checkbox').all()) expect(await box.isChecked()).toBe(true);
    await consent.getByRole('checkbox', { name: /^Generate svc/ }).check();
    await tools.getByRole('checkbox', { name: /^generate_form_preview / }).waitFor();
    await consent.getByRole('checkbox', { name: /^Generate svc/ }).uncheck();
    await tools.getByRole('checkbox', { name: 'replace_draft Replace a draft (destroys data)' }).uncheck();
    await kp.expectAccessible('consent, a tool unticked');
    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).check();
    const approve = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/approve'));
    await consent.getByRole('button', { name: 'Approve' }).click();
    const sent = (await approve).postDataJSON() as { tools?: string[] };
    const allowed = [
      'list_workspaces',
      'list_forms',
      'read_draft',
      'compile_dsl',
      'validate_definition',
      'create_form',
    ];
    expect(sent.tools).toEqual(allowed);
    expect((await landedAtApp(page)).get('code')).toMatch(/^svc_mcp_ac_v1_/);
    const [grant] = (await listed(user)) as unknown as { tools: string[] | null }[];
    expect(grant?.tools).toEqual(allowed);
  });

  it('denies: the browser lands on the redirect URI with error=access_denied and the state', async () => {
    const { page, consent, request } = await openRequest(person());
    await consent.getByRole('button', { name: 'Deny' }).click();
    const query = await landedAtApp(page);
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe(request.state);
    expect(query.get('iss')).toBe(app.base);
    expect(query.get('code')).toBeNull();
  });

  it('names an app’s own scheme as where it returns: the cursor app on this device', async () => {
    const redirect = 'cursor://anysphere.cursor-retrieval/oauth/callback';
    const registered = await fetch(`${app.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Cursor', redirect_uris: [redirect], application_type: 'native' }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const params = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: redirect,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
      state: 's',
      resource: `${app.base}/mcp`,
    });
    const kp = await freshPage();
    await kp.page.goto(`${app.base}/oauth/authorize?${params}`);
    await signIn(kp.page, person());
    const consent = kp.page.getByRole('region', { name: 'Connect “Cursor” to your workspaces?' });
    await consent.waitFor();
    expect((await consent.getByRole('definition').allInnerTexts())[1]).toBe('the cursor app on this device');
  });

  it('lets the host page take over the navigation: svc-mcp-consent-decided is cancelable', async () => {
    const { kp, page, consent } = await openRequest(person());
    await page.evaluate(() => {
      const w = globalThis as unknown as {
        document: { addEventListener(t: string, l: (e: CustomEvent) => void): void };
        decided?: { decision: string; query: string[] };
      };
      w.document.addEventListener('svc-mcp-consent-decided', (event) => {
        event.preventDefault();
        const detail = event.detail as { decision: string; redirect_to: string };
        w.decided = {
          decision: detail.decision,
          query: [...new URL(detail.redirect_to).searchParams.keys()],
        };
      });
    });
    await consent.getByRole('checkbox', { name: 'Acme Research' }).check();
    await consent.getByRole('button', { name: 'Approve' }).click();
    const done = page.getByRole('region', { name: `“${APP}” is connected` });
    await done
      .getByRole('status')
      .getByText(`Returning you to a program on this computer (${new URL(app.callback).host})`)
      .waitFor();
    await expect.poll(() => focused(page)).toBe('consent-title');
    expect(await page.evaluate(() => (globalThis as unknown as { decided: unknown }).decided)).toEqual({
      decision: 'approved',
      query: ['code', 'state', 'iss'],
    });
    expect(new URL(page.url()).pathname).toBe('/consent');
    await kp.expectAccessible('consent decided');
  });

  it('says a request cannot be used when it is unknown, someone else’s, or missing', async () => {
    const kp = await freshPage();
    const { page } = kp;
    await page.goto(`${app.base}/consent?request=${randomUUID()}`);
    await signIn(page, person());
    const gone = page.getByRole('region', { name: 'This sign-in request can’t be used' });
    await gone
      .getByRole('alert')
      .getByText(
        'It has expired (a request lasts 10 minutes), was already answered, or was opened by someone else.',
      )
      .waitFor();
    await kp.screenshot('consent-unusable');
    await kp.expectAccessible('consent request not found');

    // The first person to open a request owns it.
    const { consentUrl } = await openRequest(person());
    await page.goto(consentUrl);
    await signIn(page, person());
    await gone.getByText('Go back to the app and connect again.').waitFor();

    await page.goto(`${app.base}/consent`);
    await signIn(page, person());
    await gone.getByText('This page was opened without a sign-in request.').waitFor();
  });

  it('asks for a recent sign-in before approving, as creating a key does, then carries on', async () => {
    const { kp, page, consent } = await openRequest(person(), { staleLogin: true });
    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).check();
    await consent.getByRole('button', { name: 'Approve' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Sign in again to continue' });
    await prompt.getByText('needs a sign-in from the last 15 minutes').waitFor();
    await expect.poll(() => focused(page)).toBe('button:Sign in again');
    await kp.expectAccessible('consent sign-in-again prompt');
    await prompt.getByRole('button', { name: 'Sign in again' }).click();
    expect((await landedAtApp(page)).get('code')).toMatch(/^svc_mcp_ac_v1_/);
  });

  it('works with the keyboard alone', async () => {
    const { page, consent } = await openRequest(person());
    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).focus();
    await page.keyboard.press('Space');
    // Past the workspaces, the scopes and the seven tools of the two requested.
    for (let i = 0; i < 6 + 7; i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('expires');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('7');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^summary:Limit how often it may call/); // collapsed: its fields are skipped
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Deny');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Approve');
    await page.keyboard.press('Enter');
    expect((await landedAtApp(page)).get('code')).toMatch(/^svc_mcp_ac_v1_/);
  });
});
