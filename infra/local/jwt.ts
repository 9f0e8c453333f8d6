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
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';

export const LOCAL_ISSUER = 'urn:svc:local-dev-issuer';
export const LOCAL_AUDIENCE = 'svc-mcp-api-keys';
const ALG = 'ES256';
const TOKEN_TTL_SECONDS = 3600;
/** Clock skew allowed for `nbf` and `iat` in the future (contract §8); `exp` gets none. */
export const CLOCK_SKEW_SECONDS = 60;

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

/** A real identity provider's tokens, with the same checks as the dev issuer's. */
export function remoteVerifier(jwksUrl: string, issuer: string, audience: string): TokenVerifier {
  const keySet = createRemoteJWKSet(new URL(jwksUrl));
  return { verify: (token) => verifyWith(keySet, token, issuer, audience) };
}

/**
 * At least as strict as the API Gateway JWT authorizer: a signature by the JWKS key the header's
 * `kid` names (a token without `kid` is refused, even when the set holds a single key), issuer,
 * audience, `exp` required and past it refused, `nbf` and `iat` at most 60 s in the future.
 */
async function verifyWith(
  keySet: JWTVerifyGetKey,
  token: string,
  issuer: string,
  audience: string,
): Promise<JWTPayload | undefined> {
  const keyNamedByKid: JWTVerifyGetKey = (header, jws) => {
    if (typeof header.kid !== 'string' || header.kid === '') throw new Error('the token names no key (kid)');
    return keySet(header, jws);
  };
  try {
    const { payload } = await jwtVerify(token, keyNamedByKid, {
      issuer,
      audience,
      requiredClaims: ['exp'],
      // jose applies one tolerance to exp and nbf: exp is checked again below without it.
      clockTolerance: CLOCK_SKEW_SECONDS,
    });
    const now = Math.floor(Date.now() / 1000);
    if ((payload.exp ?? 0) <= now) return undefined;
    if (payload.iat !== undefined && payload.iat > now + CLOCK_SKEW_SECONDS) return undefined;
    return payload;
  } catch {
    return undefined;
  }
}
