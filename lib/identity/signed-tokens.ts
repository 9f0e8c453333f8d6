import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { type IdentityKeySets, KeySetUnavailable } from './key-sets.ts';
import type { IdentityProvider } from './providers.ts';

/**
 * A JWT signed by a trusted identity provider (an ID-JAG, a security event token), checked with
 * the rules of contract §17 that every such token shares: its `typ`; an asymmetric algorithm
 * (never `none`, never HS*: an IdP's public key is no secret); a trusted `iss` whose keys verify
 * the signature; `aud` this service; its times, with 60 s of clock skew. Each refusal names the
 * rule in a sentence and never repeats the token.
 */

/** The algorithms an IdP may sign with (RFC 7518, RFC 8037): asymmetric only. */
export const ASYMMETRIC_ALGORITHMS = [
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
] as const;

const ASYMMETRIC_ONLY = 'The token must be signed with an asymmetric algorithm (RS, PS, ES or EdDSA).';

/** A string claim of at most `max` characters (a `jti`, an id), or undefined. */
export const claimText = (value: unknown, max = 2048): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;

/** The longest `jti` kept (a longer one is refused rather than stored). */
export const MAX_JTI_LENGTH = 256;

/** Clock skew allowed on `exp`, `nbf` and `iat` (contract §17). */
export const CLOCK_SKEW_SECONDS = 60;

export interface SignedTokenRules {
  /** The header's `typ` (compared without case, with or without `application/`). */
  typ: string;
  /** This service's issuer: the `aud` the token must have. */
  audience: string;
  /** When set, `exp` and `iat` are required and `exp` at most this long after `iat`. */
  maxLifetimeSeconds?: number;
}

/** Why a token was refused: the rule, and a sentence for the caller. */
export type TokenRefusalReason =
  | 'malformed'
  | 'typ'
  | 'algorithm'
  | 'untrusted_issuer'
  | 'unknown_key'
  | 'signature'
  | 'audience'
  | 'expired'
  | 'lifetime'
  | 'keys_unavailable';

export type SignedTokenResult =
  | { ok: true; provider: IdentityProvider; payload: JWTPayload }
  | { ok: false; reason: TokenRefusalReason; description: string };

const refuse = (reason: TokenRefusalReason, description: string): SignedTokenResult => ({
  ok: false,
  reason,
  description,
});

const normalType = (typ: unknown) =>
  typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;

/** The header and the unverified issuer, or why the token is not even a JWT of the right type. */
function inspect(token: string, rules: SignedTokenRules) {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let issuer: unknown;
  try {
    header = decodeProtectedHeader(token);
    issuer = decodeJwt(token).iss;
  } catch {
    return refuse('malformed', 'The token is not a signed JWT.');
  }
  if (normalType(header.typ) !== rules.typ) return refuse('typ', `The token's typ must be ${rules.typ}.`);
  if (!(ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(header.alg))
    return refuse('algorithm', ASYMMETRIC_ONLY);
  return { issuer };
}

/** Verifies `token` from one of `providers`, with their keys from `keySets`. */
export async function verifySignedToken(
  token: string,
  providers: readonly IdentityProvider[],
  keySets: IdentityKeySets,
  rules: SignedTokenRules,
  now: Date,
): Promise<SignedTokenResult> {
  const inspected = inspect(token, rules);
  if ('ok' in inspected) return inspected;
  const provider = providers.find((p) => p.issuer === inspected.issuer);
  if (!provider)
    return refuse(
      'untrusted_issuer',
      'The token was not issued by an identity provider this service trusts.',
    );
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySets.resolverFor(provider), {
      issuer: provider.issuer,
      audience: rules.audience,
      algorithms: [...ASYMMETRIC_ALGORITHMS],
      currentDate: now,
      clockTolerance: CLOCK_SKEW_SECONDS,
      ...(rules.maxLifetimeSeconds !== undefined && { requiredClaims: ['exp', 'iat'] }),
    }));
  } catch (err) {
    return refusalOf(err);
  }
  // jose checks that `iat` is not ahead only when given `maxTokenAge`, which is not given here.
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if ((payload.iat ?? 0) > nowSeconds + CLOCK_SKEW_SECONDS)
    return refuse('lifetime', 'The token was issued in the future (iat).');
  // Without a lifetime rule nothing lives too long (`exp − iat` may be NaN then: never more than it).
  const maxLifetime = rules.maxLifetimeSeconds ?? Number.POSITIVE_INFINITY;
  if ((payload.exp as number) - (payload.iat as number) > maxLifetime)
    return refuse('lifetime', `The token may live at most ${maxLifetime / 60} minutes (exp − iat).`);
  return { ok: true, provider, payload };
}

/** What a failed `jwtVerify` (or the key set behind it) means for the caller. */
function refusalOf(err: unknown): SignedTokenResult {
  if (err instanceof KeySetUnavailable) return refuse('keys_unavailable', err.reason);
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return refuse('unknown_key', 'The identity provider has no key with the token’s kid.');
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return refuse('signature', 'The token’s signature does not verify with the identity provider’s key.');
  if (err instanceof errors.JWTExpired) return refuse('expired', 'The token has expired.');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return refuse('audience', 'The token’s audience (aud) is not this service.');
    if (err.claim === 'nbf') return refuse('expired', 'The token is not valid yet (nbf).');
    return refuse('malformed', `The token's ${err.claim} claim is missing or invalid.`);
  }
  // An algorithm outside the list never gets here (`inspect` refused it); anything else jose refuses
  // (an unknown critical header, say) is a token this service cannot read.
  return refuse('malformed', 'The token is not a valid signed JWT.');
}
