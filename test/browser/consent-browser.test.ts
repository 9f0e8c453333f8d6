import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axeSummary, DEMO, devToken, focused, KeyPage, launchChromium } from '#test/support/key-page';
import {
  CALL_LIST_WORKSPACES,
  presentKey,
  type RunningService,
  startService,
} from '#test/support/local-service';
import { recordAnswer } from '#test/support/route-codes';

/**
 * The consent page of the OAuth flow (contract §15) at `/consent` of `npm start`, in Chromium: an
 * app registered by DCR opens a real `GET /oauth/authorize`, the person answers on the page, and
 * the browser lands back at the app (a loopback server of this file) with the code; the code
 * works at the token endpoint, and the grant is then a connected app on the key page, revoked
 * there. Used by role and label, scanned by axe-core; no token of a test reaches the page.
 */
const APP = 'Forms Helper (test)';
const SCOPES = 'svc.forms.read svc.forms.write';

let service: RunningService;
let base: string;
let browser: Browser;
let callbackServer: Server;
/** The app's redirect URI: a loopback page standing for the app. */
let callback: string;
let clientId: string;
let pages: KeyPage[] = [];
let people = 0;
const started = Date.now();

beforeAll(async () => {
  [service, browser] = await Promise.all([
    startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-consent-')) }),
    launchChromium(),
  ]);
  base = service.url;
  callbackServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' });
    res.end(
      '<!doctype html><html lang="en"><title>The app</title><main><h1>Back in the app</h1></main></html>',
    );
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: APP, redirect_uris: [callback], token_endpoint_auth_method: 'none' }),
  });
  expect(registered.status).toBe(201);
  clientId = ((await registered.json()) as { client_id: string }).client_id;
});

afterEach(async () => {
  for (const kp of pages) {
    await kp.expectNoLeaks();
    await kp.close();
  }
  pages = [];
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await new Promise<void>((resolve) => (callbackServer ? callbackServer.close(() => resolve()) : resolve()));
  console.log(
    `consent browser tests: ${((Date.now() - started) / 1000).toFixed(1)} s in all; axe: ${axeSummary.join('; ')}`,
  );
});

/** A person per use (the pictures show who is signed in): a request belongs to the first person who opens it. */
const PEOPLE = [
  'olga',
  'piet',
  'rosa',
  'sven',
  'tomas',
  'ulla',
  'vera',
  'wim',
  'xena',
  'yuki',
  'zara',
  'arlo',
  'bruno',
  'cora',
];
const person = () => {
  const name = PEOPLE[people % PEOPLE.length] ?? 'olga';
  people += 1;
  return people > PEOPLE.length ? `${name}${people}` : name;
};

/** The app's side of one authorization request: PKCE (S256), its state, the URL it opens. */
function authorization(scope = SCOPES) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    resource: `${base}/mcp`,
    scope,
  });
  return { verifier, state, url: `${base}/oauth/authorize?${params}` };
}

/** A fresh page whose problem answers count for the route-codes check, as the API helpers' do. */
async function freshPage(): Promise<KeyPage> {
  const kp = await KeyPage.open(browser, base);
  pages.push(kp);
  kp.page.on('response', async (response) => {
    const url = new URL(response.url());
    if (response.status() < 400 || !url.pathname.startsWith('/v1/')) return;
    const body: unknown = await response.json().catch(() => undefined);
    recordAnswer(response.request().method(), url.pathname, response.status(), body);
  });
  return kp;
}

/** Signs `user` in with the consent page's dev sign-in (a member of the demo workspaces). */
async function signIn(page: Page, user: string, options: { staleLogin?: boolean } = {}): Promise<void> {
  await page.getByLabel('User id').fill(user);
  await page.getByLabel(/Last sign-in 20 minutes ago/).setChecked(options.staleLogin === true);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: `Signed in as ${user}` }).waitFor();
}

/** The app opens its authorization request in the browser; `user` signs in on the consent page it lands on. */
async function openRequest(user: string, options: { staleLogin?: boolean; scope?: string } = {}) {
  const kp = await freshPage();
  const request = authorization(options.scope);
  await kp.page.goto(request.url); // GET /oauth/authorize, redirected to /consent?request=<id>
  expect(new URL(kp.page.url()).pathname).toBe('/consent');
  await signIn(kp.page, user, options);
  const consent = kp.page.getByRole('region', { name: `Connect “${APP}” to your workspaces?` });
  await consent.waitFor();
  return { kp, page: kp.page, consent, request, consentUrl: kp.page.url() };
}

