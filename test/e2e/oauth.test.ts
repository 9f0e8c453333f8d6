import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGrantCredential, parseGrantCredential } from '#lib/keys/format';
import { denialResponse } from '#lib/mcp/denial';
import { REST_GATEWAY_RESPONSES } from '#lib/mcp/gateway-responses';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { createMcpKeyVerifier, type FixedPepperOption, type McpKeyVerifierOptions } from '#lib/verifier';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { SecretLedger } from '#test/support/secrets';

/** The tools a read-only credential may call (contract §19). */
const READ_TOOLS = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];

/**
 * OAuth 2.1 for MCP against `npm start`'s service (contract §15), with oauth4webapi as the client:
 * discovery from /mcp's 401, dynamic registration, PKCE, the consent API with the person's JWT,
 * the token endpoint, a call to /mcp with the access token, refresh, RFC 7009 revocation. Then
 * each rule an attacker would try, one test each. Rules that need time to pass (code expiry, the
 * refresh grace) are in test/integration/oauth-flow.test.ts, on an injected clock.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-oauth-'));
let service: RunningService;
let base: string;
let resource: string;
let prmUrl: string;
let as: oauth.AuthorizationServer;
const secrets = new SecretLedger();
const REDIRECT = 'http://127.0.0.1:53682/callback';
const api = jsonClient(() => base);

/** Every answer the service gave to the tests (dev routes aside), to prove none carries a secret. */
const answers: { path: string; status: number; text: string; cacheControl?: string | null }[] = [];

/** `fetch`, keeping the answer's text in `answers`; oauth4webapi and the MCP SDK are given it too. */
async function recorded(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  answers.push({
    path: url.pathname,
    status: response.status,
    text: await response.clone().text(),
    cacheControl: response.headers.get('cache-control'),
  });
  return response;
}

/** The consent and key APIs over JSON, recorded. */
async function call(...args: Parameters<typeof api>) {
  const reply = await api(...args);
  answers.push({ path: args[1].split('?')[0] ?? '', status: reply.status, text: reply.text });
  return reply;
}

/** What oauth4webapi is told: the service speaks http (loopback) and its answers are recorded. */
const options = {
  [oauth.allowInsecureRequests]: true,
  [oauth.customFetch]: (url: string, init: RequestInit) => recorded(url, init),
} as const;

interface Person {
  sub: string;
  token: string;
  workspaceId: string;
}

async function person(role = 'editor', extra: { auth_age_seconds?: number } = {}): Promise<Person> {
  const sub = `person-${randomUUID()}`;
  const { token, workspaceId } = await devMember(api, sub, role);
  secrets.add(token);
  if (extra.auth_age_seconds === undefined) return { sub, token, workspaceId };
  const stale = await api('POST', '/_dev/token', { body: { sub, email_verified: true, ...extra } });
  secrets.add(stale.json.token);
  return { sub, token: stale.json.token, workspaceId };
}

/** A public client registered by RFC 7591 (the way Cursor and older clients connect). */
async function register(name = 'e2e OAuth client'): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    options,
  );
  expect(response.status).toBe(201);
  return (await oauth.processDynamicClientRegistrationResponse(response)) as oauth.Client;
}

interface Started {
  status: number;
  location: string | null;
  contentType: string | null;
  text: string;
  verifier: string;
  state: string;
}

/**
 * `GET /oauth/authorize` as a browser sends it for `client` (not following the redirect); a
 * parameter set to undefined in `params` is left out.
 */
async function authorizeRequest(
  client: Pick<oauth.Client, 'client_id'>,
  params: Record<string, string | undefined> = {},
): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource,
    scope: 'svc.forms.read',
    ...params,
  };
  const url = new URL(as.authorization_endpoint as string);
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  const response = await recorded(url, { redirect: 'manual' });
  return {
    status: response.status,
    location: response.headers.get('location'),
    contentType: response.headers.get('content-type'),
    text: await response.text(),
    verifier,
    state,
  };
}

