import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthClient } from '#lib/oauth/clients';
import type { ClientResolver, OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { authorizationServerMetadata, JWT_BEARER_GRANT } from '#lib/oauth/metadata';
import { clientResolver, register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import { buildRuntime } from '#lib/runtime';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * Dynamic client registration (RFC 7591) and how a `client_id` is resolved to a client, on
 * DynamoDB Local: what a registering app is answered and what is stored, a registration's 30
 * days unless a grant uses it, which ids are fetched as metadata documents, and the ID-JAG's
 * grant type registered where the metadata advertises it (a trusted identity provider).
 */

const DAY = 86_400_000;
const REDIRECT = 'http://127.0.0.1/callback';
const UNKNOWN =
  'This app is not registered with this server, or its registration expired; remove the server from the app and add it again.';

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.500Z'));
let oauth: OAuthDeps;
/** The same tables with an identity provider trusted: the jwt-bearer grant is offered. */
let enterprise: { oauth: OAuthDeps; idp: TestIdp };

beforeAll(async () => {
  tables = await createTestTables();
  const runtime = buildRuntime(
    {
      ...tables.config(),
      oauth: {
        issuer: 'https://keys.example.com',
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources: ['https://mcp.example.com/mcp'],
      },
    },
    { doc: tables.doc, now: clock.now },
  );
  oauth = runtime.oauth as OAuthDeps;
  enterprise = await enterpriseRuntime(tables, clock);
});
afterAll(() => tables.drop());

/** A resolver over this file's registrations, with a stand-in for the metadata fetch that records what it was asked. */
function resolver(options: Parameters<typeof clientResolver>[2] = {}) {
  const fetched: string[] = [];
  const fetchDocument: ClientResolver = async (id) => {
    fetched.push(id);
    return { ok: false, error_description: `fetched ${id}` };
  };
  return { resolve: clientResolver(oauth, fetchDocument, options), fetched };
}

describe('a registration', () => {
  it('answers the client’s id, when it was issued (seconds) and the metadata accepted; the client is stored for 30 days', async () => {
    clock.set(new Date('2026-11-28T09:00:00.500Z'));
    const answer = await register(oauth, {
      client_name: 'Registered app',
      redirect_uris: [REDIRECT, REDIRECT],
      logo_uri: 'https://ignored.example.com/logo.png',
    });
    expect(answer).toMatchObject({
      client_id: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      client_id_issued_at: Date.parse('2026-11-28T09:00:00Z') / 1000,
      client_name: 'Registered app',
      redirect_uris: [REDIRECT],
    });
    expect(answer).not.toHaveProperty('logo_uri');
    expect(await oauth.store.getClient(answer.client_id)).toEqual({
      client_id: answer.client_id,
      client_name: 'Registered app',
      redirect_uris: [REDIRECT],
      created_at: '2026-11-28T09:00:00.500Z',
    });
    const item = await tables.doc.send(
      new GetCommand({
        TableName: tables.keysTable,
        Key: { pk: `OAUTH_CLIENT#${answer.client_id}`, sk: 'CLIENT' },
      }),
    );
    expect(item.Item?.ttl).toBe(Math.floor((Date.parse('2026-11-28T09:00:00.500Z') + 30 * DAY) / 1000));
  });

  it('is refused with the metadata’s problem, and nothing is stored', async () => {
    const before = (await tables.scanKeys()).length;
    const refused = await register(oauth, { client_name: 'No redirects' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OAuthError);
    expect(refused).toMatchObject({ error: 'invalid_redirect_uri', status: 400 });
    expect((refused as OAuthError).description).toMatch(/redirect_uris/);
    expect(await register(oauth, 'text').catch((e: unknown) => e)).toMatchObject({
      error: 'invalid_client_metadata',
      description: 'The registration body must be a JSON object.',
    });
    expect((await tables.scanKeys()).length).toBe(before);
  });
});

describe('a client_id', () => {
  it('of a live registration is that client, unverified', async () => {
    const { client_id } = await register(oauth, { client_name: 'Live app', redirect_uris: [REDIRECT] });
    const { resolve, fetched } = resolver();
    expect(await resolve(client_id)).toEqual({
      ok: true,
      client: {
        client_id,
        client_name: 'Live app',
        redirect_uris: [REDIRECT],
        verified_domain: null,
        registration: 'dynamic',
      },
    } satisfies { ok: true; client: OAuthClient });
    expect(fetched).toEqual([]);
  });

  it('of a registration no grant used is unknown from its 30th day, to the millisecond; a used one is kept', async () => {
    clock.set(new Date('2026-11-28T09:00:00.000Z'));
    const unused = (await register(oauth, { client_name: 'Unused', redirect_uris: [REDIRECT] })).client_id;
    const used = (await register(oauth, { client_name: 'Used', redirect_uris: [REDIRECT] })).client_id;
    await oauth.store.keepClient(used, clock.now());
    const { resolve } = resolver();
    clock.advance(30 * DAY - 1);
    expect(await resolve(unused)).toMatchObject({ ok: true });
    clock.advance(1);
    expect(await resolve(unused)).toEqual({ ok: false, error_description: UNKNOWN });
    expect(await resolve(used)).toMatchObject({ ok: true, client: { client_name: 'Used' } });
  });

  it('that is no registration of this server is unknown', async () => {
    const { resolve, fetched } = resolver();
    for (const id of [
      '00000000-0000-4000-8000-000000000000',
      'not-a-uuid',
      '00000000-0000-4000-8000-00000000000',
      'X00000000-0000-4000-8000-000000000000',
      '00000000-0000-4000-8000-000000000000X',
      '00000000-0000-4000-8000-00000000000A',
    ])
      expect(await resolve(id), id).toEqual({ ok: false, error_description: UNKNOWN });
    expect(fetched).toEqual([]);
  });

  it('that is a metadata document’s URL is fetched, unless documents are off', async () => {
    const url = 'https://app.example.com/oauth/client.json';
    const on = resolver();
    expect(await on.resolve(url)).toEqual({ ok: false, error_description: `fetched ${url}` });
    expect(on.fetched).toEqual([url]);
    expect(await resolver({ metadataDocuments: true }).resolve(url)).toMatchObject({
      error_description: `fetched ${url}`,
    });
    const off = resolver({ metadataDocuments: false });
    expect(await off.resolve(url)).toEqual({
      ok: false,
      error_description:
        'This server does not accept apps that identify themselves by a metadata document URL: the app has to register with the server (dynamic client registration) instead.',
    });
    expect(off.fetched).toEqual([]);
  });

  it('that is a loopback http URL is a metadata document only where loopback documents are allowed (local mode)', async () => {
    const url = 'http://127.0.0.1:8123/client.json';
    const local = resolver({ allowLoopbackHttp: true });
    expect(await local.resolve(url)).toEqual({ ok: false, error_description: `fetched ${url}` });
    const deployed = resolver();
    expect(await deployed.resolve(url)).toEqual({ ok: false, error_description: UNKNOWN });
    expect(deployed.fetched).toEqual([]);
  });
});

describe('the jwt-bearer grant (an ID-JAG) at registration', () => {
  const enterpriseClient = {
    client_name: 'Enterprise assistant',
    redirect_uris: [],
    grant_types: [JWT_BEARER_GRANT],
  };

  it('is registered exactly where the metadata advertises it', async () => {
    for (const deps of [oauth, enterprise.oauth]) {
      const advertised = authorizationServerMetadata(deps.oauth).grant_types_supported.includes(
        JWT_BEARER_GRANT,
      );
      const answer = await register(deps, enterpriseClient).catch((e: unknown) => e);
      expect(answer instanceof OAuthError, String(advertised)).toBe(!advertised);
    }
    expect(authorizationServerMetadata(enterprise.oauth.oauth).grant_types_supported).toContain(
      JWT_BEARER_GRANT,
    );
  });

  it('alone needs no redirect URI nor response type: the client is stored without them and resolves', async () => {
    clock.set(new Date('2026-11-28T09:00:00.500Z'));
    const answer = await register(enterprise.oauth, enterpriseClient);
    expect(answer).toEqual({
      client_id: expect.any(String),
      client_id_issued_at: Date.parse('2026-11-28T09:00:00Z') / 1000,
      client_name: 'Enterprise assistant',
      redirect_uris: [],
      grant_types: [JWT_BEARER_GRANT],
      response_types: [],
      token_endpoint_auth_method: 'none',
    });
    const { redirect_uris: _none, ...withoutRedirects } = enterpriseClient;
    expect(await register(enterprise.oauth, withoutRedirects)).toMatchObject({ redirect_uris: [] });
    expect(await oauth.store.getClient(answer.client_id)).toMatchObject({ redirect_uris: [] });
    expect(await resolver().resolve(answer.client_id)).toMatchObject({
      ok: true,
      client: { client_name: 'Enterprise assistant', redirect_uris: [], registration: 'dynamic' },
    });
  });

  it('registers a client that then exchanges an ID-JAG for an access token', async () => {
    const { client_id } = await register(enterprise.oauth, enterpriseClient);
    const member = await newMember(tables);
    const answer = await token(enterprise.oauth, {
      grant_type: JWT_BEARER_GRANT,
      assertion: await enterprise.idp.idJag({ sub: member.userId, client_id }),
      client_id,
    });
    expect(answer).toMatchObject({ token_type: 'Bearer', scope: 'svc.forms.read' });
  });

  it('beside the code flow keeps its rules: redirect URIs required, code the response type', async () => {
    const both = {
      client_name: 'Both flows',
      grant_types: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT],
    };
    expect(await register(enterprise.oauth, both).catch((e: unknown) => e)).toMatchObject({
      error: 'invalid_redirect_uri',
    });
    expect(await register(enterprise.oauth, { ...both, redirect_uris: [REDIRECT] })).toMatchObject({
      grant_types: both.grant_types,
      response_types: ['code'],
      redirect_uris: [REDIRECT],
    });
  });

  it('is refused where no identity provider is trusted, and without a name when it lists no redirect URI; nothing is stored', async () => {
    const before = (await tables.scanKeys()).length;
    expect(await register(oauth, enterpriseClient).catch((e: unknown) => e)).toMatchObject({
      error: 'invalid_client_metadata',
      description: `grant_types may only contain "authorization_code" and "refresh_token"; "${JWT_BEARER_GRANT}" is not supported.`,
    });
    expect(
      await register(enterprise.oauth, { grant_types: [JWT_BEARER_GRANT] }).catch((e: unknown) => e),
    ).toMatchObject({
      error: 'invalid_client_metadata',
      description: expect.stringContaining('client_name is required for a client without redirect URIs'),
    });
    expect(
      await register(enterprise.oauth, { grant_types: ['refresh_token'] }).catch((e: unknown) => e),
    ).toMatchObject({
      error: 'invalid_client_metadata',
      description: `grant_types must include "authorization_code" or "${JWT_BEARER_GRANT}": a refresh token only renews what the authorization code flow issued.`,
    });
    expect((await tables.scanKeys()).length).toBe(before);
  });
});
