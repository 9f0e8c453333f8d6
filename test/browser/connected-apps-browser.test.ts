import { describe, expect, it } from 'vitest';
import { APP, useConsentApp } from '#test/support/consent-suite';
import { DEMO, type KeyPage } from '#test/support/key-page';

/**
 * Apps connected through OAuth (contract §15) and through the organisation's identity provider
 * (§17) on the key page of `npm start`, in Chromium: an approved app listed beside the keys and
 * revoked there, cut off from a workspace in the workspace view, and an enterprise grant named by
 * the IdP's host. The consent page itself: consent-browser.test.ts.
 */
const { app, person, freshPage, redeem, callMcp, listed, approveFor } = useConsentApp(
  'connected apps browser tests',
);

describe('an approved app on the key page', () => {
  it('is listed as a connected app beside the keys, without Rotate; revoking it cuts the app off', async () => {
    const user = person();
    const approved = await approveFor(user, ['Acme Marketing', 'Acme Support'], 'svc.forms.read');
    const tokens = await redeem(approved.kp, approved.code, approved.request.verifier);
    expect(await callMcp(tokens.access_token)).toBe(200);

    const kp = await freshPage();
    await kp.signIn(user);
    const apps = kp.keys().getByRole('table', { name: 'Apps connected to your MCP access' });
    const row = apps.getByRole('row', { name: new RegExp(APP.replace(/[()]/g, '\\$&')) });
    await row.waitFor();
    await kp.keys().getByText('No keys yet').waitFor(); // keys and apps are listed apart
    expect((await row.getByRole('rowheader').innerText()).replace(/\s+/g, ' ')).toBe(`${APP} unverified`);
    const [returnsTo, scopes, workspaces, status, expires, lastUsed] = (
      await row.getByRole('cell').allInnerTexts()
    ).map((c) => c.replace(/\s+/g, ' ').trim());
    expect(returnsTo).toBe(new URL(app.callback).host);
    expect(scopes).toBe('svc.forms.read Tools: every tool its scopes allow');
    expect(workspaces).toBe('Acme Marketing Acme Support');
    expect(status).toBe('Active');
    expect(Date.parse(expires ?? '')).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(lastUsed).not.toBe('Never'); // the MCP call above
    expect(await row.getByRole('button', { name: /^Rotate/ }).count()).toBe(0);
    await kp.screenshot('connected-apps');
    await kp.expectAccessible('connected apps');

    await row.getByRole('button', { name: `Revoke ${APP}` }).click();
    const confirm = kp.page.getByRole('alertdialog', { name: `Revoke access of “${APP}”?` });
    await confirm.getByText('its next MCP call is refused').waitFor();
    await kp.expectAccessible('revoke an app');
    await confirm.getByRole('button', { name: 'Revoke access' }).click();
    const notice = kp.keys().getByRole('status');
    await notice.getByText(`Access of “${APP}” revoked.`).waitFor();
    // On screen, not only for screen readers: the Connected apps section is gone, and the page says why.
    expect((await notice.boundingBox())?.height).toBeGreaterThan(16);
    await apps.waitFor({ state: 'detached' }); // active apps only, and none is left

    const grant = (await listed(user)).find((c) => c.kind === 'oauth_grant');
    expect(grant).toMatchObject({ name: APP, status: 'revoked' });
    expect(await callMcp(tokens.access_token)).toBe(401);
  });

  it('is in the workspace view of its workspace, where an owner cuts it off like a key', async () => {
    const user = person();
    await approveFor(user, ['Acme Marketing', 'Acme Research'], 'svc.forms.read');
    const kp = await freshPage();
    await kp.signIn(user);
    const region = kp.page.getByRole('region', { name: 'MCP keys that reach Acme Research' });
    // Every dev user owns Acme Research: this person's app is the row that names them.
    const row = region.getByRole('row').filter({ hasText: user });
    await row.waitFor();
    expect((await row.getByRole('rowheader').innerText()).replace(/\s+/g, ' ')).toBe(
      `${APP} (connected app, unverified)`,
    );
    await row.getByRole('button', { name: `Cut off ${APP}` }).click();
    const dialog = kp.page.getByRole('dialog', { name: /off from Acme Research/ });
    await dialog.getByRole('button', { name: 'Cut off' }).click();
    await expect.poll(() => row.getByRole('button').count()).toBe(0); // nothing more to do on it
    expect(await row.getByRole('cell').nth(2).innerText()).toBe('Cut off');
    const grant = (await listed(user)).find((c) => c.kind === 'oauth_grant');
    expect(grant).toMatchObject({ status: 'active', removed_workspace_ids: [DEMO.research.id] });
  });
});

