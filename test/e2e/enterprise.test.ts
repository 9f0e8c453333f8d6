import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  devMember,
  jsonClient,
  presentKey,
  type RunningService,
  startService,
} from '#test/support/local-service';

/**
 * Enterprise-managed authorization against `npm start` (contract §17), with the MCP SDK v2
 * client's own `CrossAppAccessProvider`: the development IdP issues the person's ID token, the
 * client trades it there for an ID-JAG (RFC 8693), then the ID-JAG here for an access token
 * (jwt-bearer), and calls a tool. No consent screen: the IdP decided. Then the IdP as the switch:
 * one signal it pushes ends the person's grant and API keys; and what its policy refuses, as the
 * client shows it.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-enterprise-'));
let service: RunningService;
let base: string;
const call = jsonClient(() => base);

beforeAll(async () => {
  service = await startService({ DATA_DIR: dataDir });
  base = service.url;
});
afterAll(async () => {
  await service?.stop();
});

/** A client registered by DCR (a public client: it authenticates with `none`, never a secret). */
async function registeredClient() {
  const registered = await call('POST', '/oauth/register', {
    body: { client_name: 'Enterprise assistant', redirect_uris: ['http://127.0.0.1:53682/callback'] },
  });
  expect(registered.status).toBe(201);
  return registered.json.client_id as string;
}

/** The person's ID token from the development IdP (their sign-in to the organisation). */
async function idToken(sub: string) {
  const reply = await call('POST', '/_dev/idp/id-token', { body: { sub } });
  // The person's sign-in at the IdP failed: the client's assertion callback fails with the IdP's words.
  if (reply.status !== 200) throw new Error(`Sign-in at the identity provider failed: ${reply.json.message}`);
  return reply.json.id_token as string;
}

/** An MCP client that reaches the service through the person's IdP, as an enterprise's AI client does. */
function enterpriseClient(clientId: string, sub: string) {
  const provider = new CrossAppAccessProvider({
    assertion: async (ctx) => {
      const grant = await discoverAndRequestJwtAuthGrant({
        idpUrl: `${base}/_dev/idp`,
        audience: ctx.authorizationServerUrl,
        resource: ctx.resourceUrl,
        idToken: await idToken(sub),
        clientId,
        scope: ctx.scope,
        fetchFn: ctx.fetchFn,
      });
      return grant.jwtAuthGrant;
    },
    clientId,
    // A public client: no secret, so the SDK authenticates with `none` (what the metadata offers).
    clientSecret: undefined as unknown as string,
    expectedIssuer: base,
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
  return { provider, transport, client: new Client({ name: 'enterprise-e2e', version: '1.0.0' }) };
}

describe('an AI client with CrossAppAccessProvider against npm start', () => {
  it('signs in through the IdP without a consent screen and calls a tool', async () => {
    const sub = `user-${randomUUID()}`;
    const { token, workspaceId } = await devMember(call, sub);
    const clientId = await registeredClient();
    const { client, transport, provider } = enterpriseClient(clientId, sub);
    await client.connect(transport);
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
    expect(JSON.stringify(result.content)).toContain(workspaceId);
    expect(provider.tokens()).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i) });
    expect(provider.tokens()).not.toHaveProperty('refresh_token');
    await client.close();

    // The person sees the grant in their list: through their organisation's sign-in.
    const listed = await call('GET', '/v1/mcp/api-keys', { token });
    expect(listed.json.data).toEqual([
      expect.objectContaining({
        kind: 'enterprise_grant',
        name: 'Enterprise assistant',
        identity_provider: new URL(base).host,
        status: 'active',
      }),
    ]);
  });

  it('after the IdP disables the person, the same client’s next call is refused, and their API keys too', async () => {
    const sub = `user-${randomUUID()}`;
    const { token, workspaceId } = await devMember(call, sub);
    const key = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
    });
    expect(key.status).toBe(201);
    expect(await presentKey(base, key.json.api_key)).toBe(200);
    const clientId = await registeredClient();
    const { client, transport } = enterpriseClient(clientId, sub);
    await client.connect(transport);
    await client.callTool({ name: 'list_workspaces', arguments: {} });

    // One command: the IdP disables the person and pushes the event (RFC 8935).
    const pushed = await call('POST', '/_dev/idp/signals', { body: { event: 'account-disabled', sub } });
    expect(pushed.json).toEqual({ status: 202 });

    // The IdP now refuses the person too, so the client cannot sign in again: its call fails.
    await expect(client.callTool({ name: 'list_workspaces', arguments: {} })).rejects.toThrow(
      'Sign-in at the identity provider failed: The IdP disabled this person.',
    );
    await client.close();
    expect(await presentKey(base, key.json.api_key)).toBe(401);
    const listed = await call('GET', '/v1/mcp/api-keys?status=revoked', { token });
    expect(listed.json.data).toHaveLength(2);
    const history = await call('GET', `/v1/mcp/api-keys/${key.json.metadata.id}/events`, { token });
    expect(history.json.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'key.revoked',
          actor: { type: 'identity_provider', id: `${base}/_dev/idp` },
          details: { reason: 'identity_provider' },
        }),
      ]),
    );

    // Their dashboard token is still valid, but nothing is minted for them: not a key, not a rotation.
    const again = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
    });
    expect(again.status).toBe(403);
    expect(again.json).toMatchObject({
      code: 'account_disabled',
      detail: expect.stringMatching(/^Your identity provider \(127\.0\.0\.1:\d+\) disabled your account at /),
    });
    expect((await call('GET', '/v1/mcp/api-keys?status=active', { token })).json.data).toEqual([]);

    // Until the IdP enables them again.
    const enabled = await call('POST', '/_dev/idp/signals', { body: { event: 'account-enabled', sub } });
    expect(enabled.json).toEqual({ status: 202 });
    const after = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
    });
    expect(after.status).toBe(201);
    expect(await presentKey(base, after.json.api_key)).toBe(200);
  });

  it('is refused when the IdP’s policy does not allow the client, and the client says so', async () => {
    const sub = `user-${randomUUID()}`;
    await devMember(call, sub);
    const clientId = await registeredClient();
    const policy = await call('PUT', '/_dev/idp/policy', {
      body: { allow: [{ client_id: 'someone-else', scopes: [] }] },
    });
    expect(policy.status).toBe(200);
    try {
      const { client, transport } = enterpriseClient(clientId, sub);
      await expect(client.connect(transport)).rejects.toThrow(/policy does not allow this client/);
    } finally {
      await call('PUT', '/_dev/idp/policy', { body: {} });
    }
  });
});
