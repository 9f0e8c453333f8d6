import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { devToken, KeyPage } from './key-page.ts';

/**
 * The person's part of an OAuth sign-in, in Chromium, shared by the real-client tests: approving
 * an app on the consent page it was sent to, and revoking it on the key page.
 */

/**
 * Opens the authorization URL the app opened, signs `user` in on the consent page it lands on,
 * picks Acme Marketing, approves, and waits to be back at the app (`backAt`). `app`: the name the
 * page must show, when the test knows it.
 */
export async function consentInBrowser(
  browser: Browser,
  base: string,
  authorizationUrl: string,
  user: string,
  app: string | undefined,
  backAt: string,
): Promise<void> {
  const kp = await KeyPage.open(browser, base);
  try {
    await kp.page.goto(authorizationUrl);
    expect(new URL(kp.page.url()).pathname).toBe('/consent');
    await kp.page.getByLabel('User id').fill(user);
    await kp.page.getByRole('button', { name: 'Sign in' }).click();
    const consent = kp.page.getByRole('region', {
      name:
        app === undefined ? /^Connect “.+” to your workspaces\?$/ : `Connect “${app}” to your workspaces?`,
    });
    await consent.waitFor();
    await consent.getByRole('checkbox', { name: 'Acme Marketing' }).check();
    await consent.getByRole('button', { name: 'Approve' }).click();
    await kp.page.waitForURL((url) => url.href.startsWith(backAt));
    await kp.expectNoLeaks();
  } finally {
    await kp.close();
  }
}

/** The person revokes the connected app `app` on the key page; the API then lists it revoked. */
export async function revokeOnKeyPage(
  browser: Browser,
  base: string,
  user: string,
  app: string,
): Promise<void> {
  const kp = await KeyPage.open(browser, base);
  try {
    await kp.signIn(user);
    const row = kp.row(new RegExp(app.replace(/[()]/g, '\\$&')));
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await kp.page.getByRole('button', { name: 'Revoke access' }).click();
    await row.getByRole('button', { name: /^Revoke/ }).waitFor({ state: 'detached' });
    const token = await devToken(base, user);
    const listed = (await (
      await fetch(`${base}/v1/mcp/api-keys?limit=50`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { data: { name: string; kind: string; status: string }[] };
    expect(listed.data.find((c) => c.name === app)).toMatchObject({ kind: 'oauth_grant', status: 'revoked' });
    await kp.expectNoLeaks();
  } finally {
    await kp.close();
  }
}

/** The connected apps `user` has (name and status), newest first, as the API lists them. */
export async function connectedApps(base: string, user: string) {
  const token = await devToken(base, user);
  const listed = (await (
    await fetch(`${base}/v1/mcp/api-keys?limit=50`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { data: { name: string; kind: string; status: string }[] };
  return listed.data.filter((c) => c.kind === 'oauth_grant');
}
