import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialKind } from '#lib/access/credential-kinds';
import { createKey, listKeys, revokeKey } from '#lib/keys/lifecycle';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { applyWorkspacePolicy, putPolicy } from '#lib/workspaces/policy';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { ENTERPRISE, enterpriseRuntime, forgeries, type TestIdp } from '#test/support/idp';

/**
 * Enterprise-managed authorization (contract §17) on DynamoDB Local: an identity provider's
 * ID-JAG exchanged at the token endpoint for an enterprise grant's access token, every refusal
 * rule (each leaving nothing written), the grant made once and renewed, and the workspace policy's
 * `credential_kinds`. Two first exchanges racing, and a cut-off kept by a renewal, are
 * test/integration/enterprise-grant-renewal.test.ts; the claims no forgery reaches,
 * test/integration/enterprise-grant-refusals.test.ts.
 */

const { issuer: ISSUER, resource: RESOURCE, idp: IDP } = ENTERPRISE;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const MINUTE = 60_000;

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let idp: TestIdp;
let clientId: string;
let otherClient: string;

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(tables, clock));
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  otherClient = (await register(oauth, { client_name: 'Other', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  idp.defaults.client_id = clientId;
});
afterAll(() => tables.drop());

const exchange = (assertion: string, extra: Record<string, string> = {}) =>
  token(oauth, { grant_type: JWT_BEARER, assertion, client_id: clientId, ...extra });

/** The OAuth error a use case rejected with, as the client reads it. */
async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof OAuthError)) throw new Error(`expected an OAuthError, got ${String(err)}`);
  return { error: err.error, status: err.status, error_description: err.description };
}

/** A policy admitting `kinds` of credential (and the read scope). */
const admitting = (credential_kinds: CredentialKind[]) => ({
  mcp_access: 'enabled' as const,
  allowed_scopes: ['svc.forms.read' as const],
  max_expiry_days: null,
  credential_kinds,
});

/** Every item of the keys table, to show that a refusal wrote nothing. */
const snapshot = async () => JSON.stringify((await tables.scanKeys()).map((i) => `${i.pk}|${i.sk}`).sort());

