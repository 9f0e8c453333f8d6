import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ID_JAG_MAX_LIFETIME_SECONDS, ID_JAG_TYP, verifyIdJag } from '#lib/identity/id-jag';
import { IdentityKeySets } from '#lib/identity/key-sets';
import type { IdentityProvider } from '#lib/identity/providers';
import {
  ASYMMETRIC_ALGORITHMS,
  CLOCK_SKEW_SECONDS,
  claimText,
  MAX_JTI_LENGTH,
  type SignedTokenRules,
  verifySignedToken,
} from '#lib/identity/signed-tokens';

/**
 * The rules every IdP-signed token shares (lib/identity/signed-tokens.ts, contract §17) and the
 * ID-JAG's own claims, without a database: each refusal's reason and sentence, and the edges of
 * the times (60 s of skew, 10 minutes of life). The exchange at the token endpoint is
 * test/integration/enterprise-grant*.test.ts.
 */

const IDP: IdentityProvider = { issuer: 'https://idp.example', jwksUri: 'https://idp.example/jwks' };
const AUD = 'https://keys.example';
const NOW = new Date('2026-11-28T09:00:00.000Z');
const T = NOW.getTime() / 1000;
const RULES: SignedTokenRules = { typ: 'jwt', audience: AUD };

let sign: (payload: JWTPayload, header?: Record<string, unknown>) => Promise<string>;
let keySets: IdentityKeySets;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), alg: 'ES256' };
  const jwks = {
    keys: [
      { ...jwk, kid: 'k1' },
      { ...jwk, kid: 'twin' },
      { ...jwk, kid: 'twin' },
    ],
  };
  keySets = new IdentityKeySets(
    async () => ({ ok: true, json: jwks }),
    () => NOW.getTime(),
  );
  sign = (payload, header = {}) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: 'k1', ...header })
      // The signer knows every critical header a test names; the verifier knows none.
      .sign(privateKey, { crit: { 'x-unknown': true } });
});

const claims = (extra: JWTPayload = {}): JWTPayload => ({
  iss: IDP.issuer,
  aud: AUD,
  iat: T,
  exp: T + 300,
  ...extra,
});
const verify = async (token: string, rules: SignedTokenRules = RULES, providers = [IDP]) =>
  verifySignedToken(token, providers, keySets, rules, NOW);
const refused = async (token: Promise<string>, rules?: SignedTokenRules) => {
  const result = await verify(await token, rules);
  return result.ok ? 'accepted' : { reason: result.reason, description: result.description };
};

describe('a signed token from an identity provider', () => {
  it('passes with the provider and its payload', async () => {
    expect(await verify(await sign(claims({ x: 1 })))).toEqual({
      ok: true,
      provider: IDP,
      payload: claims({ x: 1 }),
    });
    expect(ASYMMETRIC_ALGORITHMS).toEqual([
      'RS256',
      'RS384',
      'RS512',
      'PS256',
      'PS384',
      'PS512',
      'ES256',
      'ES384',
      'ES512',
      'EdDSA',
    ]);
    expect(CLOCK_SKEW_SECONDS).toBe(60);
  });

  it('takes its typ in any case, with or without application/', async () => {
    for (const typ of ['JWT', 'jwt', 'application/jwt', 'APPLICATION/JWT'])
      expect((await verify(await sign(claims(), { typ }))).ok, typ).toBe(true);
  });

  it.each([
    ['a wrong typ', () => sign(claims(), { typ: 'at+jwt' }), 'typ', "The token's typ must be jwt."],
    ['no typ', () => sign(claims(), { typ: undefined }), 'typ', "The token's typ must be jwt."],
    [
      'another issuer',
      () => sign(claims({ iss: 'https://other.example' })),
      'untrusted_issuer',
      'The token was not issued by an identity provider this service trusts.',
    ],
    [
      'another audience',
      () => sign(claims({ aud: 'https://other.example' })),
      'audience',
      'The token’s audience (aud) is not this service.',
    ],
    [
      'an unknown kid',
      () => sign(claims(), { kid: 'k2' }),
      'unknown_key',
      'The identity provider has no key with the token’s kid.',
    ],
    [
      'a kid two keys have',
      () => sign(claims(), { kid: 'twin' }),
      'unknown_key',
      'The identity provider has no key with the token’s kid.',
    ],
    [
      'an expired one (60 s past exp)',
      () => sign(claims({ exp: T - 60 })),
      'expired',
      'The token has expired.',
    ],
    [
      'one not valid yet (nbf 61 s ahead)',
      () => sign(claims({ nbf: T + 61 })),
      'expired',
      'The token is not valid yet (nbf).',
    ],
    [
      'one issued 61 s ahead',
      () => sign(claims({ iat: T + 61 })),
      'lifetime',
      'The token was issued in the future (iat).',
    ],
    [
      'an iat that is no number',
      () => sign(claims({ iat: 'now' as never })),
      'malformed',
      "The token's iat claim is missing or invalid.",
    ],
    ['a text that is no JWT', async () => 'not-a-jwt', 'malformed', 'The token is not a signed JWT.'],
    [
      'a payload that is no JSON',
      async () => `${(await sign(claims())).split('.')[0]}.bm9wZQ.c2ln`,
      'malformed',
      'The token is not a signed JWT.',
    ],
  ])('is refused with %s', async (_name, make, reason, description) => {
    expect(await refused(make())).toEqual({ reason, description });
  });

  it('is refused for an algorithm outside the asymmetric list, before any key is looked up', async () => {
    const hs = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'k1' })
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await refused(Promise.resolve(hs))).toEqual({
      reason: 'algorithm',
      description: 'The token must be signed with an asymmetric algorithm (RS, PS, ES or EdDSA).',
    });
  });

  it('is refused when jose cannot read it (an unknown critical header), or application/ is not its typ’s start', async () => {
    expect(await refused(sign(claims(), { crit: ['x-unknown'], 'x-unknown': 1 }))).toEqual({
      reason: 'malformed',
      description: 'The token is not a valid signed JWT.',
    });
    expect(await refused(sign(claims(), { typ: 'JWTapplication/' }))).toMatchObject({ reason: 'typ' });
  });

  it('is refused when the signature is not the key’s', async () => {
    const [header, payload] = (await sign(claims())).split('.');
    const other = (await sign(claims({ jti: 'x' }))).split('.')[2];
    expect(await refused(Promise.resolve(`${header}.${payload}.${other}`))).toEqual({
      reason: 'signature',
      description: 'The token’s signature does not verify with the identity provider’s key.',
    });
  });

  it('accepts the edges of the skew: exp 59 s past, nbf and iat 60 s ahead', async () => {
    for (const extra of [{ exp: T - 59 }, { nbf: T + 60 }, { iat: T + 60 }])
      expect((await verify(await sign(claims(extra)))).ok, JSON.stringify(extra)).toBe(true);
  });

  it('with a lifetime rule needs exp and iat, exp at most that long after iat', async () => {
    const rules = { ...RULES, maxLifetimeSeconds: 600 };
    expect((await verify(await sign(claims({ exp: T + 600 })), rules)).ok).toBe(true);
    expect(await refused(sign(claims({ exp: T + 601 })), rules)).toEqual({
      reason: 'lifetime',
      description: 'The token may live at most 10 minutes (exp − iat).',
    });
    expect(await refused(sign(claims({ iat: undefined })), rules)).toEqual({
      reason: 'malformed',
      description: "The token's iat claim is missing or invalid.",
    });
    expect(await refused(sign(claims({ exp: undefined })), rules)).toMatchObject({ reason: 'malformed' });
    // Without the rule, a token may live longer and name no iat.
    expect((await verify(await sign(claims({ exp: T + 86_400, iat: undefined })))).ok).toBe(true);
  });
});

