import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { IdentityKeySets, KEY_SET_LIMITS, type PublicJsonResult } from '#lib/identity/key-sets';
import { verifySignedToken } from '#lib/identity/signed-tokens';

/**
 * The IdPs' key sets (contract §17): kept an hour, fetched again for an unknown `kid` at most once
 * per 5 minutes, kept in use while the IdP cannot be reached, and a failed fetch not repeated for
 * a moment.
 */

const IDP = { issuer: 'https://idp.example', jwksUri: 'https://idp.example/jwks' };
const RULES = { typ: 'jwt', audience: 'https://keys.example' };

async function setUp() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] };
  let clock = 1_000_000;
  let answer: () => PublicJsonResult = () => ({ ok: true, json: jwks });
  const fetched: string[] = [];
  const sets = new IdentityKeySets(
    async (url) => {
      fetched.push(url);
      return answer();
    },
    () => clock,
  );
  const token = (kid = 'k1') =>
    new SignJWT({ iss: IDP.issuer, aud: RULES.audience })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
      .setIssuedAt(Math.floor(clock / 1000))
      .sign(privateKey);
  const verify = async (kid?: string) =>
    verifySignedToken(await token(kid), [IDP], sets, RULES, new Date(clock));
  return {
    verify,
    fetched,
    advance: (ms: number) => {
      clock += ms;
    },
    failWith: (result: PublicJsonResult | undefined) => {
      answer = () => result ?? { ok: true, json: jwks };
    },
  };
}

describe('IdentityKeySets', () => {
  it('fetches once, keeps the keys an hour, and fetches again after', async () => {
    const t = await setUp();
    expect((await t.verify()).ok).toBe(true);
    expect((await t.verify()).ok).toBe(true);
    expect(t.fetched).toEqual([IDP.jwksUri]);
    t.advance(KEY_SET_LIMITS.maxAgeMs);
    expect((await t.verify()).ok).toBe(true);
    expect(t.fetched).toHaveLength(2);
  });

  it('an unknown kid fetches again at most once per 5 minutes', async () => {
    const t = await setUp();
    await t.verify();
    expect(await t.verify('other')).toMatchObject({ ok: false, reason: 'unknown_key' });
    expect(t.fetched).toHaveLength(1);
    t.advance(KEY_SET_LIMITS.refetchAfterMs);
    expect(await t.verify('other')).toMatchObject({ ok: false, reason: 'unknown_key' });
    expect(t.fetched).toHaveLength(2);
    expect(await t.verify('other')).toMatchObject({ ok: false, reason: 'unknown_key' });
    expect(t.fetched).toHaveLength(2);
  });

  it('keeps using the old keys while the IdP cannot be reached, and does not ask again for 10 s', async () => {
    const t = await setUp();
    await t.verify();
    t.advance(KEY_SET_LIMITS.maxAgeMs);
    t.failWith({ ok: false, reason: 'The key set answered HTTP 503 instead of 200.' });
    expect((await t.verify()).ok).toBe(true);
    expect((await t.verify()).ok).toBe(true);
    expect(t.fetched).toHaveLength(2);
    t.advance(KEY_SET_LIMITS.failureCacheMs);
    t.failWith(undefined);
    expect((await t.verify()).ok).toBe(true);
    expect(t.fetched).toHaveLength(3);
  });

  it('without keys yet, an unreachable IdP or a document that is no JWKS is keys_unavailable (the caller answers 503)', async () => {
    const t = await setUp();
    t.failWith({ ok: false, reason: 'The key set did not arrive within 3 seconds.' });
    expect(await t.verify()).toEqual({
      ok: false,
      reason: 'keys_unavailable',
      description: 'The key set did not arrive within 3 seconds.',
    });
    t.advance(KEY_SET_LIMITS.failureCacheMs);
    t.failWith({ ok: true, json: { keys: 'not a list' } });
    expect(await t.verify()).toMatchObject({ ok: false, reason: 'keys_unavailable' });
    t.advance(KEY_SET_LIMITS.failureCacheMs);
    // A list of keys none of which is usable: read, and no key has the token's kid.
    t.failWith({ ok: true, json: { keys: [{ kty: 'nope' }] } });
    expect(await t.verify()).toMatchObject({ ok: false, reason: 'unknown_key' });
  });
});

describe('IdentityKeySets without a jwksUri: the IdP’s OpenID configuration (the mix-up defence)', () => {
  /** A provider known by its issuer only, whose configuration says `config`; the token signed by its key. */
  async function discovered(issuer: string, config: Record<string, unknown> | undefined) {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] };
    const fetched: string[] = [];
    const sets = new IdentityKeySets(async (url) => {
      fetched.push(url);
      if (url.endsWith('/.well-known/openid-configuration'))
        return config ? { ok: true, json: config } : { ok: false, reason: 'The configuration answered 404.' };
      return url === 'https://idp.example/jwks'
        ? { ok: true, json: jwks }
        : { ok: false, reason: `${url}: 404` };
    });
    const token = await new SignJWT({ iss: issuer, aud: RULES.audience })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: 'k1' })
      .setIssuedAt()
      .sign(privateKey);
    const result = await verifySignedToken(token, [{ issuer }], sets, RULES, new Date());
    return { result, fetched };
  }

  it('finds the keys at the configuration’s jwks_uri when it names the IdP as its issuer', async () => {
    expect(await discovered(IDP.issuer, { issuer: IDP.issuer, jwks_uri: IDP.jwksUri })).toEqual({
      result: expect.objectContaining({ ok: true }),
      fetched: ['https://idp.example/.well-known/openid-configuration', IDP.jwksUri],
    });
    // An issuer with a path: the configuration is under it, whether or not it ends in a slash.
    for (const issuer of ['https://idp.example/tenant', 'https://idp.example/tenant/'])
      expect((await discovered(issuer, { issuer, jwks_uri: IDP.jwksUri })).fetched[0]).toBe(
        'https://idp.example/tenant/.well-known/openid-configuration',
      );
  });

  it.each([
    [
      'names another issuer',
      { issuer: 'https://evil.example', jwks_uri: IDP.jwksUri },
      'The identity provider’s OpenID configuration names another issuer.',
    ],
    [
      'names no issuer',
      { jwks_uri: IDP.jwksUri },
      'The identity provider’s OpenID configuration names another issuer.',
    ],
    [
      'has no jwks_uri',
      { issuer: IDP.issuer },
      'The identity provider’s OpenID configuration has no jwks_uri.',
    ],
    [
      'has a jwks_uri that is no string',
      { issuer: IDP.issuer, jwks_uri: [IDP.jwksUri] },
      'The identity provider’s OpenID configuration has no jwks_uri.',
    ],
  ])('refuses keys whose configuration %s, fetching no key set', async (_name, config, description) => {
    const { result, fetched } = await discovered(IDP.issuer, config);
    expect(result).toEqual({ ok: false, reason: 'keys_unavailable', description });
    expect(fetched).toEqual(['https://idp.example/.well-known/openid-configuration']);
  });

  it('a configuration that cannot be fetched, or is no object, is keys_unavailable', async () => {
    expect((await discovered(IDP.issuer, undefined)).result).toEqual({
      ok: false,
      reason: 'keys_unavailable',
      description: 'The configuration answered 404.',
    });
    expect((await discovered(IDP.issuer, [] as never)).result).toMatchObject({
      reason: 'keys_unavailable',
      description: 'The identity provider’s OpenID configuration names another issuer.',
    });
  });
});
