import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import { revokeLeakedKeys } from '#lib/leaks/revoke-leaked';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { listWorkspaceKeys } from '#lib/workspaces/keys';
import { applyWorkspacePolicy, putPolicy } from '#lib/workspaces/policy';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { oauthOver } from '#test/support/oauth-deps';

/**
 * Grants are credentials like keys (contract §15): in the person's list and the workspace's,
 * revoked by the person, refused by rotate, cut off by a policy whose `oauth_clients` no longer
 * admits their app or whose `credential_kinds` no longer admits grants (and refused on consent and
 * refresh), and revoked when a token leaks. Driven
 * through the flow's use cases on DynamoDB Local, with a client resolver standing in for the
 * metadata fetch and the registrations.
 */
let tables: TestTables;
let rt: Runtime;
let oauth: OAuthDeps;
const RESOURCE = 'https://mcp.example.com/mcp';

const verified: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Example app',
  redirect_uris: ['https://app.example.com/callback'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};
const unverified: OAuthClient = {
  client_id: randomUUID(),
  client_name: 'Unverified app',
  redirect_uris: ['http://127.0.0.1/callback'],
  verified_domain: null,
  registration: 'dynamic',
};

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  oauth = oauthOver(tables, [RESOURCE], [verified, unverified]);
});
afterAll(() => tables.drop());

const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function workspace(role: Role = 'editor') {
  const id = randomUUID();
  const [owner, person] = [`owner-${randomUUID()}`, `person-${randomUUID()}`];
  await tables.setRole(owner, id, 'owner');
  await tables.setRole(person, id, role);
  return { id, owner, person };
}

/** A new authorization request of `client` for the resource: its id, as the consent page gets it. */
async function consentRequest(client: OAuthClient): Promise<string> {
  const outcome = await authorize(oauth, {
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0] as string,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
    resource: RESOURCE,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

/** A request for `client`, approved by `person` in `workspaceId`: the grant's tokens and id. */
async function connect(client: OAuthClient, person: string, workspaceId: string) {
  const requestId = await consentRequest(client);
  const { redirect_to } = await approve(oauth, person, requestId, {
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.read'],
  });
  const code = new URL(redirect_to).searchParams.get('code') as string;
  const tokens = await token(oauth, {
    grant_type: 'authorization_code',
    code,
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0] as string,
    code_verifier: verifier,
  });
  const grantId = (await rt.service.keys.listByUser(person, { limit: 10, now: new Date() })).items.find(
    (k) => k.kind === 'oauth_grant' && k.grant?.client.id === client.client_id,
  )?.id as string;
  return { tokens, grantId };
}

const refresh = (client: OAuthClient, refreshToken: string) =>
  token(oauth, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
  });

