import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { createKey, listKeys, rotateKey } from '#lib/keys/lifecycle';
import { authorize } from '#lib/oauth/authorize';
import { approve } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { receiveSignal } from '#lib/oauth/identity-signals';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { ENTERPRISE, enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * A person their identity provider disabled mints nothing (contract §17, issue 59 item 1): after
 * `account-disabled` or `account-purged`, create, rotate, consent's approve and the ID-JAG exchange
 * are each refused with a sentence naming the IdP, in the mint's own transaction (so a mint that
 * read the person before the signal still cannot land), until the IdP pushes `account-enabled`.
 */

const { issuer: ISSUER, idp: IDP, resource: RESOURCE } = ENTERPRISE;
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let tables: TestTables;
const clock = manualClock(new Date('2026-12-06T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let idp: TestIdp;
let clientId: string;

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(tables, clock));
  clientId = (await register(oauth, { client_name: 'App', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
});
afterAll(() => tables.drop());

/** A SET from the test IdP about `sub`. */
const signal = async (sub: string, event: string) =>
  receiveSignal(
    oauth,
    await idp.sign(
      {
        iss: IDP,
        aud: ISSUER,
        iat: Math.floor(clock.now().getTime() / 1000),
        jti: randomUUID(),
        sub_id: { format: 'iss_sub', iss: IDP, sub },
        events: { [`${RISC}${event}`]: {} },
      },
      { typ: 'secevent+jwt' },
    ),
  );

const newKey = (member: { userId: string; workspaceId: string }) =>
  createKey(rt.service, {
    userId: member.userId,
    name: 'laptop',
    workspaceIds: [member.workspaceId],
    scopes: ['svc.forms.read'],
  });

const exchange = async (sub: string) =>
  token(oauth, {
    grant_type: JWT_BEARER,
    assertion: await idp.idJag({ sub, client_id: clientId }),
    client_id: clientId,
  });

/** What a call was refused with. */
async function refusal(
  pending: Promise<unknown>,
): Promise<{ code: string; detail: string; status?: number }> {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  if (err instanceof AppError) return { code: err.code, detail: err.detail, status: err.status };
  if (err instanceof OAuthError) return { code: err.error, detail: err.description };
  throw err;
}

const DISABLED =
  /^Your identity provider \(idp\.example\.org\) disabled your account at 2026-12-06 09:00 UTC: no key or app can be created for it until the identity provider enables it again\.$/;

const active = async (userId: string) =>
  (await listKeys(rt.service, { userId, limit: 100, status: 'active' })).data;

/** A pending consent request of the client, for the person to approve. */
async function consentRequest(): Promise<string> {
  const outcome = await authorize(oauth, {
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1/cb',
    response_type: 'code',
    code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
    code_challenge_method: 'S256',
    resource: RESOURCE,
    scope: 'svc.forms.read',
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

describe('after account-disabled', () => {
  it('refuses create, approve and the exchange with 403 account_disabled naming the IdP, and revokes with the reason', async () => {
    const member = await newMember(tables);
    await newKey(member);
    await exchange(member.userId);
    const requestId = await consentRequest();
    expect(await signal(member.userId, 'account-disabled')).toEqual({ repeated: false, revoked: 2 });

    expect(await refusal(newKey(member))).toEqual({
      code: 'account_disabled',
      status: 403,
      detail: expect.stringMatching(DISABLED),
    });
    expect(
      await refusal(
        approve(oauth, member.userId, requestId, {
          workspaceIds: [member.workspaceId],
          scopes: ['svc.forms.read'],
        }),
      ),
    ).toEqual({ code: 'account_disabled', status: 403, detail: expect.stringMatching(DISABLED) });
    expect(await refusal(exchange(member.userId))).toEqual({
      code: 'invalid_grant',
      detail: expect.stringMatching(DISABLED),
    });
    expect(await active(member.userId)).toEqual([]);

    const revokedEvents = (await tables.scanKeys()).filter(
      (i) => i.user_id === member.userId && (i.type === 'key.revoked' || i.type === 'grant.revoked'),
    );
    expect(revokedEvents.map((e) => e.details)).toEqual([
      { reason: 'identity_provider' },
      { reason: 'identity_provider' },
    ]);
  });

  it('says "deleted" after account-purged', async () => {
    const member = await newMember(tables);
    await signal(member.userId, 'account-purged');
    expect((await refusal(newKey(member))).detail).toContain('(idp.example.org) deleted your account');
  });

  it('account-enabled lets the person mint again; what was revoked stays revoked', async () => {
    const member = await newMember(tables);
    const before = await newKey(member);
    await signal(member.userId, 'account-disabled');
    expect((await refusal(newKey(member))).code).toBe('account_disabled');
    expect(await signal(member.userId, 'account-enabled')).toEqual({ repeated: false, revoked: 0 });
    const after = await newKey(member);
    expect((await active(member.userId)).map((k) => k.id)).toEqual([after.metadata.id]);
    expect((await rt.verify(before.apiKey)).outcome).toBe('revoked');
    expect((await exchange(member.userId)).access_token).toEqual(expect.any(String));
  });

  it('another IdP’s enabling does not lift this one’s disabling', async () => {
    const member = await newMember(tables);
    await signal(member.userId, 'account-disabled');
    const store = oauth.enterprise?.store;
    expect(await store?.enablePerson(member.userId, 'https://other-idp.example')).toBe(false);
    expect((await refusal(newKey(member))).code).toBe('account_disabled');
    expect(await store?.enablePerson(member.userId, IDP)).toBe(true);
    expect((await newKey(member)).apiKey).toMatch(/^svc_mcp_v1_/);
  });
});

describe('a mint that read the person before the signal', () => {
  /** The disabling alone, as the signal writes it before it lists and revokes anything. */
  const disableOnly = (userId: string) =>
    oauth.enterprise?.store.disablePerson(userId, {
      issuer: IDP,
      event: 'account-disabled',
      at: clock.now().toISOString(),
    });

  it('cannot rotate a key that is still active: the rotation’s transaction checks the person', async () => {
    const member = await newMember(tables);
    const key = await newKey(member);
    await disableOnly(member.userId);
    expect(await refusal(rotateKey(rt.service, member.userId, key.metadata.id))).toMatchObject({
      code: 'account_disabled',
    });
    expect((await active(member.userId)).map((k) => k.id)).toEqual([key.metadata.id]);
  });

  it('cannot renew a live enterprise grant', async () => {
    const member = await newMember(tables);
    await exchange(member.userId);
    await disableOnly(member.userId);
    expect(await refusal(exchange(member.userId))).toEqual({
      code: 'invalid_grant',
      detail: expect.stringMatching(DISABLED),
    });
  });

  it('is revoked by the signal even when the user index has not caught up with it', async () => {
    const member = await newMember(tables);
    const late = await newKey(member);
    // The index misses the newest key on the first listing, as a global index can for a moment.
    const listByUser = oauth.keys.listByUser.bind(oauth.keys);
    let listings = 0;
    const lagging = {
      ...oauth,
      keys: Object.assign(Object.create(oauth.keys), {
        listByUser: async (...args: Parameters<typeof listByUser>) => {
          const page = await listByUser(...args);
          return listings++ === 0
            ? { ...page, items: page.items.filter((k) => k.id !== late.metadata.id) }
            : page;
        },
      }),
    };
    const set = await idp.sign(
      {
        iss: IDP,
        aud: ISSUER,
        iat: Math.floor(clock.now().getTime() / 1000),
        jti: randomUUID(),
        sub_id: { format: 'iss_sub', iss: IDP, sub: member.userId },
        events: { [`${RISC}account-disabled`]: {} },
      },
      { typ: 'secevent+jwt' },
    );
    expect(await receiveSignal(lagging, set)).toEqual({ repeated: false, revoked: 1 });
    expect(listings).toBe(2);
    expect((await rt.verify(late.apiKey)).outcome).toBe('revoked');
  });
});

describe('an enterprise grant’s renewal', () => {
  it('keeps a last use recorded between its read and its write (an update, not a put)', async () => {
    const member = await newMember(tables);
    await exchange(member.userId);
    const [grant] = await active(member.userId);
    const live = await oauth.keys.get(grant?.id as string);
    if (!live?.grant?.access) throw new Error('no grant');
    clock.advance(60 * 60_000);
    // The use lands after the renewal read the grant, before it writes.
    expect(await oauth.keys.recordUse(live.id, clock.now())).toBe(true);
    const later = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const outcome = await oauth.enterprise?.store.renew(
      live,
      {
        workspace_ids: live.workspace_ids,
        scopes: live.scopes,
        expires_at: later,
        access: live.grant.access,
      },
      { issuer: IDP, jti: randomUUID(), until: later },
      { userId: member.userId, clientId, resource: RESOURCE, idp: IDP },
    );
    expect(outcome).toBe('renewed');
    const stored = await oauth.keys.get(live.id);
    expect(stored).toMatchObject({ expires_at: later, last_used_at: clock.now().toISOString() });
  });
});