/** The request id of an authorization that was sent on to the consent page. */
function consentRequest(started: Started): string {
  expect(started.status, started.text).toBe(302);
  const location = new URL(started.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(`${base}/consent`);
  return location.searchParams.get('request') as string;
}

const approveBody = (who: Person, scopes = ['svc.forms.read']) => ({
  workspace_ids: [who.workspaceId],
  scopes,
});

async function approve(who: Person, requestId: string, body: unknown = approveBody(who)) {
  return call('POST', `/v1/mcp/oauth/requests/${requestId}/approve`, { token: who.token, body });
}

/** Authorize and approve: the authorization response the client receives at its redirect URI. */
async function authorized(who: Person, client: oauth.Client, params: Record<string, string> = {}) {
  const started = await authorizeRequest(client, params);
  const requestId = consentRequest(started);
  const approved = await approve(who, requestId);
  expect(approved.status, approved.text).toBe(200);
  const redirectTo = new URL(approved.json.redirect_to);
  secrets.add(redirectTo.searchParams.get('code') ?? undefined);
  const callback = oauth.validateAuthResponse(as, client, redirectTo, started.state);
  return { started, requestId, callback, redirectTo: approved.json.redirect_to as string };
}

/** The code exchanged by oauth4webapi; the tokens go to the ledger. */
async function exchange(
  client: oauth.Client,
  callback: URLSearchParams,
  verifier: string,
  extra: Record<string, string> = { resource },
): Promise<oauth.TokenEndpointResponse> {
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    callback,
    REDIRECT,
    verifier,
    { ...options, additionalParameters: extra },
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  secrets.add(tokens.access_token, tokens.refresh_token);
  return tokens;
}

/** A person's grant, from authorization to tokens: the whole flow a client runs. */
async function connect(who: Person, client: oauth.Client) {
  const { started, callback, redirectTo } = await authorized(who, client);
  const tokens = await exchange(client, callback, started.verifier);
  const grantId = (parseGrantCredential(tokens.access_token) as { id: string }).id;
  return { tokens, grantId, callback, verifier: started.verifier, redirectTo };
}

async function refreshWith(client: oauth.Client, refreshToken: string, extra: Record<string, string> = {}) {
  const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, {
    ...options,
    additionalParameters: extra,
  });
  const tokens = await oauth.processRefreshTokenResponse(as, client, response);
  secrets.add(tokens.access_token, tokens.refresh_token);
  return tokens;
}

/** A raw form POST to the token endpoint: what an attacker sends, not what a client library allows. */
async function tokenRequest(form: Record<string, string>) {
  const response = await recorded(as.token_endpoint as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as { error: string; error_description: string },
  };
}

/** A refused token request: RFC 6749 §5.2 JSON, never cached. */
async function tokenError(form: Record<string, string>, error: string) {
  const answer = await tokenRequest(form);
  expect(answer.status, JSON.stringify(answer.json)).toBe(400);
  expect(answer.json.error).toBe(error);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return answer.json;
}

