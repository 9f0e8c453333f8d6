import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { oauthHandler } from '#lib/handlers/oauth';
import { IdentityKeySets, type PublicJsonFetch } from '#lib/identity/key-sets';
import { listKeys, revokeKey } from '#lib/keys/lifecycle';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { ENTERPRISE, enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * The ID-JAG's rules that no forgery test reaches (contract §17), on DynamoDB Local: the claims an
 * IdP's signature does not vouch for (a time ahead, a missing or over-long one, a scope that is no
 * string), the `resource` parameter against the ID-JAG's, an ID-JAG replayed once its grant was
 * revoked, and an IdP whose keys cannot be had (unreachable, or its OpenID configuration naming
 * another issuer or no key set): a 503 at the token endpoint and at the signal receiver. Each
 * refusal writes nothing. The forgeries are test/integration/enterprise-grant.test.ts.
 */

const { issuer: ISSUER, resource: RESOURCE, idp: IDP } = ENTERPRISE;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let oauth: OAuthDeps;
let idp: TestIdp;
let clientId: string;
let rt: Awaited<ReturnType<typeof enterpriseRuntime>>['rt'];

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(tables, clock));
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  idp.defaults.client_id = clientId;
});
afterAll(() => tables.drop());

const now = () => Math.floor(clock.now().getTime() / 1000);
const exchange = (assertion: string, extra: Record<string, string> = {}) =>
  token(oauth, { grant_type: JWT_BEARER, assertion, client_id: clientId, ...extra });

/** The OAuth error a use case rejected with, as the client reads it. */
async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  if (!(err instanceof OAuthError)) throw err;
  return { error: err.error, status: err.status, description: err.description };
}

/** Every item of the keys table, to show that a refusal wrote nothing. */
const snapshot = async () => JSON.stringify((await tables.scanKeys()).map((i) => `${i.pk}|${i.sk}`).sort());

describe('the ID-JAG’s claims', () => {
  let member: Awaited<ReturnType<typeof newMember>>;
  beforeAll(async () => {
    member = await newMember(tables);
  });

  it.each([
    [
      'issued in the future (iat a minute and more ahead)',
      () => ({ iat: now() + 61, exp: now() + 300 }),
      'The token was issued in the future (iat).',
    ],
    ['without sub', () => ({ sub: undefined }), 'The ID-JAG has no sub claim naming the person.'],
    ['without client_id', () => ({ client_id: undefined }), 'The ID-JAG has no client_id claim.'],
    ['without jti', () => ({ jti: undefined }), 'The ID-JAG has no jti claim.'],
    ['with a jti of 257 characters', () => ({ jti: 'j'.repeat(257) }), 'The ID-JAG has no jti claim.'],
    [
      'with a scope that is no string',
      () => ({ scope: ['svc.forms.read'] }),
      'The ID-JAG’s scope claim must be a string.',
    ],
  ])('refuses one %s, writing nothing', async (_name, claims, description) => {
    const before = await snapshot();
    const jag = await idp.idJag({ sub: member.userId, ...claims() } as never);
    expect(await refusal(exchange(jag))).toEqual({ error: 'invalid_grant', status: 400, description });
    expect(await snapshot()).toBe(before);
  });

  it('accepts a jti of 256 characters and an iat within the minute of skew', async () => {
    const jag = await idp.idJag({ sub: member.userId, jti: 'j'.repeat(256), iat: now() + 60 });
    expect(await exchange(jag)).toMatchObject({ token_type: 'Bearer' });
  });

  it('refuses a resource parameter other than the ID-JAG’s (invalid_target), and takes another spelling of it', async () => {
    const before = await snapshot();
    const jag = await idp.idJag({ sub: member.userId });
    expect(await refusal(exchange(jag, { resource: 'https://mcp.example.com/other' }))).toEqual({
      error: 'invalid_target',
      status: 400,
      description: 'The resource differs from the ID-JAG’s.',
    });
    expect(await snapshot()).toBe(before);
    // Refused before its jti was used: the same ID-JAG, with the same resource in another form, is exchanged.
    expect(await exchange(jag, { resource: 'HTTPS://MCP.example.com:443/mcp' })).toMatchObject({
      token_type: 'Bearer',
    });
  });
});