/** Where the browser landed: the app's redirect URI and its query. */
async function landedAtApp(page: Page): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(`${callback}?`));
  await page.getByRole('heading', { name: 'Back in the app' }).waitFor();
  return new URL(page.url()).searchParams;
}

/** The app redeems the code at the token endpoint, as its OAuth library would. */
async function redeem(kp: KeyPage, code: string, verifier: string) {
  const reply = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${base}/mcp`,
    }),
  });
  expect(reply.status).toBe(200);
  const tokens = (await reply.json()) as { access_token: string; refresh_token: string; scope: string };
  kp.secrets.add(tokens.access_token);
  kp.secrets.add(tokens.refresh_token);
  return tokens;
}

/** `list_workspaces` through the MCP endpoint with a bearer: the status it answers. */
const callMcp = (bearer: string) => presentKey(base, bearer, CALL_LIST_WORKSPACES);

/** The person's credentials as the API lists them (every status). */
async function listed(user: string) {
  const token = await devToken(base, user);
  const reply = await fetch(`${base}/v1/mcp/api-keys?limit=50`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (
    (await reply.json()) as {
      data: { id: string; name: string; kind: string; status: string; removed_workspace_ids: string[] }[];
    }
  ).data;
}

/** Approves the request for `workspaces` as the page preselects its scopes; returns the code. */
async function approveFor(user: string, workspaces: string[], scope?: string) {
  const opened = await openRequest(user, scope ? { scope } : {});
  for (const name of workspaces) await opened.consent.getByRole('checkbox', { name }).check();
  await opened.consent.getByRole('button', { name: 'Approve' }).click();
  const query = await landedAtApp(opened.page);
  return { ...opened, code: query.get('code') ?? '' };
}

describe('the consent page at /consent of npm start', () => {
  it('shows the app’s request and, approved, sends the browser back to the app with code, state and iss', async () => {
    const { kp, page, consent, request, consentUrl } = await openRequest(person());
    const facts = await consent.getByRole('definition').allInnerTexts();
    expect(facts[0]).toMatch(new RegExp(`^${APP.replace(/[()]/g, '\\$&')} Unverified`));
    await consent.getByText('nothing confirms who made it').waitFor();
    expect(facts[1]).toBe(`a program on this computer (${new URL(callback).host})`); // returns you to
    expect(facts[2]).toBe(`${base}/mcp`); // the MCP server
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
    expect(query.get('iss')).toBe(base);
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

  it('denies: the browser lands on the redirect URI with error=access_denied and the state', async () => {
    const { page, consent, request } = await openRequest(person());
    await consent.getByRole('button', { name: 'Deny' }).click();
    const query = await landedAtApp(page);
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe(request.state);
    expect(query.get('iss')).toBe(base);
    expect(query.get('code')).toBeNull();
  });

  it('names an app’s own scheme as where it returns: the cursor app on this device', async () => {
    const redirect = 'cursor://anysphere.cursor-retrieval/oauth/callback';
    const registered = await fetch(`${base}/oauth/register`, {
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
      resource: `${base}/mcp`,
    });
    const kp = await freshPage();
    await kp.page.goto(`${base}/oauth/authorize?${params}`);
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
      .getByText(`Returning you to a program on this computer (${new URL(callback).host})`)
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
    await page.goto(`${base}/consent?request=${randomUUID()}`);
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

    await page.goto(`${base}/consent`);
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
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab'); // past the workspaces and scopes
    expect(await focused(page)).toBe('expires');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('7');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Deny');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Approve');
    await page.keyboard.press('Enter');
    expect((await landedAtApp(page)).get('code')).toMatch(/^svc_mcp_ac_v1_/);
  });
});

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
    expect(returnsTo).toBe(new URL(callback).host);
    expect(scopes).toBe('svc.forms.read');
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
      const reply = await fetch(`${base}${path}`, {
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
        audience: base,
        resource: `${base}/mcp`,
        client_id: clientId,
        scope: 'svc.forms.read',
      }),
      FORM,
    );
    const tokens = await post(
      '/oauth/token',
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: jag as string,
        client_id: clientId,
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
    const idp = new URL(base).host;
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
    expect(scopes).toBe('svc.forms.read');
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