describe('an app the person’s identity provider let in (enterprise grant, contract §17)', () => {
  /** The app's side: the person's ID token from the development IdP, an ID-JAG for this app, and the exchange. */
  async function enterpriseSignIn(kp: KeyPage, user: string) {
    const post = async (path: string, body: string, type: string) => {
      const reply = await fetch(`${app.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(reply.status).toBe(200);
      return (await reply.json()) as Record<string, string>;
    };
    const { id_token } = await post('/_dev/idp/id-token', JSON.stringify({ sub: user }), 'application/json');
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const FORM = 'application/x-www-form-urlencoded';
    const { access_token: jag } = await post(
      '/_dev/idp/token',
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        subject_token: id_token as string,
        audience: app.base,
        resource: `${app.base}/mcp`,
        client_id: app.clientId,
        scope: 'svc.forms.read',
      }),
      FORM,
    );
    const tokens = await post(
      '/oauth/token',
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: jag as string,
        client_id: app.clientId,
      }),
      FORM,
    );
    for (const secret of [id_token, jag, tokens.access_token]) kp.secrets.add(secret as string);
    expect(tokens).not.toHaveProperty('refresh_token');
    return tokens.access_token as string;
  }

  it('is listed as a connected app “through your organisation’s sign-in”, with the IdP’s host, and in the workspace view', async () => {
    const user = person();
    const kp = await freshPage();
    await kp.signIn(user); // the dev sign-in makes the person a member of the demo workspaces
    const accessToken = await enterpriseSignIn(kp, user);
    expect(await callMcp(accessToken)).toBe(200);
    await kp.page.reload();
    await kp.signIn(user);
    const idp = new URL(app.base).host;
    const apps = kp.keys().getByRole('table', { name: 'Apps connected to your MCP access' });
    const row = apps.getByRole('row', { name: new RegExp(APP.replace(/[()]/g, '\\$&')) });
    await row.waitFor();
    expect((await row.getByRole('rowheader').innerText()).replace(/\s+/g, ' ')).toBe(
      `${APP} through your organisation’s sign-in (${idp})`,
    );
    const [from, scopes] = (await row.getByRole('cell').allInnerTexts()).map((c) =>
      c.replace(/\s+/g, ' ').trim(),
    );
    expect(from).toBe('None: no sign-in page'); // it returns nowhere: the IdP decided
    expect(scopes).toBe('svc.forms.read Tools: every tool its scopes allow');
    expect(await row.getByRole('button', { name: /^Rotate/ }).count()).toBe(0);
    await kp.screenshot('enterprise-grant');
    await kp.expectAccessible('an enterprise grant');

    const region = kp.page.getByRole('region', { name: 'MCP keys that reach Acme Research' });
    const adminRow = region.getByRole('row').filter({ hasText: user });
    await adminRow.waitFor();
    expect((await adminRow.getByRole('rowheader').innerText()).replace(/\s+/g, ' ')).toBe(
      `${APP} (connected app, through your organisation’s sign-in (${idp}))`,
    );
    const grant = (await listed(user)).find((c) => c.kind === 'enterprise_grant');
    expect(grant).toMatchObject({ name: APP, status: 'active' });
  });
});
