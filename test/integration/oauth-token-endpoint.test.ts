import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGrantCredential, parseGrantCredential } from '#lib/keys/format';
import { authorize } from '#lib/oauth/authorize';
import { approve } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { register } from '#lib/oauth/registration';
import { revokeToken } from '#lib/oauth/revocation';
import { type TokenParams, type TokenResponse, token } from '#lib/oauth/token';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { putPolicy } from '#lib/workspaces/policy';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';

/**
 * The token endpoint (`POST /oauth/token`, RFC 6749 §5) and the revocation endpoint (RFC 7009)
 * as their use cases answer a client, on DynamoDB Local: each refusal's error and sentence, what
 * a refusal leaves of the grant, the tokens' answer, and which tokens revoke their grant.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1/callback';
const SECOND = 1000;
const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let clientId: string;
let otherClient: string;

beforeAll(async () => {
  tables = await createTestTables();
  rt = buildRuntime(
    {
      ...tables.config(),
      oauth: {
        issuer: 'https://keys.example.com',
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources: [RESOURCE],
      },
      mcpResource: RESOURCE,
    },
    { doc: tables.doc, now: clock.now },
  );
  oauth = rt.oauth as OAuthDeps;
  clientId = (await register(oauth, { client_name: 'Token client', redirect_uris: [REDIRECT] })).client_id;
  otherClient = (await register(oauth, { client_name: 'Other client', redirect_uris: [REDIRECT] })).client_id;
});
afterAll(() => tables.drop());

/** A member's approved request for `scopes`: the code, the grant's id and who approved it. */
async function approved(scopes: ('svc.forms.read' | 'svc.forms.write')[] = ['svc.forms.read']) {
  const member = await newMember(tables);
  const outcome = await authorize(oauth, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
    scope: scopes.join(' '),
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  const requestId = new URL(outcome.location).searchParams.get('request') as string;
  const { redirect_to } = await approve(oauth, member.userId, requestId, {
    workspaceIds: [member.workspaceId],
    scopes,
  });
  const code = new URL(redirect_to).searchParams.get('code') as string;
  const parsed = parseGrantCredential(code);
  if (!parsed.ok) throw new Error('no code');
  return { ...member, code, grantId: parsed.id };
}

type CodeOrRefresh = TokenParams & { grant_type: 'authorization_code' | 'refresh_token' };

const redemption = (code: string, extra: Partial<Omit<TokenParams, 'grant_type'>> = {}): CodeOrRefresh => ({
  grant_type: 'authorization_code',
  code,
  client_id: clientId,
  redirect_uri: REDIRECT,
  code_verifier: verifier,
  resource: RESOURCE,
  ...extra,
});

const refreshing = (
  refreshToken: string,
  extra: Partial<Omit<TokenParams, 'grant_type'>> = {},
): CodeOrRefresh => ({
  grant_type: 'refresh_token',
  refresh_token: refreshToken,
  client_id: clientId,
  ...extra,
});

/** The OAuth error a use case rejected with, as the client reads it. */
async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OAuthError);
  const { error, description, status } = err as OAuthError;
  return { error, description, status };
}

const invalidGrant = (description: string) => ({ error: 'invalid_grant', description, status: 400 });

async function grantRecord(grantId: string) {
  return rt.service.keys.get(grantId);
}

async function revocationEvents(grantId: string) {
  const { items } = await rt.service.keys.listLineageEvents(grantId, { limit: 10 });
  return items.filter((e) => e.type === 'grant.revoked');
}

describe('the token endpoint', () => {
  it('needs a grant type, and names the ones it supports for any other', async () => {
    expect(await refusal(token(oauth, {}))).toEqual({
      error: 'invalid_request',
      description: 'grant_type is required.',
      status: 400,
    });
    for (const grant_type of ['password', 'client_credentials', 'toString', '__proto__', 'constructor'])
      expect(await refusal(token(oauth, { grant_type }))).toEqual({
        error: 'unsupported_grant_type',
        description: 'Supported: authorization_code, refresh_token.',
        status: 400,
      });
  });
});