describe('grants managed like keys', () => {
  it('shows a grant in the person’s list and the workspace’s, with its app; rotate refuses it; revoke ends it', async () => {
    const w = await workspace();
    const { tokens, grantId } = await connect(verified, w.person, w.id);
    expect((await rt.verify(tokens.access_token)).outcome).toBe('valid');

    const mine = await rt.service.keys.get(grantId);
    expect(mine).toMatchObject({ kind: 'oauth_grant', name: 'Example app' });
    const inWorkspace = await listWorkspaceKeys(rt.governance, {
      userId: w.owner,
      workspaceId: w.id,
      limit: 10,
    });
    expect(inWorkspace.data).toEqual([
      expect.objectContaining({
        id: grantId,
        kind: 'oauth_grant',
        client: { id: verified.client_id, name: 'Example app', verified_domain: 'app.example.com' },
      }),
    ]);
    expect(JSON.stringify(inWorkspace)).not.toContain(tokens.access_token.slice(14, 40));

    await expect(rotateKey(rt.service, w.person, grantId)).rejects.toMatchObject({ code: 'not_rotatable' });
    const revoked = await revokeKey(rt.service, w.person, grantId);
    expect(revoked).toMatchObject({ status: 'revoked', kind: 'oauth_grant' });
    expect((await rt.verify(tokens.access_token)).outcome).toBe('revoked');
    await expect(refresh(verified, tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    const events = await rt.service.keys.listLineageEvents(grantId, { limit: 10 });
    expect(events.items.map((e) => [e.type, e.details])).toEqual([
      ['grant.revoked', { reason: 'user' }],
      [
        'grant.created',
        expect.objectContaining({ client: expect.objectContaining({ id: verified.client_id }) }),
      ],
    ]);
  });

  it('obeys oauth_clients: consent and refresh refuse an app the policy excludes, and the fan-out cuts its grant off', async () => {
    const w = await workspace();
    const kept = await connect(verified, w.person, w.id);
    const dropped = await connect(unverified, w.person, w.id);

    const policy = {
      mcp_access: 'enabled' as const,
      allowed_scopes: ['svc.forms.read' as const],
      max_expiry_days: null,
    };
    const put = await putPolicy(rt.governance, {
      userId: w.owner,
      workspaceId: w.id,
      policy: { ...policy, oauth_clients: 'verified' },
    });
    expect(put.affected_keys, 'only the unverified app’s grant is refused').toBe(1);
    expect(await applyWorkspacePolicy(rt.governance, w.id)).toBe(1);

    // Its only workspace gone, the grant is revoked, as a key cut off from its last workspace is.
    expect((await rt.verify(dropped.tokens.access_token)).outcome).toBe('revoked');
    const cutOff = await rt.service.keys.listLineageEvents(dropped.grantId, { limit: 2 });
    expect(cutOff.items.map((e) => [e.type, e.details])).toEqual(
      expect.arrayContaining([
        ['grant.revoked', { reason: 'policy' }],
        ['key.workspace_removed', { workspace_id: w.id, reason: 'policy' }],
      ]),
    );
    expect((await rt.verify(kept.tokens.access_token)).outcome).toBe('valid');
    await expect(refresh(unverified, dropped.tokens.refresh_token)).rejects.toBeInstanceOf(OAuthError);
    await expect(refresh(verified, kept.tokens.refresh_token)).resolves.toMatchObject({
      token_type: 'Bearer',
    });

    // A new consent for the unverified app is refused as create would refuse a key.
    const requestId = await consentRequest(unverified);
    const refusal = await approve(oauth, w.person, requestId, {
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: 'workspace_policy_denied',
      errors: [expect.objectContaining({ message: expect.stringContaining('does not allow this app') })],
    });

    // A list of domains admits exactly those.
    await putPolicy(rt.governance, {
      userId: w.owner,
      workspaceId: w.id,
      policy: { ...policy, oauth_clients: ['other.example.org'] },
    });
    expect(await applyWorkspacePolicy(rt.governance, w.id)).toBe(1);
    expect((await rt.verify(kept.tokens.access_token)).outcome).not.toBe('valid');
  });

  it('obeys credential_kinds: the kind a policy no longer admits is cut off, refused on create, consent and refresh', async () => {
    const w = await workspace();
    const key = await createKey(rt.service, {
      userId: w.person,
      name: 'laptop',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    });
    const app = await connect(verified, w.person, w.id);
    const policy = (credential_kinds: ('api_key' | 'oauth_grant')[]) => ({
      mcp_access: 'enabled' as const,
      allowed_scopes: ['svc.forms.read' as const],
      max_expiry_days: null,
      credential_kinds,
    });

    // Apps only: the key is cut off, the grant kept.
    const appsOnly = await putPolicy(rt.governance, {
      userId: w.owner,
      workspaceId: w.id,
      policy: policy(['oauth_grant']),
    });
    expect(appsOnly).toMatchObject({ credential_kinds: ['oauth_grant'], affected_keys: 1 });
    expect(await applyWorkspacePolicy(rt.governance, w.id)).toBe(1);
    expect((await rt.verify(key.apiKey)).outcome).toBe('revoked');
    expect((await rt.verify(app.tokens.access_token)).outcome).toBe('valid');
    const keyEvents = await rt.service.keys.listLineageEvents(key.metadata.id, { limit: 5 });
    expect(keyEvents.items.map((e) => [e.type, e.details])).toContainEqual([
      'key.workspace_removed',
      { workspace_id: w.id, reason: 'policy' },
    ]);
    const refusedKey = await createKey(rt.service, {
      userId: w.person,
      name: 'again',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    }).catch((err: unknown) => err);
    expect(refusedKey).toMatchObject({
      code: 'workspace_policy_denied',
      errors: [
        expect.objectContaining({
          message: `workspace ${w.id} does not allow API keys (its policy limits which kinds of credential may reach it)`,
        }),
      ],
    });

    // Keys only: the grant is cut off, its refresh refused, a new consent refused.
    await putPolicy(rt.governance, { userId: w.owner, workspaceId: w.id, policy: policy(['api_key']) });
    expect(await applyWorkspacePolicy(rt.governance, w.id)).toBe(1);
    expect((await rt.verify(app.tokens.access_token)).outcome).toBe('revoked');
    await expect(refresh(verified, app.tokens.refresh_token)).rejects.toBeInstanceOf(OAuthError);
    const refusedConsent = await approve(oauth, w.person, await consentRequest(unverified), {
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    }).catch((err: unknown) => err);
    expect(refusedConsent).toMatchObject({
      code: 'workspace_policy_denied',
      errors: [expect.objectContaining({ message: expect.stringContaining('does not allow OAuth apps') })],
    });
    // A key may be created again.
    await expect(
      createKey(rt.service, {
        userId: w.person,
        name: 'new',
        workspaceIds: [w.id],
        scopes: ['svc.forms.read'],
      }),
    ).resolves.toMatchObject({ metadata: { workspace_ids: [w.id] } });
  });

  it('revokes the grant of a leaked access or refresh token, and says nothing of a forged one', async () => {
    const w = await workspace();
    // Two apps: the same app asking again would widen its one grant (scope step-up).
    const a = await connect(verified, w.person, w.id);
    const b = await connect(unverified, w.person, w.id);
    const actor = { type: 'public_report' as const, id: null };
    const forged = `${a.tokens.access_token.slice(0, 40)}${'0'.repeat(a.tokens.access_token.length - 40)}`;
    const verdicts = await revokeLeakedKeys(
      rt.service,
      [
        { token: a.tokens.access_token, source: null },
        { token: b.tokens.refresh_token, source: 'https://gist.example.com/x' },
        { token: forged, source: null },
      ],
      actor,
    );
    expect(verdicts.map((v) => [v.genuine, v.revoked])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    for (const grant of [a, b]) {
      expect((await rt.verify(grant.tokens.access_token)).outcome).toBe('revoked');
      const events = await rt.service.keys.listLineageEvents(grant.grantId, { limit: 1 });
      expect(events.items[0]).toMatchObject({ type: 'grant.revoked', details: { reason: 'leak' } });
    }
  });
});
