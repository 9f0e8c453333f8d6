import type { JWTPayload } from 'jose';
import type { IdentityKeySets } from './key-sets.ts';
import type { IdentityProvider } from './providers.ts';
import { claimText, MAX_JTI_LENGTH, type TokenRefusalReason, verifySignedToken } from './signed-tokens.ts';

/**
 * Security Event Tokens (RFC 8417) pushed by a trusted identity provider (RFC 8935; the OpenID
 * Shared Signals Framework's RISC and CAEP events, contract §17): verified with the rules every
 * IdP-signed token shares, then read for what this service acts on.
 */

/** A SET's media type, as its header's `typ` says it (RFC 8417 §2.3). */
export const SET_TYP = 'secevent+jwt';
/** The oldest SET accepted (`iat`): its `jti` is kept this long and a day more, so a replay finds it. */
export const SET_MAX_AGE_SECONDS = 7 * 86_400;

/** The events this service acts on; any other is acknowledged and ignored. */
export const SIGNAL_EVENTS = {
  'https://schemas.openid.net/secevent/risc/event-type/account-disabled': 'account-disabled',
  'https://schemas.openid.net/secevent/risc/event-type/account-purged': 'account-purged',
  'https://schemas.openid.net/secevent/risc/event-type/account-enabled': 'account-enabled',
  'https://schemas.openid.net/secevent/caep/event-type/session-revoked': 'session-revoked',
} as const;
export type SignalEvent = (typeof SIGNAL_EVENTS)[keyof typeof SIGNAL_EVENTS];

/** RFC 8935 §2.3's error codes. */
export type SetErrorCode =
  | 'invalid_request'
  | 'invalid_key'
  | 'invalid_issuer'
  | 'invalid_audience'
  | 'authentication_failed';

/** A refused SET: RFC 8935 §2.3's `{ err, description }`, or 503 when the IdP's keys could not be had. */
export class SetError extends Error {
  constructor(
    readonly err: SetErrorCode,
    readonly description: string,
    readonly status: 400 | 503 = 400,
  ) {
    super(description);
    this.name = 'SetError';
  }
}

const ERRORS: Record<TokenRefusalReason, SetErrorCode> = {
  malformed: 'invalid_request',
  typ: 'invalid_request',
  algorithm: 'invalid_key',
  unknown_key: 'invalid_key',
  signature: 'invalid_key',
  untrusted_issuer: 'invalid_issuer',
  audience: 'invalid_audience',
  expired: 'invalid_request',
  lifetime: 'invalid_request',
  keys_unavailable: 'authentication_failed',
};

/** One event a SET carries: what it is, and whose (this service's user id), when it can tell. */
export interface Signal {
  event: SignalEvent | 'other';
  userId: string | undefined;
}

/** A verified SET: its IdP, its `jti`, until when the `jti` is kept, and its events. */
export interface VerifiedSet {
  provider: IdentityProvider;
  jti: string;
  keepUntil: string;
  signals: Signal[];
}

type Subject = { format?: unknown; iss?: unknown; sub?: unknown; id?: unknown; email?: unknown };

/** The user id a subject identifier (RFC 9493) names, under the IdP's `userClaim`. */
function userOf(subject: Subject | undefined, provider: IdentityProvider): string | undefined {
  // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, a string or number subject has no format either
  if (!subject || typeof subject !== 'object') return undefined;
  const claim = provider.userClaim ?? 'sub';
  if (
    claim === 'sub' &&
    subject.format === 'iss_sub' &&
    subject.iss === provider.issuer &&
    typeof subject.sub === 'string'
  )
    return subject.sub;
  if (claim === 'sub' && subject.format === 'opaque' && typeof subject.id === 'string') return subject.id;
  if (claim === 'email' && subject.format === 'email' && typeof subject.email === 'string')
    return subject.email;
  return undefined;
}

/** The events of a SET's `events` claim, each with its subject (the SET's `sub_id`, else the event's own). */
function signalsOf(payload: JWTPayload, provider: IdentityProvider): Signal[] {
  const events = payload.events;
  if (!events || typeof events !== 'object' || Array.isArray(events))
    throw new SetError('invalid_request', 'The SET has no events claim.');
  return Object.entries(events as Record<string, { subject?: Subject } | undefined>).map(([type, body]) => ({
    event: (SIGNAL_EVENTS as Record<string, SignalEvent>)[type] ?? 'other',
    userId: userOf((payload.sub_id as Subject | undefined) ?? body?.subject, provider),
  }));
}

/** Verifies a SET for this service (`audience`: its issuer); throws `SetError`. */
export async function verifySet(
  token: string,
  context: { providers: readonly IdentityProvider[]; keySets: IdentityKeySets; audience: string; now: Date },
): Promise<VerifiedSet> {
  const verified = await verifySignedToken(
    token,
    context.providers,
    context.keySets,
    { typ: SET_TYP, audience: context.audience },
    context.now,
  );
  if (!verified.ok)
    throw new SetError(
      ERRORS[verified.reason],
      verified.description,
      verified.reason === 'keys_unavailable' ? 503 : 400,
    );
  const { provider, payload } = verified;
  const nowSeconds = Math.floor(context.now.getTime() / 1000);
  if (typeof payload.iat !== 'number') throw new SetError('invalid_request', 'The SET has no iat claim.');
  if (payload.iat < nowSeconds - SET_MAX_AGE_SECONDS)
    throw new SetError('invalid_request', 'The SET is older than 7 days (iat).');
  const jti = claimText(payload.jti, MAX_JTI_LENGTH);
  if (!jti) throw new SetError('invalid_request', 'The SET has no jti claim.');
  return {
    provider,
    jti,
    keepUntil: new Date((payload.iat + SET_MAX_AGE_SECONDS + 86_400) * 1000).toISOString(),
    signals: signalsOf(payload, provider),
  };
}
