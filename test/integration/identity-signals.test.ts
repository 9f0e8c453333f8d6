import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { oauthHandler } from '#lib/handlers/oauth';
import { createKey, listKeys } from '#lib/keys/lifecycle';
import type { OAuthDeps } from '#lib/oauth/deps';
import { receiveSignal } from '#lib/oauth/identity-signals';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { ENTERPRISE, enterpriseRuntime, forgeries, type TestIdp } from '#test/support/idp';

/**
 * Identity signals (contract §17, RFC 8935 push of RFC 8417 SETs) on DynamoDB Local: one
 * `account-disabled` ends every credential of a person with the cap of keys and grants, each with
 * its event; a repeat does nothing; `session-revoked` ends only enterprise grants; every refusal
 * is RFC 8935's `{ err, description }` and writes nothing.
 */

const { issuer: ISSUER, idp: IDP } = ENTERPRISE;
const CAP = 30;
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let idp: TestIdp;
let clientIds: string[];

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(tables, clock, { maxActiveKeys: CAP }));
  clientIds = await Promise.all(
    [1, 2, 3].map(
      async (n) =>
        (await register(oauth, { client_name: `App ${n}`, redirect_uris: ['http://127.0.0.1/cb'] }))
          .client_id,
    ),
  );
});
afterAll(() => tables.drop());

const now = () => Math.floor(clock.now().getTime() / 1000);

/** A SET as the IdP signs it, about `sub`, with each field replaceable. */
const set = (
  sub: string,
  event: string,
  claims: Record<string, unknown> = {},
  header: { typ?: string; kid?: string } = {},
) =>
  idp.sign(
    {
      iss: IDP,
      aud: ISSUER,
      iat: now(),
      jti: randomUUID(),
      sub_id: { format: 'iss_sub', iss: IDP, sub },
      events: { [event]: {} },
      ...claims,
    },
    { typ: 'secevent+jwt', ...header },
  );

