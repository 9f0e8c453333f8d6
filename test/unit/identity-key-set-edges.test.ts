import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  IdentityKeySets,
  KEY_SET_LIMITS,
  KeySetUnavailable,
  type PublicJsonResult,
} from '#lib/identity/key-sets';
import type { IdentityProvider } from '#lib/identity/providers';
import { verifySignedToken } from '#lib/identity/signed-tokens';

/**
 * The IdPs' key sets at their edges (lib/identity/key-sets.ts, contract §17): what is asked of the
 * fetch, documents that are no key set, a fetch that throws, verifications that wait for one
 * fetch, and a `kid` two keys share. The ordinary keeping and refetching is
 * test/unit/identity-key-sets.test.ts.
 */

const IDP: IdentityProvider = { issuer: 'https://idp.example', jwksUri: 'https://idp.example/jwks' };
const RULES = { typ: 'jwt', audience: 'https://keys.example' };
const NOW = 1_000_000;

let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let jwk: JWK;
beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), alg: 'ES256' };
});

/** Key sets over a fetch answering `answer`, recording what it was asked; a clock to move. */
function keySets(answer: (url: string) => PublicJsonResult | Promise<PublicJsonResult>) {
  const asked: [string, string][] = [];
  let clock = NOW;
  const sets = new IdentityKeySets(
    async (url, what) => {
      asked.push([url, what]);
      return answer(url);
    },
    () => clock,
  );
  const verify = async (kid = 'k1', provider = IDP) => {
    const token = await new SignJWT({ iss: provider.issuer, aud: RULES.audience })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
      .setIssuedAt(Math.floor(clock / 1000))
      .sign(privateKey);
    return verifySignedToken(token, [provider], sets, RULES, new Date(clock));
  };
  const advance = (ms: number) => {
    clock += ms;
  };
  return { asked, verify, advance };
}

const unavailable = (description: string) => ({ ok: false, reason: 'keys_unavailable', description });

describe('the key sets’ edges', () => {
  it('name their failure as such', () => {
    const error = new KeySetUnavailable('The key set answered 503.');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('KeySetUnavailable');
    expect(error.reason).toBe('The key set answered 503.');
  });

  it('tell the fetch what each document is, for its failures’ sentences', async () => {
    const viaJwksUri = keySets(() => ({ ok: true, json: { keys: [{ ...jwk, kid: 'k1' }] } }));
    await viaJwksUri.verify();
    expect(viaJwksUri.asked).toEqual([[IDP.jwksUri, 'The identity provider’s key set (JWKS)']]);
    const discovered = keySets((url) =>
      url.endsWith('openid-configuration')
        ? { ok: true, json: { issuer: IDP.issuer, jwks_uri: IDP.jwksUri } }
        : { ok: true, json: { keys: [{ ...jwk, kid: 'k1' }] } },
    );
    expect((await discovered.verify('k1', { issuer: IDP.issuer })).ok).toBe(true);
    expect(discovered.asked).toEqual([
      [
        'https://idp.example/.well-known/openid-configuration',
        'The identity provider’s OpenID configuration',
      ],
      [IDP.jwksUri, 'The identity provider’s key set (JWKS)'],
    ]);
  });

  it.each([
    ['null', null, 'The identity provider’s key set (JWKS) has no list of keys.'],
    ['text', 'keys', 'The identity provider’s key set (JWKS) has no list of keys.'],
    ['keys that are no list', { keys: 'k1' }, 'The identity provider’s key set (JWKS) has no list of keys.'],
    [
      'keys that are no objects',
      { keys: ['k1'] },
      'The identity provider’s key set (JWKS) is not a valid JWKS.',
    ],
  ])('refuse a document whose %s is no key set', async (_name, json, description) => {
    expect(await keySets(() => ({ ok: true, json })).verify()).toEqual(unavailable(description));
  });

  it('refuse an OpenID configuration that is null as naming another issuer', async () => {
    const sets = keySets(() => ({ ok: true, json: null }));
    expect(await sets.verify('k1', { issuer: IDP.issuer })).toEqual(
      unavailable('The identity provider’s OpenID configuration names another issuer.'),
    );
  });

  it('answer a fetch that throws (it should not) as keys that could not be read', async () => {
    const sets = keySets(() => {
      throw new Error('socket hang up at 10.0.0.1');
    });
    expect(await sets.verify()).toEqual(unavailable('The identity provider’s keys could not be read.'));
  });

  it('fetch once for verifications that arrive together', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sets = keySets(async () => {
      await gate;
      return { ok: true, json: { keys: [{ ...jwk, kid: 'k1' }] } };
    });
    const pending = Promise.all([sets.verify(), sets.verify(), sets.verify()]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect((await pending).map((r) => r.ok)).toEqual([true, true, true]);
    expect(sets.asked).toHaveLength(1);
  });

  it('do not fetch again for a kid two keys share: the key set is ambiguous, not stale', async () => {
    const sets = keySets(() => ({
      ok: true,
      json: {
        keys: [
          { ...jwk, kid: 'k1' },
          { ...jwk, kid: 'twin' },
          { ...jwk, kid: 'twin' },
        ],
      },
    }));
    await sets.verify();
    sets.advance(KEY_SET_LIMITS.refetchAfterMs);
    expect(await sets.verify('twin')).toMatchObject({ ok: false, reason: 'unknown_key' });
    expect(sets.asked).toHaveLength(1);
    // An unknown kid, by contrast, is looked for again after 5 minutes.
    expect(await sets.verify('k9')).toMatchObject({ ok: false, reason: 'unknown_key' });
    expect(sets.asked).toHaveLength(2);
  });
});
