import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { PublicJsonFetch } from '#lib/identity/key-sets';

/**
 * An identity provider in a test: its key pair, its JWKS, and ID-JAGs (or any JWT) signed as it
 * signs them, with each rule of contract §17 breakable one at a time. `fetch` answers the JWKS and
 * the OpenID configuration as `publicJsonFetch` would over the wire, counting the fetches.
 */
export interface TestIdp {
  issuer: string;
  jwks: { keys: JWK[] };
  kid: string;
  fetch: PublicJsonFetch & { count: () => number };
  sign(payload: JWTPayload, header?: { alg?: string; typ?: string; kid?: string }): Promise<string>;
  idJag(
    claims: Partial<IdJagClaims> & { sub: string },
    header?: { alg?: string; typ?: string; kid?: string },
  ): Promise<string>;
  /** A new signing key (the old one is no longer published): rotation at the IdP. */
  rotate(): Promise<void>;
}

export interface IdJagClaims {
  sub: string;
  client_id: string;
  resource: string;
  scope: string;
  aud: string;
  jti: string;
  iat: number;
  exp: number;
}

export async function testIdp(
  issuer: string,
  defaults: { aud: string; client_id?: string; resource?: string; now?: () => Date },
): Promise<TestIdp> {
  let pair = await generateKeyPair('ES256', { extractable: true });
  let kid = `k-${randomUUID().slice(0, 8)}`;
  const publish = async () => ({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' }],
  });
  const idp = {
    issuer,
    jwks: await publish(),
    kid,
  } as TestIdp;
  let fetches = 0;
  idp.fetch = Object.assign(
    async (url: string) => {
      fetches++;
      if (url === `${issuer}/.well-known/openid-configuration`)
        return { ok: true as const, json: { issuer, jwks_uri: `${issuer}/jwks` } };
      if (url === `${issuer}/jwks`) return { ok: true as const, json: idp.jwks };
      return { ok: false as const, reason: 'not found' };
    },
    { count: () => fetches },
  );
  idp.sign = (payload, header = {}) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: header.alg ?? 'ES256', typ: header.typ ?? 'JWT', kid: header.kid ?? kid })
      .sign(pair.privateKey);
  idp.idJag = (claims, header = {}) => {
    const now = Math.floor((defaults.now?.() ?? new Date()).getTime() / 1000);
    return idp.sign(
      {
        iss: issuer,
        aud: defaults.aud,
        client_id: defaults.client_id,
        resource: defaults.resource,
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
        ...claims,
      },
      { typ: 'oauth-id-jag+jwt', ...header },
    );
  };
  idp.rotate = async () => {
    pair = await generateKeyPair('ES256', { extractable: true });
    kid = `k-${randomUUID().slice(0, 8)}`;
    idp.kid = kid;
    idp.jwks = await publish();
  };
  return idp;
}
