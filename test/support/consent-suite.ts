import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { devToken, KeyPage } from './key-page.ts';
import { type KeyPageService, useKeyPageService } from './key-page-suite.ts';
import { recordAnswer } from './route-codes.ts';

/**
 * What the consent page's browser test files share (consent-browser.test.ts and
 * connected-apps-browser.test.ts in test/browser): a local service of the file's own and Chromium
 * (`useKeyPageService`), an app registered by DCR whose redirect URI is a loopback page of the
 * file standing for the app, and the app's and the person's steps of the flow. Every page a test
 * opens is checked for leaks when the test ends.
 */
export const APP = 'Forms Helper (test)';
export const SCOPES = 'svc.forms.read svc.forms.write';

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

/** The service and Chromium (the key page's, `useKeyPageService`), the app and its redirect URI. */
export interface ConsentApp extends KeyPageService {
  /** The app's redirect URI: a loopback page standing for the app. */
  callback: string;
  clientId: string;
}

/**
 * Starts the file's service and Chromium as the key page's files do, and the app (its loopback
 * page, its registration) before the file's tests; stops them after.
 */
export function useConsentApp(file: string) {
  const app = useKeyPageService(file) as ConsentApp;
  let callbackServer: Server | undefined;
  let pages: KeyPage[] = [];
  let people = 0;

  beforeAll(async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer' });
      res.end(
        '<!doctype html><html lang="en"><title>The app</title><main><h1>Back in the app</h1></main></html>',
      );
    });
    callbackServer = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    app.callback = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    const registered = await fetch(`${app.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: APP,
        redirect_uris: [app.callback],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    app.clientId = ((await registered.json()) as { client_id: string }).client_id;
  });

  afterEach(async () => {
    for (const kp of pages) {
      await kp.expectNoLeaks();
      await kp.close();
    }
    pages = [];
  });

  afterAll(async () => {
    await new Promise<void>((resolve) =>
      callbackServer ? callbackServer.close(() => resolve()) : resolve(),
    );
  });

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
      client_id: app.clientId,
      redirect_uri: app.callback,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state,
      resource: `${app.base}/mcp`,
      scope,
    });
    return { verifier, state, url: `${app.base}/oauth/authorize?${params}` };
  }

  /** A fresh page whose problem answers count for the route-codes check, as the API helpers' do. */
  async function freshPage(): Promise<KeyPage> {
    const kp = await KeyPage.open(app.browser, app.base);
    pages.push(kp);
    kp.page.on('response', async (response) => {
      const url = new URL(response.url());
      if (response.status() < 400 || !url.pathname.startsWith('/v1/')) return;
      const body: unknown = await response.json().catch(() => undefined);
      recordAnswer(response.request().method(), url.pathname, response.status(), body);
    });
    return kp;
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
    await page.waitForURL((url) => url.href.startsWith(`${app.callback}?`));
    await page.getByRole('heading', { name: 'Back in the app' }).waitFor();
    return new URL(page.url()).searchParams;
  }

  return {
    app,
    /** `list_workspaces` through the MCP endpoint with a bearer: the status it answers. */
    callMcp: app.callMcp,
    person,
    freshPage,
    openRequest,
    landedAtApp,

    /** The app redeems the code at the token endpoint, as its OAuth library would. */
    async redeem(kp: KeyPage, code: string, verifier: string) {
      const reply = await fetch(`${app.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: app.callback,
          client_id: app.clientId,
          code_verifier: verifier,
          resource: `${app.base}/mcp`,
        }),
      });
      expect(reply.status).toBe(200);
      const tokens = (await reply.json()) as { access_token: string; refresh_token: string; scope: string };
      kp.secrets.add(tokens.access_token);
      kp.secrets.add(tokens.refresh_token);
      return tokens;
    },

    /** The person's credentials as the API lists them (every status). */
    async listed(user: string) {
      const token = await devToken(app.base, user);
      const reply = await fetch(`${app.base}/v1/mcp/api-keys?limit=50`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (
        (await reply.json()) as {
          data: { id: string; name: string; kind: string; status: string; removed_workspace_ids: string[] }[];
        }
      ).data;
    },

    /** Approves the request for `workspaces` as the page preselects its scopes; returns the code. */
    async approveFor(user: string, workspaces: string[], scope?: string) {
      const opened = await openRequest(user, scope ? { scope } : {});
      for (const name of workspaces) await opened.consent.getByRole('checkbox', { name }).check();
      await opened.consent.getByRole('button', { name: 'Approve' }).click();
      const query = await landedAtApp(opened.page);
      return { ...opened, code: query.get('code') ?? '' };
    },
  };
}

/** Signs `user` in with the consent page's dev sign-in (a member of the demo workspaces). */
export async function signIn(
  page: Page,
  user: string,
  options: { staleLogin?: boolean } = {},
): Promise<void> {
  await page.getByLabel('User id').fill(user);
  await page.getByLabel(/Last sign-in 20 minutes ago/).setChecked(options.staleLogin === true);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: `Signed in as ${user}` }).waitFor();
}
