import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';

/** Clock skew allowed for `nbf` and `iat` in the future (contract §8); `exp` gets none. */
export const CLOCK_SKEW_SECONDS = 60;

/** The HTTP API's JWT authorizer, emulated: a token's claims, or undefined when API Gateway would refuse it. */
export interface TokenVerifier {
  verify(token: string): Promise<JWTPayload | undefined>;
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
export async function verifyWith(
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
