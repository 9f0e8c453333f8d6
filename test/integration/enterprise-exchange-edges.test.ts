import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyError } from '#lib/errors';
import { SetError } from '#lib/identity/security-events';
import { createKey, listKeys } from '#lib/keys/lifecycle';
import type { EnterpriseDeps, OAuthDeps } from '#lib/oauth/deps';
import { ENTERPRISE_LIMITS } from '#lib/oauth/enterprise-grants';
import { OAuthError } from '#lib/oauth/errors';
import { receiveSignal } from '#lib/oauth/identity-signals';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import { liveGrantFor } from '#lib/oauth/widening';
import type { Runtime } from '#lib/runtime';
import { SLOTS_SK, slotsPk } from '#lib/store/items';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { ENTERPRISE, enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * The edges of an enterprise exchange and of a disabling (contract §17) on DynamoDB Local: a
 * person at the active-key cap, an exchange that loses to a concurrent one on every attempt, and a
 * disabling whose person still holds a live slot no listing shows (the delivery fails for the IdP
 * to retry, and the retry acts on it).
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';

let tables: TestTables;
const clock = manualClock(new Date('2026-12-06T08:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let idp: TestIdp;
let clientId: string;

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(tables, clock, { maxActiveKeys: 1 }));
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  idp.defaults.client_id = clientId;
});
afterAll(() => tables.drop());

const exchange = async (deps: OAuthDeps, sub: string) =>
  token(deps, { grant_type: JWT_BEARER, assertion: await idp.idJag({ sub }), client_id: clientId });

/** The OAuth error a use case rejected with, as the client reads it. */
async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  if (!(err instanceof OAuthError)) throw err;
  return { error: err.error, status: err.status, description: err.description };
}

