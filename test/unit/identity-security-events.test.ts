import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { IdentityKeySets } from '#lib/identity/key-sets';
import type { IdentityProvider } from '#lib/identity/providers';
import { SET_MAX_AGE_SECONDS, SET_TYP, SetError, verifySet } from '#lib/identity/security-events';

/**
 * Security Event Tokens as this service reads them (lib/identity/security-events.ts, RFC 8417,
 * RFC 8935, contract §17), without a database: each refusal's RFC 8935 code and status, the age
 * of `iat`, how long the `jti` is kept, and whose each event is. The receiver over DynamoDB Local
 * is test/integration/identity-signals.test.ts.
 */

const IDP: IdentityProvider = { issuer: 'https://idp.example', jwksUri: 'https://idp.example/jwks' };
const AUD = 'https://keys.example';
const NOW = new Date('2026-11-28T09:00:00.000Z');
const T = NOW.getTime() / 1000;
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';

let sign: (payload: JWTPayload, header?: Record<string, unknown>) => Promise<string>;
let keySets: IdentityKeySets;
let unreachable: IdentityKeySets;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] };
  keySets = new IdentityKeySets(async () => ({ ok: true, json: jwks }));
  unreachable = new IdentityKeySets(async () => ({ ok: false, reason: 'The key set answered 503.' }));
  sign = (payload, header = {}) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: 'ES256', typ: SET_TYP, kid: 'k1', ...header })
      .sign(privateKey);
});

const claims = (extra: JWTPayload = {}): JWTPayload => ({
  iss: IDP.issuer,
  aud: AUD,
  iat: T,
  jti: 'set-1',
  events: { [`${RISC}account-disabled`]: {} },
  ...extra,
});
const verify = (token: string, provider: IdentityProvider = IDP, sets = keySets) =>
  verifySet(token, { providers: [provider], keySets: sets, audience: AUD, now: NOW });
/** The refusal of a SET, as the receiver answers it. */
async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  if (!(err instanceof SetError)) throw err;
  return { err: err.err, status: err.status, description: err.description, name: err.name };
}

describe('a security event token', () => {
  it('is read for its IdP, its jti, until when the jti is kept (8 days after iat), and its events', async () => {
    expect(SET_TYP).toBe('secevent+jwt');
    expect(SET_MAX_AGE_SECONDS).toBe(604_800);
    expect(await verify(await sign(claims({ sub_id: { format: 'opaque', id: 'alice' } })))).toEqual({
      provider: IDP,
      jti: 'set-1',
      keepUntil: new Date((T + 8 * 86_400) * 1000).toISOString(),
      signals: [{ event: 'account-disabled', userId: 'alice' }],
    });
  });

  it.each([
    [
      'a wrong typ',
      () => sign(claims(), { typ: 'JWT' }),
      'invalid_request',
      "The token's typ must be secevent+jwt.",
    ],
    [
      'an unknown kid',
      () => sign(claims(), { kid: 'k9' }),
      'invalid_key',
      'The identity provider has no key with the token’s kid.',
    ],
    [
      'an untrusted issuer',
      () => sign(claims({ iss: 'https://evil.example' })),
      'invalid_issuer',
      'The token was not issued by an identity provider this service trusts.',
    ],
    [
      'another audience',
      () => sign(claims({ aud: 'https://other.example' })),
      'invalid_audience',
      'The token’s audience (aud) is not this service.',
    ],
    ['an expired one', () => sign(claims({ exp: T - 120 })), 'invalid_request', 'The token has expired.'],
    [
      'one issued ahead',
      () => sign(claims({ iat: T + 61 })),
      'invalid_request',
      'The token was issued in the future (iat).',
    ],
    ['no iat', () => sign(claims({ iat: undefined })), 'invalid_request', 'The SET has no iat claim.'],
    [
      'an iat 7 days and a second old',
      () => sign(claims({ iat: T - SET_MAX_AGE_SECONDS - 1 })),
      'invalid_request',
      'The SET is older than 7 days (iat).',
    ],
    ['no jti', () => sign(claims({ jti: undefined })), 'invalid_request', 'The SET has no jti claim.'],
    [
      'a jti of 257 characters',
      () => sign(claims({ jti: 'j'.repeat(257) })),
      'invalid_request',
      'The SET has no jti claim.',
    ],
    [
      'no events',
      () => sign(claims({ events: undefined })),
      'invalid_request',
      'The SET has no events claim.',
    ],
    [
      'events that are a list',
      () => sign(claims({ events: [`${RISC}account-disabled`] })),
      'invalid_request',
      'The SET has no events claim.',
    ],
    [
      'events that are text',
      () => sign(claims({ events: 'account-disabled' })),
      'invalid_request',
      'The SET has no events claim.',
    ],
    [
      'events that are null',
      () => sign(claims({ events: null })),
      'invalid_request',
      'The SET has no events claim.',
    ],
  ])('is refused with %s (400)', async (_name, make, err, description) => {
    expect(await refusal(verify(await make()))).toEqual({ err, status: 400, description, name: 'SetError' });
  });

  it('is refused with an algorithm outside the list, or a signature not the key’s, as invalid_key', async () => {
    const hs = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', typ: SET_TYP })
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await refusal(verify(hs))).toMatchObject({ err: 'invalid_key', status: 400 });
    const [header, payload] = (await sign(claims())).split('.');
    const other = (await sign(claims({ jti: 'other' }))).split('.')[2];
    expect(await refusal(verify(`${header}.${payload}.${other}`))).toMatchObject({ err: 'invalid_key' });
    expect(await refusal(verify('not-a-set'))).toMatchObject({ err: 'invalid_request' });
  });

  it('is a 503 authentication_failed while the IdP’s keys cannot be had', async () => {
    expect(await refusal(verify(await sign(claims()), IDP, unreachable))).toEqual({
      err: 'authentication_failed',
      status: 503,
      description: 'The key set answered 503.',
      name: 'SetError',
    });
  });

  it('takes an iat of exactly 7 days ago, and keeps its jti a day past the 7', async () => {
    const old = await verify(await sign(claims({ iat: T - SET_MAX_AGE_SECONDS })));
    expect(old.keepUntil).toBe(new Date((T + 86_400) * 1000).toISOString());
  });
});

