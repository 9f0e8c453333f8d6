import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  SignJWT,
} from 'jose';
import { type TokenVerifier, verifyWith } from '../emulation/jwt-authorizer.ts';

export const LOCAL_ISSUER = 'urn:svc:local-dev-issuer';
export const LOCAL_AUDIENCE = 'svc-mcp-api-keys';
const ALG = 'ES256';
const TOKEN_TTL_SECONDS = 3600;
export interface LocalIssuer extends TokenVerifier {
  jwks: JSONWebKeySet;
  mint(claims: { sub: string; email_verified?: boolean; auth_age_seconds?: number }): Promise<string>;
}

/**
 * An ES256 signing key kept in `dir` (generated on first use; the private part 0600), its public
 * JWKS and the imported private key: the dev issuer's and the development IdP's.
 */
export async function localSigningKey(dir: string, kidPrefix: string) {
  const file = join(dir, 'signing-key.jwk.json');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let privateJwk: JWK;
  try {
    privateJwk = JSON.parse(await readFile(file, 'utf8')) as JWK;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const { privateKey } = await generateKeyPair(ALG, { extractable: true });
    privateJwk = {
      ...(await exportJWK(privateKey)),
      alg: ALG,
      kid: `${kidPrefix}-${Date.now().toString(36)}`,
      use: 'sig',
    };
    await writeFile(file, JSON.stringify(privateJwk), { mode: 0o600, flag: 'wx' });
    await chmod(file, 0o600);
  }
  const { d: _private, ...publicJwk } = privateJwk;
  return {
    alg: ALG,
    kid: publicJwk.kid ?? kidPrefix,
    jwks: { keys: [publicJwk] } as JSONWebKeySet,
    signingKey: await importJWK(privateJwk, ALG),
  };
}

/** The dev issuer (a dev tool: a deployment trusts a real identity provider): an ES256 key pair generated once into the data directory (private part 0600). */
export async function localIssuer(dataDir: string): Promise<LocalIssuer> {
  const { jwks, kid, signingKey } = await localSigningKey(join(dataDir, 'jwt'), 'local');
  const keySet = createLocalJWKSet(jwks);
  return {
    jwks,
    mint: async ({ sub, email_verified = true, auth_age_seconds = 0 }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ email_verified, auth_time: now - auth_age_seconds })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setSubject(sub)
        .setIssuer(LOCAL_ISSUER)
        .setAudience(LOCAL_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_TTL_SECONDS)
        .sign(signingKey);
    },
    verify: (token) => verifyWith(keySet, token, LOCAL_ISSUER, LOCAL_AUDIENCE),
  };
}
