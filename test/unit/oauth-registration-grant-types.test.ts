import { describe, expect, it } from 'vitest';
import { validateRegistration } from '#lib/oauth/clients';
import { grantTypesSupported, JWT_BEARER_GRANT } from '#lib/oauth/metadata';
import type { OAuthSettings } from '#lib/oauth/model';
import { CODE_FLOW_GRANT_TYPES } from '#lib/oauth/registration-types';

/**
 * The grant types a registration may name (RFC 7591, decision 89): those the metadata advertises,
 * the ID-JAG's jwt-bearer grant only where an identity provider is trusted, and what a client
 * without the code flow may leave out (redirect URIs, the response type). The DynamoDB Local side
 * is test/integration/oauth-registration.test.ts.
 */

const settings = (identityProviders: OAuthSettings['identityProviders']): OAuthSettings => ({
  issuer: 'https://keys.example.com',
  consentPageUrl: 'https://dashboard.example.com/consent',
  resources: ['https://mcp.example.com/mcp'],
  identityProviders,
});
const ENTERPRISE = grantTypesSupported(settings([{ issuer: 'https://idp.example.org' }]));
const CODE_ONLY = grantTypesSupported(settings(undefined));
const REDIRECT = 'http://127.0.0.1/cb';

const outcome = (body: unknown, supported: readonly string[] = ENTERPRISE) => {
  const result = validateRegistration(body, supported);
  return result.ok ? result.metadata : { error: result.error, description: result.error_description };
};

describe('the grant types of a registration', () => {
  it('are the code flow’s by default, and the metadata’s where an identity provider is trusted', () => {
    expect(CODE_FLOW_GRANT_TYPES).toEqual(['authorization_code', 'refresh_token']);
    expect(CODE_ONLY).toEqual(CODE_FLOW_GRANT_TYPES);
    expect(ENTERPRISE).toEqual(['authorization_code', 'refresh_token', JWT_BEARER_GRANT]);
    expect(validateRegistration({ redirect_uris: [REDIRECT] })).toMatchObject({
      ok: true,
      metadata: { grant_types: CODE_FLOW_GRANT_TYPES, response_types: ['code'] },
    });
    expect(validateRegistration({ client_name: 'A', grant_types: [JWT_BEARER_GRANT] })).toMatchObject({
      ok: false,
      error_description: `grant_types may only contain "authorization_code" and "refresh_token"; "${JWT_BEARER_GRANT}" is not supported.`,
    });
  });

  it('take the jwt-bearer grant alone without redirect URIs or a response type, named by the client', () => {
    for (const redirects of [{}, { redirect_uris: [] }])
      expect(outcome({ client_name: ' Assistant ', grant_types: [JWT_BEARER_GRANT], ...redirects })).toEqual({
        client_name: 'Assistant',
        redirect_uris: [],
        grant_types: [JWT_BEARER_GRANT],
        response_types: [],
        token_endpoint_auth_method: 'none',
      });
    expect(
      outcome({ client_name: 'A', grant_types: [JWT_BEARER_GRANT, JWT_BEARER_GRANT], response_types: [] }),
    ).toMatchObject({ grant_types: [JWT_BEARER_GRANT], response_types: [] });
  });

  it('keep the application type a jwt-bearer client without redirect URIs asks for', () => {
    expect(
      outcome({ client_name: 'A', grant_types: [JWT_BEARER_GRANT], application_type: 'web' }),
    ).toMatchObject({
      redirect_uris: [],
      application_type: 'web',
    });
    expect(outcome({ client_name: 'A', grant_types: [JWT_BEARER_GRANT] })).not.toHaveProperty(
      'application_type',
    );
  });

  it('keep the redirect URIs a jwt-bearer client lists, checked as any other', () => {
    expect(outcome({ grant_types: [JWT_BEARER_GRANT], redirect_uris: [REDIRECT] })).toMatchObject({
      client_name: '127.0.0.1',
      redirect_uris: [REDIRECT],
      response_types: [],
      application_type: 'native',
    });
    expect(
      outcome({ grant_types: [JWT_BEARER_GRANT], redirect_uris: ['javascript:alert(1)'] }),
    ).toMatchObject({
      error: 'invalid_redirect_uri',
    });
    expect(outcome({ client_name: 'A', grant_types: [JWT_BEARER_GRANT], redirect_uris: 'x' })).toEqual({
      error: 'invalid_redirect_uri',
      description: 'redirect_uris must be an array of strings.',
    });
  });

  it('with the code flow still need redirect URIs and the code response type', () => {
    const both = { client_name: 'A', grant_types: ['authorization_code', JWT_BEARER_GRANT] };
    expect(outcome({ ...both, redirect_uris: [] })).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(outcome(both)).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(outcome({ ...both, redirect_uris: [REDIRECT], response_types: [] })).toEqual({
      error: 'invalid_client_metadata',
      description:
        'response_types must include "code": this server issues tokens through the authorization code flow only.',
    });
    expect(outcome({ ...both, redirect_uris: [REDIRECT] })).toMatchObject({
      grant_types: ['authorization_code', JWT_BEARER_GRANT],
      response_types: ['code'],
    });
  });

  it.each([
    [
      'a jwt-bearer client without redirect URIs that gives no name',
      { grant_types: [JWT_BEARER_GRANT] },
      'client_name is required for a client without redirect URIs: it is the name people see in their list of apps.',
    ],
    [
      'the code response type without the code flow',
      { client_name: 'A', grant_types: [JWT_BEARER_GRANT], response_types: ['code'] },
      'response_types must not include "code" without the "authorization_code" grant type.',
    ],
    [
      'a response type this server has not',
      { client_name: 'A', grant_types: [JWT_BEARER_GRANT], response_types: ['token'] },
      'response_types may only contain "code"; "token" is not supported.',
    ],
    [
      'a refresh token alone',
      { client_name: 'A', grant_types: ['refresh_token'] },
      `grant_types must include "authorization_code" or "${JWT_BEARER_GRANT}": a refresh token only renews what the authorization code flow issued.`,
    ],
    [
      'a grant type the metadata does not list',
      { client_name: 'A', grant_types: [JWT_BEARER_GRANT, 'client_credentials'] },
      `grant_types may only contain "authorization_code", "refresh_token" and "${JWT_BEARER_GRANT}"; "client_credentials" is not supported.`,
    ],
    [
      'grant types that are not a list',
      { client_name: 'A', grant_types: JWT_BEARER_GRANT },
      'grant_types must be an array of strings.',
    ],
  ])('refuse %s, as invalid_client_metadata', (_name, body, description) => {
    expect(outcome(body)).toEqual({ error: 'invalid_client_metadata', description });
  });

  it('where only the code flow is offered, ask for authorization_code alone', () => {
    expect(outcome({ redirect_uris: [REDIRECT], grant_types: ['refresh_token'] }, CODE_ONLY)).toEqual({
      error: 'invalid_client_metadata',
      description:
        'grant_types must include "authorization_code": this server issues tokens through the authorization code flow only.',
    });
  });
});
