import { describe, expect, it } from 'vitest';
import { OAuthError } from '#lib/oauth/errors';

/** An OAuth protocol error's HTTP status (RFC 6749 §5.2; lib/oauth/errors.ts). */
describe('an OAuth error', () => {
  it('is 401 for invalid_client, 400 for the others, unless told', () => {
    const client = new OAuthError('invalid_client', 'Unknown client.');
    expect(client.status).toBe(401);
    expect(new OAuthError('invalid_grant', 'The code was used.').status).toBe(400);
    expect(new OAuthError('temporarily_unavailable', 'Retry.', 503).status).toBe(503);
  });

  it('is an Error named OAuthError whose message is its description', () => {
    const err = new OAuthError('invalid_request', 'Send a code_verifier.');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('OAuthError');
    expect(err.message).toBe('Send a code_verifier.');
    expect(err.error).toBe('invalid_request');
  });
});