/** The official MCP SDK client calling list_workspaces with `bearer`. */
async function listWorkspaces(bearer: string) {
  const client = new Client({ name: 'e2e-oauth', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(resource), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    fetch: recorded,
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
    return (result.structuredContent as { workspaces: { workspace_id: string; scopes: string[] }[] })
      .workspaces;
  } finally {
    await client.close();
  }
}

/** /mcp's answer to `bearer`, through oauth4webapi: the parsed challenge of a 401. */
async function mcpChallenge(bearer: string) {
  const refused = await oauth
    .protectedResourceRequest(
      bearer,
      'POST',
      new URL(resource),
      new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      options,
    )
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const error = refused as oauth.WWWAuthenticateChallengeError;
  expect(error.status).toBe(401);
  return { challenge: error.cause[0] as oauth.WWWAuthenticateChallenge, body: await error.response.text() };
}

async function events(who: Person, id: string) {
  const reply = await call('GET', `/v1/mcp/api-keys/${id}/events`, { token: who.token });
  expect(reply.status).toBe(200);
  return reply.json.data as { type: string; details: Record<string, unknown> }[];
}

async function grantOf(who: Person, id: string) {
  const reply = await call('GET', '/v1/mcp/api-keys', { token: who.token });
  expect(reply.status).toBe(200);
  return (reply.json.data as { id: string; status: string }[]).find((m) => m.id === id);
}

/**
 * What an MCP server under development passes to `createMcpKeyVerifier` to verify against the
 * local service (contract §16): its tables, its DynamoDB Local with the database's credentials,
 * and the pepper.
 */
async function devVerifierOptions() {
  const reply = await api('GET', '/_dev/verifier');
  expect(reply.status).toBe(200);
  const options = reply.json as McpKeyVerifierOptions & FixedPepperOption;
  secrets.add(options.pepper.base64);
  return options;
}

/** An in-process verifier on the service's tables, guarding the MCP server `guarded`. */
async function verifierFor(guarded: string) {
  return createMcpKeyVerifier({ ...(await devVerifierOptions()), resource: guarded });
}

/** Every token digest a grant's item holds (read from the service's database), for the ledger. */
async function digestsOf(grantId: string): Promise<string[]> {
  const { region, endpoint, credentials, keysTableName } = await devVerifierOptions();
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region, endpoint, credentials }));
  try {
    const item = await doc.send(
      new GetCommand({ TableName: keysTableName, Key: { pk: keyPk(grantId), sk: KEY_SK } }),
    );
    const grant = JSON.stringify(item.Item?.grant ?? {});
    const digests = [...grant.matchAll(/"(?:digest|refresh|redeemed_code)":"([^"]+)"/g)].map(
      (m) => m[1] as string,
    );
    expect(digests.length).toBeGreaterThan(1);
    return digests;
  } finally {
    doc.destroy();
  }
}

beforeAll(async () => {
  service = await startService({ DATA_DIR: dataDir });
  base = service.url;
  resource = `${base}/mcp`;
  prmUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  // Discovery as a client does it (MCP authorization spec): the 401's resource_metadata names
  // the Protected Resource Metadata, which names the authorization server.
  const first = await recorded(resource, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' }),
  });
  expect(first.status).toBe(401);
  const named = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1];
  const prm = await oauth.processResourceDiscoveryResponse(
    new URL(resource),
    await recorded(named as string),
  );
  const issuer = new URL(prm.authorization_servers?.[0] as string);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
  );
});
afterAll(async () => {
  await service?.stop();
});

describe('discovery', () => {
  it('a 401 without a credential names the Protected Resource Metadata and the scope to ask for; §7’s message stays', async () => {
    const reply = await recorded(resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe(
      `${REST_GATEWAY_RESPONSES.UNAUTHORIZED.headers['www-authenticate']}, resource_metadata="${prmUrl}", scope="svc.forms.read"`,
    );
    expect(await reply.text()).toBe(REST_GATEWAY_RESPONSES.UNAUTHORIZED.body);
  });

  it('serves RFC 9728 and RFC 8414 metadata, and no OpenID configuration', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const prm = await call('GET', path);
      expect(prm.status, path).toBe(200);
      expect(prm.json).toEqual({
        resource,
        authorization_servers: [base],
        scopes_supported: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
        bearer_methods_supported: ['header'],
      });
    }
    expect(as).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      // Local mode trusts its development IdP (contract §17): ID-JAGs are exchanged too.
      grant_types_supported: [
        'authorization_code',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
      ],
      authorization_grant_profiles_supported: ['urn:ietf:params:oauth:grant-profile:id-jag'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.token_endpoint_auth_methods_supported?.[0]).toBe('none');
    expect((await call('GET', '/.well-known/openid-configuration')).status).toBe(404);
  });
});