describe('an ID-JAG replayed after its grant was revoked', () => {
  it('is refused, and no new grant is made', async () => {
    const member = await newMember(tables);
    const jag = await idp.idJag({ sub: member.userId });
    const first = await exchange(jag);
    const [grant] = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    await revokeKey(rt.service, member.userId, grant?.id as string);
    const before = await snapshot();
    expect(await refusal(exchange(jag))).toEqual({
      error: 'invalid_grant',
      status: 400,
      description: 'The ID-JAG was already used; ask the identity provider for a new one.',
    });
    expect(await snapshot()).toBe(before);
    expect((await listKeys(rt.service, { userId: member.userId, limit: 10, status: 'active' })).data).toEqual(
      [],
    );
    expect((await rt.verify(first.access_token)).outcome).toBe('revoked');
  });
});

describe('an IdP whose keys cannot be had', () => {
  const failing = (answer: (url: string) => Awaited<ReturnType<PublicJsonFetch>>): OAuthDeps => ({
    ...oauth,
    enterprise: {
      ...(oauth.enterprise as NonNullable<OAuthDeps['enterprise']>),
      keySets: new IdentityKeySets(
        async (url) => answer(url),
        () => clock.now().getTime(),
      ),
    },
  });
  const served = (config: Record<string, unknown>) => (url: string) =>
    url === `${IDP}/.well-known/openid-configuration`
      ? { ok: true as const, json: config }
      : { ok: true as const, json: idp.jwks };

  /** A request to the OAuth function, as API Gateway hands it over. */
  async function call(deps: OAuthDeps, routeKey: string, contentType: string, body: string) {
    const [method, path] = routeKey.split(' ') as [string, string];
    const event = httpApiEvent({
      method,
      routeKey,
      rawPath: path,
      headers: { 'content-type': contentType },
      body: Buffer.from(body),
      sourceIp: '127.0.0.1',
      requestId: randomUUID(),
    });
    const result = await oauthHandler(() => deps)(event, lambdaContext('oauth'));
    return {
      status: result.statusCode,
      retryAfter: result.headers?.['retry-after'],
      json: JSON.parse(result.body ?? 'null') as Record<string, unknown>,
    };
  }

  it.each([
    [
      'unreachable',
      () => () => ({ ok: false as const, reason: 'The key set did not arrive within 3 seconds.' }),
      'The key set did not arrive within 3 seconds.',
    ],
    [
      'naming another issuer in its OpenID configuration (a mix-up)',
      () => served({ issuer: 'https://evil.example', jwks_uri: `${IDP}/jwks` }),
      'The identity provider’s OpenID configuration names another issuer.',
    ],
    [
      'naming no jwks_uri in its OpenID configuration',
      () => served({ issuer: IDP }),
      'The identity provider’s OpenID configuration has no jwks_uri.',
    ],
  ])(
    '%s: the exchange is a 503 and the signal receiver’s too, writing nothing',
    async (_name, answer, reason) => {
      const deps = failing(answer());
      const member = await newMember(tables);
      const before = await snapshot();
      const form = new URLSearchParams({
        grant_type: JWT_BEARER,
        client_id: clientId,
        assertion: await idp.idJag({ sub: member.userId }),
      });
      expect(
        await call(deps, 'POST /oauth/token', 'application/x-www-form-urlencoded', form.toString()),
      ).toMatchObject({
        status: 503,
        retryAfter: expect.any(String),
        json: { error: 'temporarily_unavailable', error_description: `${reason} Retry later.` },
      });
      const set = await idp.sign(
        {
          iss: IDP,
          aud: ISSUER,
          iat: now(),
          jti: randomUUID(),
          sub_id: { format: 'iss_sub', iss: IDP, sub: member.userId },
          events: { 'https://schemas.openid.net/secevent/risc/event-type/account-disabled': {} },
        },
        { typ: 'secevent+jwt' },
      );
      expect(await call(deps, 'POST /v1/identity-signals', 'application/secevent+jwt', set)).toMatchObject({
        status: 503,
        retryAfter: expect.any(String),
        json: { err: 'authentication_failed', description: reason },
      });
      expect(await snapshot()).toBe(before);
    },
  );

  it('with its keys served again, the same deployment exchanges (the refusals above were the IdP’s side)', async () => {
    const member = await newMember(tables);
    const deps = failing(served({ issuer: IDP, jwks_uri: `${IDP}/jwks` }));
    const answer = await token(deps, {
      grant_type: JWT_BEARER,
      assertion: await idp.idJag({ sub: member.userId, resource: RESOURCE }),
      client_id: clientId,
    });
    expect(answer.token_type).toBe('Bearer');
  });
});