describe('an exchange', () => {
  it('for a person at the active-key cap is refused as RFC 6749’s invalid_grant, saying what to do', async () => {
    const member = await newMember(tables);
    await createKey(rt.service, {
      userId: member.userId,
      name: 'laptop',
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    expect(await refusal(exchange(oauth, member.userId))).toEqual({
      error: 'invalid_grant',
      status: 400,
      description:
        'The person has reached the limit of 1 active keys and apps; they can revoke one on their keys page.',
    });
  });

  it('that loses to a concurrent one on every attempt answers 503 temporarily_unavailable, to be retried', async () => {
    const member = await newMember(tables);
    const enterprise = oauth.enterprise as EnterpriseDeps;
    let inserts = 0;
    const racing: OAuthDeps = {
      ...oauth,
      enterprise: {
        ...enterprise,
        store: new Proxy(enterprise.store, {
          get: (target, name) =>
            name === 'insert'
              ? async () => {
                  inserts++;
                  return { kind: 'raced' };
                }
              : Reflect.get(target, name, target),
        }),
      },
    };
    expect(await refusal(exchange(racing, member.userId))).toEqual({
      error: 'temporarily_unavailable',
      status: 503,
      description: 'The grant changed during the exchange too often; retry.',
    });
    expect(inserts).toBe(ENTERPRISE_LIMITS.attempts);
    expect((await listKeys(rt.service, { userId: member.userId, limit: 10 })).data).toEqual([]);
  });
});

describe('an enterprise grant', () => {
  it('is never the live grant a consent approval for the same app and MCP server widens', async () => {
    const member = await newMember(tables);
    await exchange(oauth, member.userId);
    const [grant] = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    expect(grant).toMatchObject({ kind: 'enterprise_grant', client: { id: clientId } });
    const request = {
      client: { id: clientId, name: 'Assistant', verified_domain: null },
      resource: ENTERPRISE.resource,
    };
    expect(await liveGrantFor(oauth, member.userId, request)).toBeUndefined();
  });
});

describe('a renewal', () => {
  const grantOf = async (userId: string) => {
    const [listed] = (await listKeys(rt.service, { userId, limit: 10 })).data;
    return rt.service.keys.get(listed?.id as string);
  };

  it('keeps the previous access token only while it is live (another device may hold it)', async () => {
    const member = await newMember(tables);
    await exchange(oauth, member.userId);
    const first = (await grantOf(member.userId))?.grant?.access;
    clock.advance(60_000);
    await exchange(oauth, member.userId);
    const second = (await grantOf(member.userId))?.grant;
    expect(second?.previous_access).toEqual(first);
    clock.set(new Date(second?.access?.until as string));
    await exchange(oauth, member.userId);
    expect((await grantOf(member.userId))?.grant).not.toHaveProperty('previous_access');
  });

  it('that loses to a change of the grant is tried again, and answers a token of the renewed grant', async () => {
    const member = await newMember(tables);
    await exchange(oauth, member.userId);
    const enterprise = oauth.enterprise as EnterpriseDeps;
    let renewals = 0;
    const changing: OAuthDeps = {
      ...oauth,
      enterprise: {
        ...enterprise,
        store: new Proxy(enterprise.store, {
          get: (target, name) =>
            name === 'renew'
              ? (...args: Parameters<EnterpriseDeps['store']['renew']>) =>
                  renewals++ === 0 ? Promise.resolve('grant_changed') : target.renew(...args)
              : Reflect.get(target, name, target),
        }),
      },
    };
    clock.advance(60_000);
    const answer = await exchange(changing, member.userId);
    expect(renewals).toBe(2);
    expect(await rt.verify(answer.access_token)).toMatchObject({ outcome: 'valid' });
  });
});

describe('a disabling', () => {
  it('fails while a live slot of the person shows in no listing, and its retry finishes once it does', async () => {
    const member = await newMember(tables);
    const slots = (expiresAt: string) =>
      tables.doc.send(
        new PutCommand({
          TableName: tables.keysTable,
          Item: { pk: slotsPk(member.userId), sk: SLOTS_SK, active: { [randomUUID()]: expiresAt } },
        }),
      );
    await slots('2027-01-01T00:00:00.000Z');
    const now = Math.floor(clock.now().getTime() / 1000);
    const signal = await idp.sign(
      {
        iss: ENTERPRISE.idp,
        aud: ENTERPRISE.issuer,
        iat: now,
        jti: randomUUID(),
        sub_id: { format: 'iss_sub', iss: ENTERPRISE.idp, sub: member.userId },
        events: { [`${RISC}account-disabled`]: {} },
      },
      { typ: 'secevent+jwt' },
    );
    const enterprise = oauth.enterprise as EnterpriseDeps;
    let listings = 0;
    const counting: OAuthDeps = {
      ...oauth,
      enterprise: {
        ...enterprise,
        store: new Proxy(enterprise.store, {
          get: (target, name) =>
            name === 'heldSlots'
              ? (userId: string) => {
                  listings++;
                  return target.heldSlots(userId);
                }
              : Reflect.get(target, name, target),
        }),
      },
    };
    const started = Date.now();
    const failed = await receiveSignal(counting, signal).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(DependencyError);
    expect((failed as Error).message).toBe(
      'a disabled person still had live credentials after every listing',
    );
    // Five listings, a quarter of a second apart.
    expect(listings).toBe(5);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 250 - 50);
    // The slot lapses (its key expires now): the IdP's retry is acted on, not taken for a repeat.
    await slots(clock.now().toISOString());
    expect(await receiveSignal(oauth, signal)).toEqual({ repeated: false, revoked: 0 });
    expect(await receiveSignal(oauth, signal)).toEqual({ repeated: true, revoked: 0 });
  });
});

describe('session-revoked', () => {
  it('ends the enterprise grants from the IdP that sent it, never another IdP’s', async () => {
    const member = await newMember(tables);
    const id = randomUUID();
    const created = clock.now().toISOString();
    await rt.service.keys.insert(
      {
        id,
        user_id: member.userId,
        lineage_id: id,
        name: 'Assistant',
        workspace_ids: [member.workspaceId],
        scopes: ['svc.forms.read'],
        digest: '',
        pepper_version: 1,
        key_hint: 'other-idp.example.org',
        created_at: created,
        expires_at: '2027-01-01T00:00:00.000Z',
        kind: 'enterprise_grant',
        grant: {
          client: { id: clientId, name: 'Assistant', verified_domain: null },
          redirect_uri: '',
          redirect_host: '',
          idp: 'https://other-idp.example.org',
          resource: ENTERPRISE.resource,
        },
      },
      1,
      [],
    );
    const signal = await idp.sign(
      {
        iss: ENTERPRISE.idp,
        aud: ENTERPRISE.issuer,
        iat: Math.floor(clock.now().getTime() / 1000),
        jti: randomUUID(),
        sub_id: { format: 'iss_sub', iss: ENTERPRISE.idp, sub: member.userId },
        events: { 'https://schemas.openid.net/secevent/caep/event-type/session-revoked': {} },
      },
      { typ: 'secevent+jwt' },
    );
    expect(await receiveSignal(oauth, signal)).toEqual({ repeated: false, revoked: 0 });
    expect((await listKeys(rt.service, { userId: member.userId, limit: 10, status: 'active' })).data).toEqual(
      [expect.objectContaining({ id, kind: 'enterprise_grant' })],
    );
  });
});

describe('a receiver that trusts no identity provider', () => {
  it('refuses every SET as from an issuer it does not know, reading nothing', async () => {
    const signal = await idp.sign({ iss: ENTERPRISE.idp, jti: randomUUID() }, { typ: 'secevent+jwt' });
    const none = [
      { ...oauth, enterprise: undefined },
      { ...oauth, oauth: { ...oauth.oauth, identityProviders: undefined } },
      { ...oauth, oauth: { ...oauth.oauth, identityProviders: [] } },
    ];
    for (const deps of none) {
      const refused = await receiveSignal(deps, signal).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(SetError);
      expect(refused).toMatchObject({
        err: 'invalid_issuer',
        status: 400,
        description: 'This service trusts no identity provider.',
      });
    }
  });
});