describe('the jwt-bearer grant with an ID-JAG', () => {
  it('makes an enterprise grant and answers an access token without a refresh token; the token verifies', async () => {
    const member = await newMember(tables);
    const answer = await exchange(
      await idp.idJag({ sub: member.userId, scope: 'svc.forms.read svc.forms.write' }),
      {
        scope: 'svc.forms.read',
      },
    );
    expect(answer).toEqual({
      access_token: expect.stringMatching(/^svc_mcp_at_v1_/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'svc.forms.read',
    });
    expect(answer).not.toHaveProperty('refresh_token');
    const verified = await rt.verify(answer.access_token);
    expect(verified).toMatchObject({
      outcome: 'valid',
      kind: 'oauth',
      user_id: member.userId,
      client_id: clientId,
      identity_provider: IDP,
      scopes: ['svc.forms.read'],
    });
    const listed = await listKeys(rt.service, { userId: member.userId, limit: 10 });
    expect(listed.data).toEqual([
      expect.objectContaining({
        kind: 'enterprise_grant',
        name: 'Assistant',
        identity_provider: 'idp.example.org',
        workspace_ids: [member.workspaceId],
        scopes: ['svc.forms.read'],
        status: 'active',
        expires_at: new Date(clock.now().getTime() + 30 * 24 * 60 * MINUTE).toISOString(),
      }),
    ]);
    expect(listed.data[0]).not.toHaveProperty('redirect_host');
  });

  it('writes grant.created with via identity_provider and the IdP', async () => {
    const member = await newMember(tables);
    await exchange(await idp.idJag({ sub: member.userId }));
    const [grant] = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    const events = (await tables.scanKeys()).filter(
      (i) => i.key_id === grant?.id && i.type === 'grant.created',
    );
    expect(events).toEqual([
      expect.objectContaining({
        actor: { type: 'user', id: member.userId },
        details: expect.objectContaining({ via: 'identity_provider', idp: IDP, scopes: ['svc.forms.read'] }),
      }),
    ]);
  });

  it('renews the one grant on a later exchange: same id, expiry moved on, both access tokens valid', async () => {
    const member = await newMember(tables);
    const first = await exchange(await idp.idJag({ sub: member.userId }));
    clock.advance(10 * MINUTE);
    const second = await exchange(
      await idp.idJag({ sub: member.userId, scope: 'svc.forms.read svc.forms.write' }),
      {
        scope: 'svc.forms.read svc.forms.write',
      },
    );
    const listed = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      scopes: ['svc.forms.read', 'svc.forms.write'],
      expires_at: new Date(clock.now().getTime() + 30 * 24 * 60 * MINUTE).toISOString(),
    });
    expect(await rt.verify(second.access_token)).toMatchObject({ outcome: 'valid', key_id: listed[0]?.id });
    // The first token stays valid until its own end (another of the person's devices may hold it).
    expect(await rt.verify(first.access_token)).toMatchObject({ outcome: 'valid', key_id: listed[0]?.id });
  });

  it('a revoked enterprise grant stays revoked; the next exchange makes a new one', async () => {
    const member = await newMember(tables);
    const first = await exchange(await idp.idJag({ sub: member.userId }));
    const [grant] = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    await revokeKey(rt.service, member.userId, grant?.id as string);
    expect((await rt.verify(first.access_token)).outcome).toBe('revoked');
    const second = await exchange(await idp.idJag({ sub: member.userId }));
    const verified = await rt.verify(second.access_token);
    expect(verified).toMatchObject({ outcome: 'valid' });
    expect((verified as { key_id: string }).key_id).not.toBe(grant?.id);
  });

  it('reaches the person’s workspaces whose policies admit it, and none the person is not a member of', async () => {
    const member = await newMember(tables);
    const closed = randomUUID();
    const keysOnly = randomUUID();
    await tables.setRole(member.userId, closed, 'admin');
    await tables.setRole(member.userId, keysOnly, 'admin');
    await putPolicy(rt.governance, {
      userId: member.userId,
      workspaceId: closed,
      policy: { mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
    });
    await putPolicy(rt.governance, {
      userId: member.userId,
      workspaceId: keysOnly,
      policy: admitting(['api_key']),
    });
    const answer = await exchange(await idp.idJag({ sub: member.userId }));
    expect(await rt.verify(answer.access_token)).toMatchObject({
      outcome: 'valid',
      workspaces: [expect.objectContaining({ id: member.workspaceId })],
    });
  });

  it('a workspace that admits only enterprise grants refuses keys and admits the exchange', async () => {
    const member = await newMember(tables, 'admin');
    await putPolicy(rt.governance, {
      userId: member.userId,
      workspaceId: member.workspaceId,
      policy: admitting(['enterprise_grant']),
    });
    await expect(
      createKey(rt.service, {
        userId: member.userId,
        name: 'k',
        workspaceIds: [member.workspaceId],
        scopes: ['svc.forms.read'],
      }),
    ).rejects.toMatchObject({ code: 'workspace_policy_denied' });
    const answer = await exchange(await idp.idJag({ sub: member.userId }));
    expect((await rt.verify(answer.access_token)).outcome).toBe('valid');
  });

  it('the policy fan-out cuts an enterprise grant off when its workspace stops admitting the kind', async () => {
    const member = await newMember(tables, 'admin');
    const answer = await exchange(await idp.idJag({ sub: member.userId }));
    const result = await putPolicy(rt.governance, {
      userId: member.userId,
      workspaceId: member.workspaceId,
      policy: admitting(['api_key', 'oauth_grant']),
    });
    expect(result.affected_keys).toBe(1);
    // The cut-offs fan out from the policy's event.
    expect(await applyWorkspacePolicy(rt.governance, member.workspaceId)).toBe(1);
    // Cut off from the only workspace it reached: revoked, as a key would be (contract §12).
    expect((await rt.verify(answer.access_token)).outcome).toBe('revoked');
    // The next exchange does not bring the workspace back: it admits no enterprise grant.
    expect(await refusal(exchange(await idp.idJag({ sub: member.userId })))).toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('refuses a person with no workspace that admits it, writing nothing', async () => {
    const before = await snapshot();
    expect(await refusal(exchange(await idp.idJag({ sub: `nobody-${randomUUID()}` })))).toEqual({
      error: 'invalid_grant',
      status: 400,
      error_description: expect.stringContaining('None of the person’s workspaces admits this app'),
    });
    expect(await snapshot()).toBe(before);
  });
});

describe('the ID-JAG’s rules (contract §17), each refusal leaving nothing written', () => {
  let member: Awaited<ReturnType<typeof newMember>>;
  beforeAll(async () => {
    member = await newMember(tables);
  });
  const now = () => Math.floor(clock.now().getTime() / 1000);
  const forged = () => forgeries(idp, 'oauth-id-jag+jwt');
  /** An ID-JAG's claims that pass every rule: each case breaks one thing besides them. */
  const claims = () => ({
    iss: IDP,
    aud: ISSUER,
    sub: member.userId,
    client_id: clientId,
    resource: RESOURCE,
    jti: randomUUID(),
    iat: now(),
    exp: now() + 300,
  });

  it.each([
    [
      'a forged signature (another key under the IdP’s kid)',
      () => forged().otherKey(claims()),
      'invalid_grant',
      'signature does not verify',
    ],
    ['alg none', () => forged().algNone(claims()), 'invalid_grant', 'asymmetric algorithm'],
    [
      'HS256 with the IdP’s public key as the secret',
      () => forged().publicKeyAsSecret(claims()),
      'invalid_grant',
      'asymmetric algorithm',
    ],
    [
      'an unknown kid',
      () => idp.idJag({ sub: member.userId }, { kid: 'made-up' }),
      'invalid_grant',
      'no key with the token’s kid',
    ],
    [
      'an untrusted issuer',
      () => idp.idJag({ sub: member.userId, iss: 'https://evil.example' } as never),
      'invalid_grant',
      'not issued by an identity provider this service trusts',
    ],
    [
      'another audience',
      () => idp.idJag({ sub: member.userId, aud: 'https://other-as.example' }),
      'invalid_grant',
      'audience',
    ],
    [
      'another client’s ID-JAG',
      () => idp.idJag({ sub: member.userId, client_id: otherClient }),
      'invalid_grant',
      'issued to another client',
    ],
    [
      'no resource',
      () => idp.idJag({ sub: member.userId, resource: undefined } as never),
      'invalid_grant',
      'no resource claim',
    ],
    [
      'a foreign resource',
      () => idp.idJag({ sub: member.userId, resource: 'https://elsewhere.example/mcp' }),
      'invalid_target',
      'not an MCP server of this service',
    ],
    [
      'an expired one',
      () => idp.idJag({ sub: member.userId, iat: now() - 400, exp: now() - 61 }),
      'invalid_grant',
      'expired',
    ],
    [
      'one living longer than 10 minutes',
      () => idp.idJag({ sub: member.userId, iat: now(), exp: now() + 601 }),
      'invalid_grant',
      'at most 10 minutes',
    ],
    [
      'a wrong typ',
      () => idp.idJag({ sub: member.userId }, { typ: 'JWT' }),
      'invalid_grant',
      'typ must be oauth-id-jag+jwt',
    ],
  ])('refuses %s', async (_name, make, error, sentence) => {
    const before = await snapshot();
    expect(await refusal(exchange(await make()))).toEqual({
      error,
      status: 400,
      error_description: expect.stringContaining(sentence),
    });
    expect(await snapshot()).toBe(before);
  });

  it('refuses a replayed jti and writes nothing the second time', async () => {
    const jag = await idp.idJag({ sub: member.userId });
    await exchange(jag);
    const before = await snapshot();
    expect(await refusal(exchange(jag))).toEqual({
      error: 'invalid_grant',
      status: 400,
      error_description: expect.stringContaining('already used'),
    });
    expect(await snapshot()).toBe(before);
  });

  it('refuses a client the server does not know, and an assertion that is missing', async () => {
    expect(
      await refusal(token(oauth, { grant_type: JWT_BEARER, assertion: 'x', client_id: randomUUID() })),
    ).toMatchObject({
      error: 'invalid_client',
      status: 401,
    });
    expect(await refusal(token(oauth, { grant_type: JWT_BEARER, client_id: clientId }))).toMatchObject({
      error: 'invalid_request',
    });
  });

  it('intersects the scopes asked for with the ID-JAG’s; none in common is invalid_scope', async () => {
    const answer = await exchange(await idp.idJag({ sub: member.userId, scope: 'svc.forms.read' }), {
      scope: 'svc.forms.read svc.forms.write',
    });
    expect(answer.scope).toBe('svc.forms.read');
    expect(
      await refusal(
        exchange(await idp.idJag({ sub: member.userId, scope: 'svc.forms.read' }), {
          scope: 'svc.forms.write',
        }),
      ),
    ).toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('fetches the IdP’s keys again for an unknown kid at most once per 5 minutes (key rotation)', async () => {
    // An hour on, the kept JWKS is old: the next exchange fetches it again.
    clock.advance(61 * MINUTE);
    const before = idp.fetch.count();
    await exchange(await idp.idJag({ sub: member.userId }));
    const fetched = idp.fetch.count();
    expect(fetched).toBeGreaterThan(before);
    await idp.rotate();
    // Within 5 minutes of the last fetch: the new kid is not looked for yet.
    const early = await refusal(exchange(await idp.idJag({ sub: member.userId })));
    expect(early.error_description).toContain('no key with the token’s kid');
    expect(idp.fetch.count()).toBe(fetched);
    clock.advance(5 * MINUTE);
    const answer = await exchange(await idp.idJag({ sub: member.userId }));
    expect(answer.token_type).toBe('Bearer');
    expect(idp.fetch.count()).toBeGreaterThan(fetched);
  });
});