describe('a client’s whole flow, with oauth4webapi', () => {
  it('registers, authorizes with PKCE, is approved, calls list_workspaces, refreshes, revokes, and is refused after', async () => {
    const who = await person();
    const client = await register('Flow client');
    expect(client.token_endpoint_auth_method).toBe('none');

    const started = await authorizeRequest(client);
    const requestId = consentRequest(started);
    // The browser follows the redirect to local mode's consent page, which reads the request.
    const page = await recorded(started.location as string);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const view = await call('GET', `/v1/mcp/oauth/requests/${requestId}`, { token: who.token });
    expect(view.status).toBe(200);
    expect(view.json).toMatchObject({
      id: requestId,
      client: { id: client.client_id, name: 'Flow client', verified_domain: null },
      redirect_host: '127.0.0.1:53682',
      requested_scopes: ['svc.forms.read'],
      resource,
    });

    const approved = await approve(who, requestId);
    expect(approved.status).toBe(200);
    const callback = oauth.validateAuthResponse(
      as,
      client,
      new URL(approved.json.redirect_to),
      started.state,
    );
    expect(callback.get('iss')).toBe(base);
    secrets.add(callback.get('code') ?? undefined);

    const tokens = await exchange(client, callback, started.verifier);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'svc.forms.read' });
    expect(tokens.access_token).toMatch(/^svc_mcp_at_v1_[0-9A-Za-z]{71}$/);
    expect(tokens.refresh_token).toMatch(/^svc_mcp_rt_v1_[0-9A-Za-z]{71}$/);
    expect(answers.findLast((a) => a.path === '/oauth/token')).toMatchObject({
      status: 200,
      cacheControl: 'no-store',
    });
    expect(await listWorkspaces(tokens.access_token)).toEqual([
      { workspace_id: who.workspaceId, role: 'editor', scopes: ['svc.forms.read'], tools: READ_TOOLS },
    ]);

    const grantId = (parseGrantCredential(tokens.access_token) as { id: string }).id;
    expect(await grantOf(who, grantId)).toMatchObject({
      kind: 'oauth_grant',
      status: 'active',
      client: { id: client.client_id, name: 'Flow client', verified_domain: null },
      redirect_host: '127.0.0.1:53682',
    });
    secrets.add(...(await digestsOf(grantId)));

    const refreshed = await refreshWith(client, tokens.refresh_token as string, { resource });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(await listWorkspaces(refreshed.access_token)).toHaveLength(1);
    secrets.add(...(await digestsOf(grantId)));

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token as string, options),
    );
    const after = await mcpChallenge(refreshed.access_token);
    expect(after.challenge.scheme).toBe('bearer');
    expect(after.challenge.parameters).toMatchObject({
      realm: 'svc-mcp',
      error: 'invalid_token',
      resource_metadata: prmUrl,
    });
    expect(after.body).toBe(REST_GATEWAY_RESPONSES.UNAUTHORIZED.body);
    expect(await grantOf(who, grantId)).toMatchObject({ status: 'revoked' });
    expect((await events(who, grantId)).map((e) => [e.type, e.details.reason])).toEqual([
      ['grant.revoked', 'client'],
      ['grant.created', undefined],
    ]);
  });

  it('with a Client ID Metadata Document served on loopback: the consent shows its host and port as verified', async () => {
    const server = createServer((request, response) => {
      if (request.url !== '/oauth/client.json') return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: documentUrl,
          client_name: 'Loopback app',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const documentUrl = `http://127.0.0.1:${port}/oauth/client.json`;
    try {
      const who = await person();
      const client: oauth.Client = { client_id: documentUrl, token_endpoint_auth_method: 'none' };
      const started = await authorizeRequest(client);
      const requestId = consentRequest(started);
      const view = await call('GET', `/v1/mcp/oauth/requests/${requestId}`, { token: who.token });
      expect(view.json.client).toEqual({
        id: documentUrl,
        name: 'Loopback app',
        verified_domain: `127.0.0.1:${port}`,
      });
      const approved = await approve(who, requestId);
      const callback = oauth.validateAuthResponse(
        as,
        client,
        new URL(approved.json.redirect_to),
        started.state,
      );
      secrets.add(callback.get('code') ?? undefined);
      const tokens = await exchange(client, callback, started.verifier);
      expect(await listWorkspaces(tokens.access_token)).toEqual([
        expect.objectContaining({ workspace_id: who.workspaceId }),
      ]);
      const grantId = (parseGrantCredential(tokens.access_token) as { id: string }).id;
      expect(await grantOf(who, grantId)).toMatchObject({
        kind: 'oauth_grant',
        client: { id: documentUrl, name: 'Loopback app', verified_domain: `127.0.0.1:${port}` },
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

/** An authorization error the person sees as a page: never redirected anywhere. */
function expectErrorPage(started: Started, text: RegExp) {
  expect(started.status).toBe(400);
  expect(started.location).toBeNull();
  expect(started.contentType).toMatch(/^text\/html/);
  expect(started.text).toMatch(text);
}

/** An authorization error redirected to the client (RFC 6749 §4.1.2.1, with RFC 9207's iss). */
function expectRedirectedError(started: Started, error: string) {
  expect(started.status).toBe(302);
  const location = new URL(started.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get('error')).toBe(error);
  expect(location.searchParams.get('state')).toBe(started.state);
  expect(location.searchParams.get('iss')).toBe(base);
  expect(location.searchParams.get('code')).toBeNull();
}

describe('what an attacker tries, one rule each', () => {
  let client: oauth.Client;
  beforeAll(async () => {
    client = await register('Attacked client');
  });

  it('PKCE cannot be downgraded: plain and a missing challenge are refused, a wrong verifier is invalid_grant', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const plain = await authorizeRequest(client, {
      code_challenge: verifier,
      code_challenge_method: 'plain',
    });
    expectRedirectedError(plain, 'invalid_request');
    expect(new URL(plain.location as string).searchParams.get('error_description')).toMatch(/S256/);
    expectRedirectedError(
      await authorizeRequest(client, { code_challenge: undefined, code_challenge_method: undefined }),
      'invalid_request',
    );
    expectRedirectedError(
      await authorizeRequest(client, { code_challenge_method: undefined }),
      'invalid_request',
    );

    const who = await person();
    const { callback } = await authorized(who, client);
    const refused = await tokenError(
      {
        grant_type: 'authorization_code',
        code: callback.get('code') as string,
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_verifier: oauth.generateRandomCodeVerifier(),
        resource,
      },
      'invalid_grant',
    );
    expect(refused.error_description).toMatch(/code_verifier/);
    await tokenError(
      {
        grant_type: 'authorization_code',
        code: callback.get('code') as string,
        client_id: client.client_id,
        redirect_uri: REDIRECT,
      },
      'invalid_request',
    );
  });

  it('a replayed code is invalid_grant and revokes the grant it made: its access token stops working', async () => {
    const who = await person();
    const { tokens, grantId, callback, verifier } = await connect(who, client);
    expect(await listWorkspaces(tokens.access_token)).toHaveLength(1);
    const replay = {
      grant_type: 'authorization_code',
      code: callback.get('code') as string,
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource,
    };
    expect((await tokenError(replay, 'invalid_grant')).error_description).toMatch(/already used/);
    expect((await mcpChallenge(tokens.access_token)).challenge.parameters.error).toBe('invalid_token');
    await tokenError(
      {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: client.client_id,
      },
      'invalid_grant',
    );
    expect(await grantOf(who, grantId)).toMatchObject({ status: 'revoked' });
    expect(await events(who, grantId)).toContainEqual(
      expect.objectContaining({ type: 'grant.revoked', details: { reason: 'code_replay' } }),
    );
  });

  it('a redirect_uri that was not registered is shown as a page at authorize, and is invalid_grant at the token endpoint', async () => {
    expectErrorPage(
      await authorizeRequest(client, { redirect_uri: 'https://attacker.example/callback' }),
      /not one the app registered/,
    );
    // Nothing about the request is trusted before its redirect URI: a bad one with other errors is still a page.
    expectErrorPage(
      await authorizeRequest(client, {
        redirect_uri: 'https://attacker.example/cb',
        code_challenge_method: 'plain',
      }),
      /not one the app registered/,
    );
    expectErrorPage(await authorizeRequest({ client_id: randomUUID() }), /not registered/);

    const who = await person();
    const { callback, started } = await authorized(who, client);
    await tokenError(
      {
        grant_type: 'authorization_code',
        code: callback.get('code') as string,
        client_id: client.client_id,
        redirect_uri: 'http://127.0.0.1:53682/elsewhere',
        code_verifier: started.verifier,
      },
      'invalid_grant',
    );
    // The code was not spent: with the right redirect URI it is still redeemed once.
    await exchange(client, callback, started.verifier);
  });

  it('a token is bound to its resource: unknown at authorize is invalid_target, another at the token endpoint too', async () => {
    const unknown = await authorizeRequest(client, { resource: 'https://other.example/mcp' });
    expectRedirectedError(unknown, 'invalid_target');
    expectRedirectedError(await authorizeRequest(client, { resource: undefined }), 'invalid_target');

    const who = await person();
    const { callback, started } = await authorized(who, client);
    await tokenError(
      {
        grant_type: 'authorization_code',
        code: callback.get('code') as string,
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_verifier: started.verifier,
        resource: 'https://other.example/mcp',
      },
      'invalid_target',
    );
    const tokens = await exchange(client, callback, started.verifier);
    await tokenError(
      {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: client.client_id,
        resource: 'https://other.example/mcp',
      },
      'invalid_target',
    );
  });

  it('an access token presented to a verifier guarding another MCP server is 401 "issued for another MCP server"', async () => {
    const who = await person();
    const { tokens, grantId } = await connect(who, client);
    const here = await (await verifierFor(resource)).verify(tokens.access_token);
    expect(here).toMatchObject({
      outcome: 'valid',
      kind: 'oauth',
      key_id: grantId,
      client_id: client.client_id,
    });

    const elsewhere = await (await verifierFor('https://other.example/mcp')).verify(tokens.access_token);
    expect(elsewhere).toEqual({ outcome: 'wrong_resource', key_id: grantId });
    const answer = denialResponse(elsewhere, {
      resourceMetadataUrl: 'https://other.example/.well-known/oauth-protected-resource/mcp',
    }) as Response;
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
      /issued for another MCP server/,
    );
  });

  it('a refresh token sent as a bearer is refused: 401 at /mcp, "refresh token" from the verifier', async () => {
    const who = await person();
    const { tokens } = await connect(who, client);
    const refresh = tokens.refresh_token as string;
    const at = await mcpChallenge(refresh);
    expect(at.challenge.parameters).toMatchObject({ error: 'invalid_token', resource_metadata: prmUrl });
    // The REST API answers every 401 alike (contract §7); in process, the verifier says which.
    const verified = await (await verifierFor(resource)).verify(refresh);
    expect(verified).toEqual({ outcome: 'refresh_token' });
    const answer = denialResponse(verified) as Response;
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/refresh token/);
    // The grant is untouched.
    expect(await listWorkspaces(tokens.access_token)).toHaveLength(1);
  });

  it('refresh rotates: the replaced token still works at once (grace), a forged one is invalid_grant and revokes nothing', async () => {
    const who = await person();
    const { tokens, grantId } = await connect(who, client);
    const first = await refreshWith(client, tokens.refresh_token as string);
    // A second refresh from another place with the token just replaced, within its 60 s.
    const second = await refreshWith(client, tokens.refresh_token as string);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await listWorkspaces(second.access_token)).toHaveLength(1);

    const forged = generateGrantCredential('refresh_token', grantId);
    expect(
      (
        await tokenError(
          { grant_type: 'refresh_token', refresh_token: forged, client_id: client.client_id },
          'invalid_grant',
        )
      ).error_description,
    ).toMatch(/not valid/);
    expect(await grantOf(who, grantId)).toMatchObject({ status: 'active' });
    expect(await listWorkspaces(second.access_token)).toHaveLength(1);
    await refreshWith(client, second.refresh_token as string);
    secrets.add(...(await digestsOf(grantId)));
  });

  it('a refresh by another client, or one that adds a scope, is refused', async () => {
    const who = await person();
    const { tokens } = await connect(who, client);
    const other = await register('Other client');
    await tokenError(
      {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: other.client_id,
      },
      'invalid_grant',
    );
    await tokenError(
      {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: client.client_id,
        scope: 'svc.forms.read svc.forms.write',
      },
      'invalid_scope',
    );
    await tokenError(
      { grant_type: 'client_credentials', client_id: client.client_id },
      'unsupported_grant_type',
    );
  });

  it('a request belongs to the first user who opens it: to anyone else it is 404 request_not_found', async () => {
    const [owner, intruder] = [await person(), await person()];
    const requestId = consentRequest(await authorizeRequest(client));
    expect((await call('GET', `/v1/mcp/oauth/requests/${requestId}`, { token: owner.token })).status).toBe(
      200,
    );
    for (const [method, path, body] of [
      ['GET', `/v1/mcp/oauth/requests/${requestId}`, undefined],
      ['POST', `/v1/mcp/oauth/requests/${requestId}/approve`, approveBody(intruder)],
      ['POST', `/v1/mcp/oauth/requests/${requestId}/deny`, {}],
    ] as const) {
      const refused = await call(method, path, { token: intruder.token, body });
      expect(refused.status, path).toBe(404);
      expect(refused.json.code, path).toBe('request_not_found');
    }
    const unknown = await call('GET', `/v1/mcp/oauth/requests/${randomUUID()}`, { token: owner.token });
    expect(unknown.json.code).toBe('request_not_found');
    // The owner still decides it.
    expect((await approve(owner, requestId)).status).toBe(200);
  });

  it('deny redirects with error=access_denied; a denied request cannot be approved', async () => {
    const who = await person();
    const started = await authorizeRequest(client);
    const requestId = consentRequest(started);
    const denied = await call('POST', `/v1/mcp/oauth/requests/${requestId}/deny`, { token: who.token });
    expect(denied.status).toBe(200);
    const to = new URL(denied.json.redirect_to);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      error: 'access_denied',
      state: started.state,
      iss: base,
    });
    expect(to.searchParams.get('code')).toBeNull();
    expect(() => oauth.validateAuthResponse(as, client, to, started.state)).toThrow(
      oauth.AuthorizationResponseError,
    );
    const again = await call('POST', `/v1/mcp/oauth/requests/${requestId}/deny`, { token: who.token });
    expect(again.json.redirect_to).toBe(denied.json.redirect_to);
    expect((await approve(who, requestId)).json.code).toBe('request_not_found');
  });

  it('a repeated approve answers the same redirect_to, and makes one grant', async () => {
    const who = await person();
    const requestId = consentRequest(await authorizeRequest(client));
    const [first, second] = [await approve(who, requestId), await approve(who, requestId)];
    expect(first.status).toBe(200);
    expect(second.json.redirect_to).toBe(first.json.redirect_to);
    secrets.add(new URL(first.json.redirect_to).searchParams.get('code') ?? undefined);
    const listed = await call('GET', '/v1/mcp/api-keys', { token: who.token });
    expect(listed.json.data.filter((m: { kind: string }) => m.kind === 'oauth_grant')).toHaveLength(1);
  });

  it('a grant cannot be rotated: 409 not_rotatable; DELETE revokes it like a key', async () => {
    const who = await person();
    const { tokens, grantId } = await connect(who, client);
    const rotated = await call('POST', `/v1/mcp/api-keys/${grantId}/rotate`, { token: who.token });
    expect(rotated.status).toBe(409);
    expect(rotated.json.code).toBe('not_rotatable');
    expect((await call('DELETE', `/v1/mcp/api-keys/${grantId}`, { token: who.token })).status).toBe(200);
    expect((await mcpChallenge(tokens.access_token)).challenge.parameters.error).toBe('invalid_token');
    expect(await events(who, grantId)).toContainEqual(
      expect.objectContaining({ type: 'grant.revoked', details: { reason: 'user' } }),
    );
  });

  it('approving needs create’s step-up: a login older than 15 minutes is 401 reauthentication_required', async () => {
    const stale = await person('editor', { auth_age_seconds: 1000 });
    const requestId = consentRequest(await authorizeRequest(client));
    expect((await call('GET', `/v1/mcp/oauth/requests/${requestId}`, { token: stale.token })).status).toBe(
      200,
    );
    const refused = await approve(stale, requestId);
    expect(refused.status).toBe(401);
    expect(refused.json.code).toBe('reauthentication_required');
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_user_authentication", max_age="900"',
    );
  });

  it('approving a workspace the person is not in, or a scope their role lacks, is 403 workspace_access_denied with errors', async () => {
    const who = await person('viewer');
    const requestId = consentRequest(await authorizeRequest(client));
    const elsewhere = randomUUID();
    const refused = await approve(who, requestId, {
      workspace_ids: [who.workspaceId, elsewhere],
      scopes: ['svc.forms.read'],
    });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('workspace_access_denied');
    expect(refused.json.errors).toEqual([
      { path: 'workspace_ids.1', message: `not a member of workspace ${elsewhere}` },
    ]);
    const role = await approve(who, requestId, approveBody(who, ['svc.forms.write']));
    expect(role.json.code).toBe('workspace_access_denied');
    expect(role.json.errors[0].message).toMatch(/role viewer .* does not allow svc\.forms\.write/);
  });

  it('approving what the workspace policy forbids is 403 workspace_policy_denied', async () => {
    const admin = await person('admin');
    const policy = await call('PUT', `/v1/mcp/workspaces/${admin.workspaceId}/policy`, {
      token: admin.token,
      body: { mcp_access: 'enabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
    });
    expect(policy.status, policy.text).toBe(200);
    const requestId = consentRequest(await authorizeRequest(client));
    const refused = await approve(admin, requestId, approveBody(admin, ['svc.forms.write']));
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('workspace_policy_denied');
  });

  it('registration refuses what it must not keep: over 8 KiB, over 10 redirect URIs, a long name, a secret, a javascript: URI', async () => {
    const registerRaw = async (body: unknown, raw?: string) => {
      const reply = await call('POST', '/oauth/register', { ...(raw ? { raw } : { body }) });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.headers.get('cache-control')).toBe('no-store');
      return reply.json as { error: string; error_description: string };
    };
    const big = JSON.stringify({
      redirect_uris: [REDIRECT],
      client_name: 'x',
      logo_uri: `https://a.example/${'x'.repeat(8 * 1024)}`,
    });
    expect((await registerRaw(undefined, big)).error).toBe('invalid_client_metadata');
    const many = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`);
    expect((await registerRaw({ redirect_uris: many })).error).toBe('invalid_redirect_uri');
    expect((await registerRaw({ redirect_uris: [REDIRECT], client_name: 'n'.repeat(101) })).error).toBe(
      'invalid_client_metadata',
    );
    const confidential = await registerRaw({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(confidential).toMatchObject({ error: 'invalid_client_metadata' });
    expect(confidential.error_description).toMatch(/public clients only/);
    expect((await registerRaw({ redirect_uris: ['javascript:alert(1)'] })).error).toBe(
      'invalid_redirect_uri',
    );
    // The root fallback is the same endpoint once OAuth is on.
    const fallback = await call('POST', '/register', { body: { redirect_uris: [REDIRECT] } });
    expect(fallback.status).toBe(201);
    expect(fallback.json).toMatchObject({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const exactly10 = await call('POST', '/oauth/register', { body: { redirect_uris: many.slice(0, 10) } });
    expect(exactly10.status).toBe(201);
  });

  it('a metadata document on an IP literal, a non-443 port or a loopback name is never fetched: an error page', async () => {
    for (const [clientId, reason] of [
      ['https://127.0.0.1/oauth/client.json', /not from an IP address/],
      ['https://169.254.169.254/latest/meta-data', /not from an IP address/],
      ['https://app.example.com:8443/oauth/client.json', /port 443/],
      ['https://localhost/oauth/client.json', /not public/],
    ] as const) {
      expectErrorPage(await authorizeRequest({ client_id: clientId }), reason);
    }
  });
});

describe('secrets', () => {
  it('no token, code or digest in a list, an error body or the service log', () => {
    // A token endpoint's success carries tokens, a consent decision the code in its redirect URL:
    // those are their purpose. Everything else must carry none.
    const carriers = (a: (typeof answers)[number]) =>
      (a.path === '/oauth/token' && a.status === 200) ||
      (/^\/v1\/mcp\/oauth\/requests\/[^/]+\/approve$/.test(a.path) && a.status === 200);
    const others = answers.filter((a) => !carriers(a));
    expect(secrets.size).toBeGreaterThan(20);
    expect(others.some((a) => a.path === '/v1/mcp/api-keys' && a.status === 200)).toBe(true);
    expect(others.some((a) => a.path === '/oauth/token' && a.status === 400)).toBe(true);
    expect(secrets.leaksIn(others.map((a) => a.text).join('\n'))).toEqual([]);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