describe('an authorization code', () => {
  it('gives a Bearer access token for an hour, a refresh token, and the granted scopes', async () => {
    const { code, grantId } = await approved(['svc.forms.read', 'svc.forms.write']);
    const tokens = await token(oauth, redemption(code));
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/\S/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/\S/),
      scope: 'svc.forms.read svc.forms.write',
    });
    expect(parseGrantCredential(tokens.access_token)).toMatchObject({
      ok: true,
      kind: 'access_token',
      id: grantId,
    });
    expect(parseGrantCredential(tokens.refresh_token)).toMatchObject({
      ok: true,
      kind: 'refresh_token',
      id: grantId,
    });
    const verified = await rt.verify(tokens.access_token);
    expect(verified).toMatchObject({ outcome: 'valid', key_id: grantId });
    // The registration a grant used is kept (no longer expires unused).
    expect((await oauth.store.getClient(clientId))?.used_at).toBe(clock.now().toISOString());
  });

  it('is refused when it is not a code, or not one this server gave', async () => {
    const { code, grantId } = await approved();
    const wrongSecret = generateGrantCredential('authorization_code', grantId);
    const unknownGrant = generateGrantCredential('authorization_code', randomUUID());
    const notACode = generateGrantCredential('refresh_token', grantId);
    for (const presented of [undefined, 'garbage', notACode, unknownGrant, wrongSecret])
      expect(await refusal(token(oauth, redemption(presented as string)))).toEqual(
        invalidGrant('The authorization code is not valid.'),
      );
    // None of them was taken for a replay: the code still redeems, and the grant is not revoked.
    expect(await revocationEvents(grantId)).toEqual([]);
    await expect(token(oauth, redemption(code))).resolves.toMatchObject({ token_type: 'Bearer' });
  });

  it('is refused to another client, without a client_id, or to another redirect_uri or resource', async () => {
    const { code, grantId } = await approved();
    expect(await refusal(token(oauth, redemption(code, { client_id: undefined })))).toEqual({
      error: 'invalid_request',
      description: 'client_id is required.',
      status: 400,
    });
    expect(await refusal(token(oauth, redemption(code, { client_id: otherClient })))).toEqual(
      invalidGrant('The grant was not given to this client.'),
    );
    for (const redirect_uri of [undefined, 'http://127.0.0.1/callback/'])
      expect(await refusal(token(oauth, redemption(code, { redirect_uri })))).toEqual(
        invalidGrant('The redirect_uri differs from the authorization request’s.'),
      );
    expect(
      await refusal(token(oauth, redemption(code, { resource: 'https://mcp.example.com/other' }))),
    ).toEqual({
      error: 'invalid_target',
      description: 'The resource is not the MCP server this grant was given for.',
      status: 400,
    });
    expect(await revocationEvents(grantId)).toEqual([]);
    // The resource may be left out: the grant's is used.
    await expect(token(oauth, redemption(code, { resource: undefined }))).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('needs the PKCE verifier (43 to 128 unreserved characters) that matches the challenge', async () => {
    const { code } = await approved();
    for (const code_verifier of [
      undefined,
      'v'.repeat(42),
      'v'.repeat(129),
      `+${'v'.repeat(43)}`,
      `${'v'.repeat(43)}+`,
    ])
      expect(await refusal(token(oauth, redemption(code, { code_verifier })))).toEqual({
        error: 'invalid_request',
        description: 'A PKCE code_verifier (43–128 characters) is required.',
        status: 400,
      });
    for (const code_verifier of ['w'.repeat(43), 'v'.repeat(128), 'v'.repeat(44)])
      expect(await refusal(token(oauth, redemption(code, { code_verifier })))).toEqual(
        invalidGrant('The PKCE code_verifier does not match.'),
      );
    await expect(token(oauth, redemption(code))).resolves.toMatchObject({ expires_in: 3600 });
  });

  it('of a revoked grant is refused as revoked', async () => {
    const { code, grantId } = await approved();
    const grant = await grantRecord(grantId);
    if (!grant) throw new Error('no grant');
    await rt.service.keys.revoke(grant, clock.now(), []);
    expect(await refusal(token(oauth, redemption(code)))).toEqual(invalidGrant('The grant was revoked.'));
  });

  it('lives 60 seconds to the second', async () => {
    const { code } = await approved();
    clock.advance(60 * SECOND);
    expect(await refusal(token(oauth, redemption(code)))).toEqual(
      invalidGrant('The authorization code has expired (60 seconds); sign in again.'),
    );
  });

  it('presented again revokes the grant it made (code_replay, by the app); a wrong secret after it does not', async () => {
    const { code, grantId } = await approved();
    const tokens = await token(oauth, redemption(code));
    expect(
      await refusal(token(oauth, redemption(generateGrantCredential('authorization_code', grantId)))),
    ).toEqual(invalidGrant('The authorization code is not valid.'));
    expect((await rt.verify(tokens.access_token)).outcome).toBe('valid');
    expect(await refusal(token(oauth, redemption(code)))).toEqual(
      invalidGrant('The authorization code was already used; the grant it made is revoked.'),
    );
    expect((await rt.verify(tokens.access_token)).outcome).toBe('revoked');
    expect(await revocationEvents(grantId)).toMatchObject([
      { details: { reason: 'code_replay' }, actor: { type: 'oauth_client', id: clientId } },
    ]);
    // Presented a third time: the grant is revoked already, and no second event is written.
    await refusal(token(oauth, redemption(code)));
    expect(await revocationEvents(grantId)).toHaveLength(1);
  });

  it('redeemed by two requests at once gives tokens to one; the other revokes the grant', async () => {
    const { code, grantId } = await approved();
    const results = await Promise.allSettled([
      token(oauth, redemption(code)),
      token(oauth, redemption(code)),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({
      error: 'invalid_grant',
      description: 'The authorization code was already used; the grant it made is revoked.',
    });
    expect((await grantRecord(grantId))?.revoked_at).toBeDefined();
    expect(await revocationEvents(grantId)).toMatchObject([{ details: { reason: 'code_replay' } }]);
  });
});

describe('a refresh token', () => {
  async function issued(scopes: ('svc.forms.read' | 'svc.forms.write')[] = ['svc.forms.read']) {
    const member = await approved(scopes);
    return { ...member, tokens: await token(oauth, redemption(member.code)) };
  }

  it('is refused when it is not one, or not this grant’s current or recently replaced one', async () => {
    const { tokens, grantId } = await issued();
    for (const presented of [
      undefined,
      'garbage',
      tokens.access_token,
      generateGrantCredential('refresh_token', grantId),
      generateGrantCredential('refresh_token', randomUUID()),
    ])
      expect(await refusal(token(oauth, refreshing(presented as string)))).toEqual(
        invalidGrant('The refresh token is not valid.'),
      );
    expect(await revocationEvents(grantId)).toEqual([]);
  });

  it('is refused to another client or for another resource, and names the grant’s state once it ended', async () => {
    const { tokens, grantId } = await issued();
    expect(
      await refusal(token(oauth, refreshing(tokens.refresh_token, { client_id: undefined }))),
    ).toMatchObject({
      error: 'invalid_request',
      description: 'client_id is required.',
    });
    expect(await refusal(token(oauth, refreshing(tokens.refresh_token, { client_id: otherClient })))).toEqual(
      invalidGrant('The grant was not given to this client.'),
    );
    expect(
      await refusal(
        token(oauth, refreshing(tokens.refresh_token, { resource: 'https://other.example.com/mcp' })),
      ),
    ).toMatchObject({ error: 'invalid_target' });
    const grant = await grantRecord(grantId);
    if (!grant) throw new Error('no grant');
    await rt.service.keys.revoke(grant, clock.now(), []);
    expect(await refusal(token(oauth, refreshing(tokens.refresh_token)))).toEqual(
      invalidGrant('The grant is revoked; sign in again.'),
    );
  });

  it('may keep fewer scopes or the same, never add one, nor name an unknown one', async () => {
    const { tokens } = await issued(['svc.forms.read']);
    for (const scope of ['svc.forms.read svc.forms.write', 'svc.forms.everything'])
      expect(await refusal(token(oauth, refreshing(tokens.refresh_token, { scope })))).toEqual({
        error: 'invalid_scope',
        description: 'A refresh cannot add scopes the person did not grant.',
        status: 400,
      });
    const same = await token(oauth, refreshing(tokens.refresh_token, { scope: 'svc.forms.read' }));
    expect(same.scope).toBe('svc.forms.read');
    // An empty scope asks the default (read), which the grant has.
    await expect(token(oauth, refreshing(same.refresh_token, { scope: '' }))).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('is refused once the person has no role left in the grant’s workspaces', async () => {
    const { tokens, userId, workspaceId } = await issued();
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.membershipsTable, Key: { pk: userId, sk: workspaceId } }),
    );
    expect(await refusal(token(oauth, refreshing(tokens.refresh_token)))).toEqual(
      invalidGrant('The person no longer has access to any of the grant’s workspaces.'),
    );
  });

  it('just replaced is usable until its 60th second; presented then, it revokes the grant', async () => {
    const { tokens, grantId } = await issued();
    await token(oauth, refreshing(tokens.refresh_token));
    clock.advance(60 * SECOND);
    expect(await refusal(token(oauth, refreshing(tokens.refresh_token)))).toEqual(
      invalidGrant('The refresh token was already used; the grant is revoked. Sign in again.'),
    );
    expect(await revocationEvents(grantId)).toMatchObject([{ details: { reason: 'refresh_reuse' } }]);
  });

  it('is remembered among the five last replaced ones only: an older one is merely not valid', async () => {
    const { tokens, grantId } = await issued();
    const replaced = [tokens.refresh_token];
    let current = tokens;
    for (let i = 0; i < 6; i++) {
      current = await token(oauth, refreshing(current.refresh_token));
      replaced.push(current.refresh_token);
    }
    const item = (await grantRecord(grantId))?.grant;
    expect(item?.replaced_refresh).toHaveLength(5);
    expect(await refusal(token(oauth, refreshing(replaced[0] as string)))).toEqual(
      invalidGrant('The refresh token is not valid.'),
    );
    // The second oldest is still within its grace: it refreshes.
    await expect(token(oauth, refreshing(replaced[1] as string))).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('used once the access token it came with expired keeps no previous access token', async () => {
    const { tokens, grantId } = await issued();
    clock.advance(3600 * SECOND);
    await token(oauth, refreshing(tokens.refresh_token));
    const grant = (await grantRecord(grantId))?.grant;
    expect(grant).not.toHaveProperty('previous_access');
    expect(grant?.replaced_refresh).toHaveLength(1);
  });

  it('used while the access token lives keeps it for a minute at most', async () => {
    const { tokens, grantId } = await issued();
    const before = (await grantRecord(grantId))?.grant?.access;
    clock.advance(10 * SECOND);
    await token(oauth, refreshing(tokens.refresh_token));
    expect((await grantRecord(grantId))?.grant?.previous_access).toEqual({
      digest: before?.digest,
      until: new Date(clock.now().getTime() + 60 * SECOND).toISOString(),
    });
  });

  it('without a scope keeps the grant’s, whatever they are (no read asked of a write-only grant)', async () => {
    const { tokens } = await issued(['svc.forms.write']);
    expect((await token(oauth, refreshing(tokens.refresh_token))).scope).toBe('svc.forms.write');
  });

  it('is refused once a workspace policy no longer allows the grant, before its fan-out runs', async () => {
    const { tokens, workspaceId } = await issued();
    const owner = `owner-${randomUUID()}`;
    await tables.setRole(owner, workspaceId, 'owner');
    await putPolicy(rt.governance, {
      userId: owner,
      workspaceId,
      policy: {
        mcp_access: 'enabled',
        allowed_scopes: ['svc.forms.read'],
        max_expiry_days: null,
        oauth_clients: 'verified',
      },
    });
    expect(await refusal(token(oauth, refreshing(tokens.refresh_token)))).toEqual(
      invalidGrant('A workspace policy no longer allows this grant; sign in again.'),
    );
  });

  it('retried against concurrent refreshes three times, then temporarily_unavailable (503)', async () => {
    const { tokens } = await issued();
    let tries = 0;
    const losing: OAuthDeps = {
      ...oauth,
      store: {
        ...oauth.store,
        replaceTokens: async () => {
          tries++;
          return false;
        },
      },
    };
    expect(await refusal(token(losing, refreshing(tokens.refresh_token)))).toEqual({
      error: 'temporarily_unavailable',
      description: 'Too many concurrent refreshes of this grant; retry.',
      status: 503,
    });
    expect(tries).toBe(3);
  });
});

describe('the revocation endpoint', () => {
  async function issued() {
    const member = await approved();
    return { ...member, tokens: await token(oauth, redemption(member.code)) };
  }

  it('revokes the grant of its access token or its refresh token, as the app', async () => {
    for (const which of ['access_token', 'refresh_token'] as const) {
      const { tokens, grantId } = await issued();
      await revokeToken(oauth, { token: tokens[which], client_id: clientId });
      expect((await rt.verify(tokens.access_token)).outcome).toBe('revoked');
      expect(await revocationEvents(grantId)).toMatchObject([
        { details: { reason: 'client' }, actor: { type: 'oauth_client', id: clientId } },
      ]);
    }
  });

  it('revokes nothing for a code, another client’s call, a forged secret or a token already expired', async () => {
    const member = await approved();
    await revokeToken(oauth, { token: member.code });
    const tokens: TokenResponse = await token(oauth, redemption(member.code));
    await revokeToken(oauth, { token: tokens.refresh_token, client_id: otherClient });
    await revokeToken(oauth, { token: generateGrantCredential('access_token', member.grantId) });
    await revokeToken(oauth, { token: generateGrantCredential('refresh_token', randomUUID()) });
    await revokeToken(oauth, { token: 'garbage' });
    await revokeToken(oauth, {});
    expect((await rt.verify(tokens.access_token)).outcome).toBe('valid');
    clock.advance(3600 * SECOND);
    await revokeToken(oauth, { token: tokens.access_token });
    expect(await revocationEvents(member.grantId)).toEqual([]);
    // The refresh token still revokes it without a client_id.
    await revokeToken(oauth, { token: tokens.refresh_token });
    expect(await revocationEvents(member.grantId)).toHaveLength(1);
  });

  it('revokes with the access token a refresh replaced, for its minute of grace only', async () => {
    const a = await issued();
    await token(oauth, refreshing(a.tokens.refresh_token));
    await revokeToken(oauth, { token: a.tokens.access_token });
    expect(await revocationEvents(a.grantId)).toHaveLength(1);
    const b = await issued();
    await token(oauth, refreshing(b.tokens.refresh_token));
    clock.advance(60 * SECOND);
    await revokeToken(oauth, { token: b.tokens.access_token });
    expect(await revocationEvents(b.grantId)).toEqual([]);
  });
});
