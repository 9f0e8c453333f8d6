import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '#lib/access/scopes';
import { type AuthorizeParams, authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import type { OAuthDeps } from '#lib/oauth/deps';
import { register } from '#lib/oauth/registration';
import { buildRuntime } from '#lib/runtime';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';

/**
 * `GET /oauth/authorize` as the use case answers it (contract §15 "The flow" 1), on DynamoDB
 * Local: what is shown as a page (nothing may be sent to an untrusted redirect URI), what is
 * redirected back to the app with `state` and `iss`, and the request stored for the consent page.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const ISSUER = 'https://keys.example.com';
const CONSENT = 'https://dashboard.example.com/consent';
const REDIRECT = 'http://127.0.0.1/callback';
const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let oauth: OAuthDeps;
let clientId: string;
let twoRedirects: string;

beforeAll(async () => {
  tables = await createTestTables();
  const runtime = buildRuntime(
    {
      ...tables.config(),
      oauth: {
        issuer: ISSUER,
        consentPageUrl: CONSENT,
        resources: [RESOURCE, 'https://mcp.example.com/other'],
      },
    },
    { doc: tables.doc, now: clock.now },
  );
  oauth = runtime.oauth as OAuthDeps;
  clientId = (await register(oauth, { client_name: 'One redirect', redirect_uris: [REDIRECT] })).client_id;
  twoRedirects = (
    await register(oauth, {
      client_name: 'Two redirects',
      redirect_uris: [REDIRECT, 'http://127.0.0.1/other'],
    })
  ).client_id;
});
afterAll(() => tables.drop());

const valid = (): AuthorizeParams => ({
  client_id: clientId,
  redirect_uri: REDIRECT,
  response_type: 'code',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  state: 'the-state',
  resource: RESOURCE,
  scope: 'svc.forms.read',
});

/** The request a consent-page redirect names, as stored (the raw item, its keys and TTL included). */
async function storedRequest(location: string) {
  const url = new URL(location);
  expect(`${url.origin}${url.pathname}`).toBe(CONSENT);
  const id = url.searchParams.get('request') as string;
  const item = await tables.doc.send(
    new GetCommand({ TableName: tables.keysTable, Key: { pk: `OAUTH_REQUEST#${id}`, sk: 'REQUEST' } }),
  );
  return { id, item: item.Item as Record<string, unknown>, request: await oauth.store.getRequest(id) };
}

/** The error an app is sent back with: every parameter of its redirect. */
async function redirectedError(params: AuthorizeParams) {
  const outcome = await authorize(oauth, params);
  if (outcome.kind !== 'redirect') throw new Error(`a page: ${outcome.message}`);
  const url = new URL(outcome.location);
  return { at: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}

describe('an authorization request shown as a page, nothing sent to the app', () => {
  it('without a client_id', async () => {
    expect(await authorize(oauth, { ...valid(), client_id: undefined })).toEqual({
      kind: 'page',
      status: 400,
      title: 'Invalid request',
      message: 'The app sent no client_id; it cannot sign in with this server.',
    });
    expect(await authorize(oauth, { ...valid(), client_id: '' })).toMatchObject({ title: 'Invalid request' });
  });

  it('for an app this server does not know, with the resolver’s sentence', async () => {
    expect(await authorize(oauth, { ...valid(), client_id: '3f1c1d2e-0000-4000-8000-000000000000' })).toEqual(
      {
        kind: 'page',
        status: 400,
        title: 'Unknown app',
        message: expect.stringMatching(/^This app is not registered with this server/),
      },
    );
  });

  it('without a redirect_uri when the app registered several; with one registered, that one is used', async () => {
    expect(await authorize(oauth, { ...valid(), client_id: twoRedirects, redirect_uri: undefined })).toEqual({
      kind: 'page',
      status: 400,
      title: 'Invalid request',
      message: 'The app sent no redirect_uri and has several registered.',
    });
    const outcome = await authorize(oauth, { ...valid(), redirect_uri: undefined });
    if (outcome.kind !== 'redirect') throw new Error(outcome.message);
    expect((await storedRequest(outcome.location)).request?.redirect_uri).toBe(REDIRECT);
  });

  it('for a redirect_uri the app did not register', async () => {
    expect(await authorize(oauth, { ...valid(), redirect_uri: 'http://127.0.0.1/elsewhere' })).toEqual({
      kind: 'page',
      status: 400,
      title: 'Invalid redirect',
      message: 'The redirect_uri is not one the app registered; nothing was sent back to it.',
    });
  });

  it('for a registered redirect_uri a rule now refuses (a scheme that runs something)', async () => {
    const stale: OAuthClient = {
      client_id: 'c1e3b0a2-1111-4111-8111-111111111111',
      client_name: 'Stale registration',
      redirect_uris: ['ms-msdt:/id'],
      verified_domain: null,
      registration: 'dynamic',
    };
    const deps: OAuthDeps = { ...oauth, clients: async () => ({ ok: true, client: stale }) };
    expect(
      await authorize(deps, { ...valid(), client_id: stale.client_id, redirect_uri: 'ms-msdt:/id' }),
    ).toEqual({
      kind: 'page',
      status: 400,
      title: 'Invalid redirect',
      message: 'The app’s redirect_uri cannot receive a sign-in; nothing was sent back to it.',
    });
  });
});

describe('an authorization request refused back to the app, with state and iss', () => {
  it('for a response_type other than code', async () => {
    for (const response_type of [undefined, 'token']) {
      expect(await redirectedError({ ...valid(), response_type })).toEqual({
        at: REDIRECT,
        params: {
          error: 'unsupported_response_type',
          error_description: 'Only response_type=code is supported.',
          state: 'the-state',
          iss: ISSUER,
        },
      });
    }
  });

  it('without a PKCE challenge of 43 base64url characters', async () => {
    const description = 'A PKCE code_challenge (S256, 43 characters) is required.';
    for (const code_challenge of [
      undefined,
      '',
      'a'.repeat(42),
      'a'.repeat(44),
      `!${'a'.repeat(43)}`,
      `${'a'.repeat(43)}!`,
      `${'a'.repeat(42)}=`,
    ]) {
      expect((await redirectedError({ ...valid(), code_challenge })).params).toMatchObject({
        error: 'invalid_request',
        error_description: description,
      });
    }
  });

  it('for a challenge method other than S256', async () => {
    for (const code_challenge_method of [undefined, 'plain']) {
      expect((await redirectedError({ ...valid(), code_challenge_method })).params).toMatchObject({
        error: 'invalid_request',
        error_description: 'code_challenge_method must be S256; plain is not accepted.',
      });
    }
  });

  it('without a resource, or for one this server does not protect', async () => {
    expect((await redirectedError({ ...valid(), resource: undefined })).params).toMatchObject({
      error: 'invalid_target',
      error_description: 'The resource parameter (the MCP server URL) is required.',
    });
    expect(
      (await redirectedError({ ...valid(), resource: 'https://mcp.example.com/nope' })).params,
    ).toMatchObject({
      error: 'invalid_target',
      error_description: 'The resource is not an MCP server this authorization server protects.',
    });
  });

  it('for an unknown scope, naming the known ones', async () => {
    expect(
      (await redirectedError({ ...valid(), scope: 'svc.forms.read svc.everything' })).params,
    ).toMatchObject({
      error: 'invalid_scope',
      error_description: `Known scopes: ${SCOPES.join(', ')}.`,
    });
  });

  it('without state when the app sent none', async () => {
    expect((await redirectedError({ ...valid(), state: undefined, response_type: 'token' })).params).toEqual({
      error: 'unsupported_response_type',
      error_description: 'Only response_type=code is supported.',
      iss: ISSUER,
    });
  });
});

describe('a valid authorization request', () => {
  it('is stored for ten minutes, as the consent page will show it, and sent on to that page', async () => {
    clock.set(new Date('2026-11-28T09:00:00.000Z'));
    const outcome = await authorize(oauth, {
      ...valid(),
      scope: 'svc.forms.write svc.forms.read svc.forms.write',
    });
    if (outcome.kind !== 'redirect') throw new Error(outcome.message);
    const { id, item, request } = await storedRequest(outcome.location);
    expect(request).toEqual({
      id,
      client: { id: clientId, name: 'One redirect', verified_domain: null },
      redirect_uri: REDIRECT,
      redirect_host: '127.0.0.1',
      state: 'the-state',
      code_challenge: challenge,
      resource: RESOURCE,
      scopes: ['svc.forms.write', 'svc.forms.read'],
      created_at: '2026-11-28T09:00:00.000Z',
      expires_at: '2026-11-28T09:10:00.000Z',
      grant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(request?.grant_id).not.toBe(id);
    expect(item.ttl).toBe(Date.parse('2026-11-28T09:10:00.000Z') / 1000);
  });

  it('keeps the resource as the deployment writes it, and asks read when no scope is named', async () => {
    const outcome = await authorize(oauth, {
      ...valid(),
      resource: 'HTTPS://MCP.EXAMPLE.COM:443/other',
      scope: undefined,
      state: undefined,
    });
    if (outcome.kind !== 'redirect') throw new Error(outcome.message);
    const { item, request } = await storedRequest(outcome.location);
    expect(request?.resource).toBe('https://mcp.example.com/other');
    expect(request?.scopes).toEqual(['svc.forms.read']);
    expect(Object.hasOwn(item, 'state')).toBe(false);
  });

  it('reads scope as space-separated names, however many spaces; only spaces is read', async () => {
    const scopesOf = async (scope: string) => {
      const outcome = await authorize(oauth, { ...valid(), scope });
      if (outcome.kind !== 'redirect') throw new Error(outcome.message);
      const location = new URL(outcome.location);
      if (location.searchParams.has('error')) return location.searchParams.get('error');
      return (await storedRequest(outcome.location)).request?.scopes;
    };
    expect(await scopesOf('   ')).toEqual(['svc.forms.read']);
    expect(await scopesOf(' svc.forms.write  svc.forms.generate ')).toEqual([
      'svc.forms.write',
      'svc.forms.generate',
    ]);
    expect(await scopesOf('svc.forms.write\tsvc.forms.read')).toBe('invalid_scope');
  });

  it('is stored once per request: two identical requests are two requests, each with its own grant id', async () => {
    const [a, b] = await Promise.all([authorize(oauth, valid()), authorize(oauth, valid())]);
    if (a.kind !== 'redirect' || b.kind !== 'redirect') throw new Error('a page');
    const [x, y] = await Promise.all([storedRequest(a.location), storedRequest(b.location)]);
    expect(x.id).not.toBe(y.id);
    expect(x.request?.grant_id).not.toBe(y.request?.grant_id);
  });
});