/** A person with `keys` API keys and an enterprise grant from each of the three apps. */
async function personWith(keys: number) {
  const member = await newMember(tables);
  for (let i = 0; i < keys; i++)
    await createKey(rt.service, {
      userId: member.userId,
      name: `k${i}`,
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
  const accessTokens: string[] = [];
  for (const clientId of clientIds) {
    const jag = await idp.idJag({ sub: member.userId, client_id: clientId });
    accessTokens.push(
      (
        await token(oauth, {
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: jag,
          client_id: clientId,
        })
      ).access_token,
    );
  }
  return { ...member, accessTokens };
}

const active = async (userId: string) =>
  (await listKeys(rt.service, { userId, limit: 100, status: 'active' })).data;
const snapshot = async () =>
  JSON.stringify((await tables.scanKeys()).map((i) => `${i.pk}|${i.sk}|${i.revoked_at ?? ''}`).sort());

/** The receiver as the IdP reaches it: the OAuth function's route. */
async function push(body: string, contentType = 'application/secevent+jwt') {
  const event = httpApiEvent({
    method: 'POST',
    routeKey: 'POST /v1/identity-signals',
    rawPath: '/v1/identity-signals',
    query: {},
    headers: { 'content-type': contentType },
    body: Buffer.from(body),
    sourceIp: '127.0.0.1',
    requestId: randomUUID(),
  });
  const result = await oauthHandler(() => oauth)(event, lambdaContext('oauth'));
  return { status: result.statusCode, json: result.body ? JSON.parse(result.body) : undefined };
}

describe('account-disabled', () => {
  it('ends every credential of a person at the cap in one delivery, each with its event; a repeat does nothing', async () => {
    const person = await personWith(CAP - 3);
    expect(await active(person.userId)).toHaveLength(CAP);
    const signal = await set(person.userId, `${RISC}account-disabled`);
    expect(await push(signal)).toEqual({ status: 202, json: undefined });
    expect(await active(person.userId)).toEqual([]);
    for (const accessToken of person.accessTokens)
      expect((await rt.verify(accessToken)).outcome).toBe('revoked');
    const events = (await tables.scanKeys()).filter(
      (i) => i.user_id === person.userId && String(i.type).endsWith('.revoked'),
    );
    expect(events).toHaveLength(CAP);
    for (const event of events) expect(event.actor).toEqual({ type: 'identity_provider', id: IDP });
    expect(
      events.filter((e) => e.type === 'grant.revoked').map((e) => (e.details as { reason: string }).reason),
    ).toEqual(['identity_provider', 'identity_provider', 'identity_provider']);
    const before = await snapshot();
    expect(await receiveSignal(oauth, signal)).toEqual({ repeated: true, revoked: 0 });
    expect(await snapshot()).toBe(before);
  });

  it('account-purged does the same; another person’s credentials are untouched', async () => {
    const person = await personWith(2);
    const bystander = await personWith(1);
    expect(await receiveSignal(oauth, await set(person.userId, `${RISC}account-purged`))).toEqual({
      repeated: false,
      revoked: 5,
    });
    expect(await active(person.userId)).toEqual([]);
    expect(await active(bystander.userId)).toHaveLength(4);
  });
});

describe('session-revoked and other events', () => {
  it('session-revoked ends the person’s enterprise grants from that IdP, and leaves their keys', async () => {
    const person = await personWith(2);
    expect(await receiveSignal(oauth, await set(person.userId, `${CAEP}session-revoked`))).toEqual({
      repeated: false,
      revoked: 3,
    });
    expect((await active(person.userId)).map((k) => k.kind)).toEqual(['api_key', 'api_key']);
  });

  it('acknowledges an event it does not act on, and a subject it does not know, changing nothing', async () => {
    const person = await personWith(1);
    const before = await snapshot();
    expect(await receiveSignal(oauth, await set(person.userId, `${CAEP}credential-change`))).toMatchObject({
      revoked: 0,
    });
    expect(
      await receiveSignal(oauth, await set(`nobody-${randomUUID()}`, `${RISC}account-disabled`)),
    ).toMatchObject({ revoked: 0 });
    expect(
      await receiveSignal(
        oauth,
        await set(person.userId, `${RISC}account-disabled`, {
          sub_id: { format: 'iss_sub', iss: 'https://other-idp.example', sub: person.userId },
        }),
      ),
    ).toMatchObject({ revoked: 0 });
    expect((await snapshot()).split('|JTI|').length).toBeGreaterThan(before.split('|JTI|').length);
    expect(await active(person.userId)).toHaveLength(4);
  });
});

describe('the SET’s rules, each refusal RFC 8935’s and writing nothing', () => {
  let victim: string;
  beforeAll(async () => {
    victim = (await personWith(1)).userId;
  });
  const claims = () => ({
    iss: IDP,
    aud: ISSUER,
    iat: now(),
    jti: randomUUID(),
    sub_id: { format: 'iss_sub', iss: IDP, sub: victim },
    events: { [`${RISC}account-disabled`]: {} },
  });

  const forged = () => forgeries(idp, 'secevent+jwt');
  it.each([
    ['a forged signature', () => forged().otherKey(claims()), 'invalid_key'],
    ['alg none', () => forged().algNone(claims()), 'invalid_key'],
    ['HS256 with the IdP’s public key as secret', () => forged().publicKeyAsSecret(claims()), 'invalid_key'],
    ['an unknown kid', () => set(victim, `${RISC}account-disabled`, {}, { kid: 'made-up' }), 'invalid_key'],
    [
      'an untrusted issuer',
      () => set(victim, `${RISC}account-disabled`, { iss: 'https://evil.example' }),
      'invalid_issuer',
    ],
    [
      'another audience',
      () => set(victim, `${RISC}account-disabled`, { aud: 'https://elsewhere.example' }),
      'invalid_audience',
    ],
    ['a wrong typ', () => set(victim, `${RISC}account-disabled`, {}, { typ: 'JWT' }), 'invalid_request'],
    [
      'one older than 7 days',
      () => set(victim, `${RISC}account-disabled`, { iat: now() - 8 * 86_400 }),
      'invalid_request',
    ],
    ['no iat', () => set(victim, `${RISC}account-disabled`, { iat: undefined }), 'invalid_request'],
    [
      'one issued in the future',
      () => set(victim, `${RISC}account-disabled`, { iat: now() + 120 }),
      'invalid_request',
    ],
    ['no jti', () => set(victim, `${RISC}account-disabled`, { jti: undefined }), 'invalid_request'],
    ['no events', () => set(victim, `${RISC}account-disabled`, { events: undefined }), 'invalid_request'],
    ['not a JWT', async () => 'not-a-jwt', 'invalid_request'],
  ])('refuses %s', async (_name, make, err) => {
    const before = await snapshot();
    expect(await push(await make())).toEqual({ status: 400, json: { err, description: expect.any(String) } });
    expect(await snapshot()).toBe(before);
    expect(await active(victim)).toHaveLength(4);
  });

  it('refuses an empty body in RFC 8935’s words, as every other refusal of the route', async () => {
    expect(await push('')).toEqual({
      status: 400,
      json: { err: 'invalid_request', description: 'token: the body is empty: it must be the SET itself' },
    });
  });

  it('refuses a body that is not a SET', async () => {
    expect(await push('{}', 'application/json')).toEqual({
      status: 400,
      json: {
        err: 'invalid_request',
        description: 'The body must be a security event token (application/secevent+jwt).',
      },
    });
  });
});

describe('the revocations of a delivery', () => {
  it('run at most eight at once, and count only those this delivery made', async () => {
    const person = await personWith(CAP - 3);
    let running = 0;
    let most = 0;
    let calls = 0;
    const keys = oauth.keys;
    const revoke: typeof keys.revoke = async (record, at, events) => {
      running++;
      most = Math.max(most, running);
      try {
        // The first is revoked by its owner at the same moment: this delivery finds it revoked.
        if (calls++ === 0) await keys.revoke(record, at, []);
        return await keys.revoke(record, at, events);
      } finally {
        running--;
      }
    };
    const deps: OAuthDeps = {
      ...oauth,
      keys: new Proxy(keys, { get: (t, name) => (name === 'revoke' ? revoke : Reflect.get(t, name, t)) }),
    };
    const signal = await set(person.userId, `${RISC}account-disabled`);
    expect(await receiveSignal(deps, signal)).toEqual({ repeated: false, revoked: CAP - 1 });
    expect(most).toBe(8);
    expect(await active(person.userId)).toEqual([]);
  });
});