describe('whose an event is', () => {
  const signalsOf = async (extra: JWTPayload, provider: IdentityProvider = IDP) =>
    (await verify(await sign(claims(extra)), provider)).signals;
  const event = (type: string, subject?: unknown) => ({ events: { [type]: subject ? { subject } : {} } });

  it('names the event this service acts on, and any other as other', async () => {
    expect(
      await signalsOf({
        sub_id: { format: 'opaque', id: 'alice' },
        events: {
          [`${RISC}account-disabled`]: {},
          [`${RISC}account-purged`]: {},
          [`${CAEP}session-revoked`]: {},
          [`${CAEP}credential-change`]: {},
        },
      }),
    ).toEqual([
      { event: 'account-disabled', userId: 'alice' },
      { event: 'account-purged', userId: 'alice' },
      { event: 'session-revoked', userId: 'alice' },
      { event: 'other', userId: 'alice' },
    ]);
  });

  it('is the IdP’s sub in the iss_sub format, only from this IdP', async () => {
    expect(await signalsOf({ sub_id: { format: 'iss_sub', iss: IDP.issuer, sub: 'alice' } })).toEqual([
      { event: 'account-disabled', userId: 'alice' },
    ]);
    for (const sub_id of [
      { format: 'iss_sub', iss: 'https://other.example', sub: 'alice' },
      { format: 'iss_sub', iss: IDP.issuer, sub: 7 },
      { format: 'opaque', id: 7 },
      { format: 'email', email: 'alice@example.com' },
      { format: 'phone_number', phone_number: '+1' },
      // A field of another format is not read: the format decides.
      { format: 'opaque', iss: IDP.issuer, sub: 'alice' },
      { format: 'email', id: 'alice' },
      'alice',
    ])
      expect(await signalsOf({ sub_id }), JSON.stringify(sub_id)).toEqual([
        { event: 'account-disabled', userId: undefined },
      ]);
  });

  it('is the event’s own subject when the SET has no sub_id', async () => {
    expect(await signalsOf(event(`${RISC}account-purged`, { format: 'opaque', id: 'bob' }))).toEqual([
      { event: 'account-purged', userId: 'bob' },
    ]);
    expect(
      await signalsOf({
        sub_id: { format: 'opaque', id: 'alice' },
        ...event(`${RISC}account-purged`, { format: 'opaque', id: 'bob' }),
      }),
    ).toEqual([{ event: 'account-purged', userId: 'alice' }]);
    expect(await signalsOf(event(`${RISC}account-purged`))).toEqual([
      { event: 'account-purged', userId: undefined },
    ]);
    expect(await signalsOf({ events: { [`${RISC}account-purged`]: null } })).toEqual([
      { event: 'account-purged', userId: undefined },
    ]);
  });

  it('is an email only where the IdP names people by email, and then nothing else', async () => {
    const byEmail = { ...IDP, userClaim: 'email' };
    expect(await signalsOf({ sub_id: { format: 'email', email: 'alice@example.com' } }, byEmail)).toEqual([
      { event: 'account-disabled', userId: 'alice@example.com' },
    ]);
    for (const sub_id of [
      { format: 'email', email: 7 },
      { format: 'opaque', email: 'alice@example.com' },
      { format: 'iss_sub', iss: IDP.issuer, sub: 'alice' },
      { format: 'opaque', id: 'alice' },
    ])
      expect(await signalsOf({ sub_id }, byEmail), JSON.stringify(sub_id)).toEqual([
        { event: 'account-disabled', userId: undefined },
      ]);
  });
});
