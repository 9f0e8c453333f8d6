import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { assertStepUp, type Caller, callerFrom, REAUTHENTICATION_CHALLENGE } from '#lib/http/identity';

/** Who is calling, from the JWT authorizer's claims, and the step-up rule for minting a secret. */
const withClaims = (claims: Record<string, unknown> | undefined) =>
  ({
    requestContext: { authorizer: claims === undefined ? undefined : { jwt: { claims } } },
  }) as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const NOW = new Date('2026-11-23T10:00:00.000Z');
const nowSeconds = NOW.getTime() / 1000;
const caller = (authTime: number | undefined, emailVerified = true): Caller => ({
  userId: 'alice',
  emailVerified,
  authTime,
});

describe('the caller', () => {
  it('is the token subject, with its email verification and login time as API Gateway delivers them', () => {
    expect(callerFrom(withClaims({ sub: 'alice', email_verified: true, auth_time: 1_732_270_000 }))).toEqual({
      userId: 'alice',
      emailVerified: true,
      authTime: 1_732_270_000,
    });
    // API Gateway may stringify claims.
    expect(callerFrom(withClaims({ sub: 'alice', email_verified: 'true', auth_time: '1732270000' }))).toEqual(
      {
        userId: 'alice',
        emailVerified: true,
        authTime: 1_732_270_000,
      },
    );
  });

  it('has an unverified email unless the claim says true', () => {
    for (const value of [false, 'false', 'yes', 1, undefined]) {
      expect(callerFrom(withClaims({ sub: 'alice', email_verified: value })).emailVerified).toBe(false);
    }
  });

  it('has no login time when the claim is not a number of seconds', () => {
    for (const value of [
      'soon',
      '12e3',
      '-5',
      '1234567890123',
      '',
      ['1732270000'],
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(callerFrom(withClaims({ sub: 'alice', auth_time: value })).authTime).toBeUndefined();
    }
    expect(callerFrom(withClaims({ sub: 'alice', auth_time: '123456789012' })).authTime).toBe(
      123_456_789_012,
    );
  });

  it('is refused without a subject of 1 to 256 characters', () => {
    for (const claims of [undefined, {}, { sub: '' }, { sub: 42 }, { sub: 'x'.repeat(257) }]) {
      const error = refusal(() => callerFrom(withClaims(claims)));
      expect(error.code).toBe('unauthorized');
      expect(error.detail).toMatch(/no subject/);
    }
    expect(callerFrom(withClaims({ sub: 'x'.repeat(256) })).userId).toHaveLength(256);
  });
});

describe('step-up for minting a secret', () => {
  it('accepts a verified login up to 15 minutes old, and up to a minute in the future (clock skew)', () => {
    for (const age of [0, 900, -60]) expect(() => assertStepUp(caller(nowSeconds - age), NOW)).not.toThrow();
  });

  it('asks an older, a too-future or an unknown login to sign in again, with the challenge', () => {
    for (const authTime of [nowSeconds - 901, nowSeconds + 61, undefined]) {
      const error = refusal(() => assertStepUp(caller(authTime), NOW));
      expect(error.code).toBe('reauthentication_required');
      expect(error.detail).toMatch(/Sign in again/);
      expect(error.headers).toEqual({ 'www-authenticate': REAUTHENTICATION_CHALLENGE });
    }
    expect(REAUTHENTICATION_CHALLENGE).toBe('Bearer error="insufficient_user_authentication", max_age="900"');
  });

  it('counts a login made within the current second as fresh', () => {
    const justNow = new Date(NOW.getTime() + 999);
    expect(() => assertStepUp(caller(nowSeconds - 900), justNow)).not.toThrow();
  });

  it('refuses an unverified email first, whatever the login time', () => {
    const error = refusal(() => assertStepUp(caller(nowSeconds, false), NOW));
    expect(error.code).toBe('email_not_verified');
    expect(error.detail).toMatch(/Verify your email/);
  });
});
