import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { AppError } from '#lib/errors';

/** Step-up window (contract §5): a login at most this old may mint a secret. */
export const STEP_UP_MAX_AGE_SECONDS = 900;
const FUTURE_SKEW_SECONDS = 60;

export const REAUTHENTICATION_CHALLENGE = `Bearer error="insufficient_user_authentication", max_age="${STEP_UP_MAX_AGE_SECONDS}"`;

export interface Caller {
  userId: string;
  emailVerified: boolean;
  /** Seconds since the epoch of the last interactive login, when the token says. */
  authTime: number | undefined;
}

type ClaimValue = string | number | boolean | string[] | undefined;

// API Gateway may deliver claims as strings ("true", "1732270000"): accept both forms.
const asBoolean = (v: ClaimValue): boolean => v === true || v === 'true';
function asEpochSeconds(v: ClaimValue): number | undefined {
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** The verified user behind a request, from the JWT authorizer's claims. */
export function callerFrom(event: APIGatewayProxyEventV2WithJWTAuthorizer): Caller {
  const claims = (event.requestContext?.authorizer?.jwt?.claims ?? {}) as Record<string, ClaimValue>;
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 256) {
    throw new AppError('unauthorized', 'The access token carries no subject.');
  }
  return {
    userId: sub,
    emailVerified: asBoolean(claims.email_verified),
    authTime: asEpochSeconds(claims.auth_time),
  };
}

/** Create and rotate mint a secret: they need a verified email and a login from the last 900 s. */
export function assertStepUp(caller: Caller, now: Date): void {
  if (!caller.emailVerified) {
    throw new AppError(
      'email_not_verified',
      'Verify your email address before creating or rotating API keys.',
    );
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const age = caller.authTime === undefined ? Number.POSITIVE_INFINITY : nowSeconds - caller.authTime;
  if (age > STEP_UP_MAX_AGE_SECONDS || age < -FUTURE_SKEW_SECONDS) {
    throw new AppError(
      'reauthentication_required',
      'Sign in again: this action needs a login from the last 15 minutes.',
      {
        headers: { 'www-authenticate': REAUTHENTICATION_CHALLENGE },
      },
    );
  }
}
