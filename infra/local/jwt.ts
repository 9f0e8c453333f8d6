import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';

export const LOCAL_ISSUER = 'urn:svc:local-dev-issuer';
export const LOCAL_AUDIENCE = 'svc-mcp-api-keys';
const ALG = 'ES256';
const TOKEN_TTL_SECONDS = 3600;

export interface TokenVerifier {
  verify(token: string): Promise<JWTPayload | undefined>;
}

export interface LocalIssuer extends TokenVerifier {
  jwks: JSONWebKeySet;
  mint(claims: { sub: string; email_verified?: boolean; auth_age_seconds?: number }): Promise<string>;
}

/** The dev issuer: an ES256 key pair generated once into the data directory (private part 0600). */
export async function localIssuer(dataDir: string): Promise<LocalIssuer> {
  const dir = join(dataDir, 'jwt');
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
      kid: `local-${Date.now().toString(36)}`,
      use: 'sig',
    };
    await writeFile(file, JSON.stringify(privateJwk), { mode: 0o600, flag: 'wx' });
    await chmod(file, 0o600);
  }
  const { d: _private, ...publicJwk } = privateJwk;
  const jwks: JSONWebKeySet = { keys: [publicJwk] };
  const signingKey = await importJWK(privateJwk, ALG);
  const keySet = createLocalJWKSet(jwks);
  return {
    jwks,
    mint: async ({ sub, email_verified = true, auth_age_seconds = 0 }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ email_verified, auth_time: now - auth_age_seconds })
        .setProtectedHeader({ alg: ALG, kid: publicJwk.kid ?? 'local', typ: 'JWT' })
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

/** A real identity provider's tokens, checked like the API Gateway JWT authorizer does. */
export function remoteVerifier(jwksUrl: string, issuer: string, audience: string): TokenVerifier {
  const keySet = createRemoteJWKSet(new URL(jwksUrl));
  return { verify: (token) => verifyWith(keySet, token, issuer, audience) };
}

async function verifyWith(
  keySet: Parameters<typeof jwtVerify>[1],
  token: string,
  issuer: string,
  audience: string,
): Promise<JWTPayload | undefined> {
  try {
    const { payload } = await jwtVerify(token, keySet as never, { issuer, audience, clockTolerance: 0 });
    return payload;
  } catch {
    return undefined;
  }
}