describe('claimText', () => {
  it('is a non-empty string of at most the length given (2048 by default)', () => {
    expect(claimText('a')).toBe('a');
    expect(claimText('a'.repeat(2048))).toHaveLength(2048);
    expect(claimText('a'.repeat(2049))).toBeUndefined();
    expect(claimText('abc', 3)).toBe('abc');
    expect(claimText('abcd', 3)).toBeUndefined();
    for (const value of ['', 7, null, undefined, ['a'], { a: 1 }]) expect(claimText(value)).toBeUndefined();
    expect(MAX_JTI_LENGTH).toBe(256);
  });
});

describe('an ID-JAG', () => {
  const jag = (extra: JWTPayload = {}, provider: IdentityProvider = IDP) =>
    sign(
      claims({ sub: 'alice', client_id: 'app', resource: 'https://mcp.example/mcp', jti: 'j1', ...extra }),
      { typ: ID_JAG_TYP },
    ).then((token) => verifyIdJag(token, { providers: [provider], keySets, audience: AUD, now: NOW }));

  it('says who, which client, which MCP server, which scopes, and until when its jti is kept', async () => {
    expect(ID_JAG_TYP).toBe('oauth-id-jag+jwt');
    expect(ID_JAG_MAX_LIFETIME_SECONDS).toBe(600);
    expect(await jag({ scope: ' svc.forms.read  other ' })).toEqual({
      ok: true,
      jag: {
        provider: IDP,
        userId: 'alice',
        clientId: 'app',
        resource: 'https://mcp.example/mcp',
        scopes: ['svc.forms.read', 'other'],
        jti: 'j1',
        expiresAt: new Date((T + 300) * 1000).toISOString(),
      },
    });
    expect(await jag()).toMatchObject({ ok: true, jag: { scopes: undefined } });
  });

  it('names the person by the IdP’s userClaim', async () => {
    const byEmail = { ...IDP, userClaim: 'email' };
    expect(await jag({ email: 'alice@example.com' }, byEmail)).toMatchObject({
      ok: true,
      jag: { userId: 'alice@example.com' },
    });
    expect(await jag({}, byEmail)).toEqual({
      ok: false,
      reason: 'claims',
      description: 'The ID-JAG has no email claim naming the person.',
    });
  });

  it.each([
    ['a sub of 257 characters', { sub: 's'.repeat(257) }, 'The ID-JAG has no sub claim naming the person.'],
    ['a client_id of 2049 characters', { client_id: 'c'.repeat(2049) }, 'The ID-JAG has no client_id claim.'],
    ['no resource', { resource: undefined }, 'The ID-JAG has no resource claim naming the MCP server.'],
    ['a jti of 257 characters', { jti: 'j'.repeat(257) }, 'The ID-JAG has no jti claim.'],
    ['a scope that is a number', { scope: 7 }, 'The ID-JAG’s scope claim must be a string.'],
  ])('is refused with %s', async (_name, extra, description) => {
    expect(await jag(extra)).toEqual({ ok: false, reason: 'claims', description });
  });

  it('takes a sub of 256 characters and a jti of 256', async () => {
    expect(await jag({ sub: 's'.repeat(256), jti: 'j'.repeat(256) })).toMatchObject({ ok: true });
  });

  it('is refused as its typ, its lifetime and its signature say, before its claims are read', async () => {
    const token = await sign(claims({ sub: 'alice' }));
    expect(await verifyIdJag(token, { providers: [IDP], keySets, audience: AUD, now: NOW })).toMatchObject({
      ok: false,
      reason: 'typ',
    });
    expect(await jag({ exp: T + 601 })).toMatchObject({ ok: false, reason: 'lifetime' });
  });
});
