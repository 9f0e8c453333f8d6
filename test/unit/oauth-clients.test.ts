import { describe, expect, it } from 'vitest';
import { DAY_MS } from '#lib/limits';
import {
  clientNameProblem,
  isMetadataDocumentClientId,
  OAUTH_CLIENT_LIMITS,
  validateRegistration,
} from '#lib/oauth/clients';

/** Dynamic Client Registration bodies (RFC 7591, contract §15) and metadata document client ids. */

const CURSOR = 'cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback';

/** The description of a refused body, or a failed assertion naming what was accepted. */
function refusal(body: unknown) {
  const result = validateRegistration(body);
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.metadata)}`);
  return result;
}

function accepted(body: unknown) {
  const result = validateRegistration(body);
  if (!result.ok) throw new Error(`refused: ${result.error_description}`);
  return result.metadata;
}

describe('the client limits', () => {
  it('are the contract’s', () => {
    expect(OAUTH_CLIENT_LIMITS).toMatchObject({
      maxBodyBytes: 8192,
      maxRedirectUris: 10,
      clientNameMaxLength: 100,
      unusedRegistrationMs: 30 * DAY_MS,
    });
  });
});

describe('a registration that is accepted', () => {
  it('is what Cursor sends: a private-use redirect, public, both grant types', () => {
    expect(
      accepted({
        client_name: 'Cursor',
        redirect_uris: [CURSOR],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    ).toEqual({
      client_name: 'Cursor',
      redirect_uris: [CURSOR],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // What its redirect URI is: the app on the person's device (SEP-837).
      application_type: 'native',
    });
  });

  it('gets the defaults: a public client of the code flow, named after its first redirect host', () => {
    expect(
      accepted({ redirect_uris: ['http://localhost:6274/oauth/callback', 'https://b.example/cb'] }),
    ).toEqual({
      client_name: 'localhost:6274',
      redirect_uris: ['http://localhost:6274/oauth/callback', 'https://b.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(accepted({ redirect_uris: [CURSOR] }).client_name).toBe('cursor://');
  });

  it('keeps the grant types asked for, each once, and a scope', () => {
    const metadata = accepted({
      redirect_uris: ['https://a.example/cb'],
      grant_types: ['authorization_code', 'authorization_code'],
      scope: 'svc.forms.read svc.forms.write',
    });
    expect(metadata.grant_types).toEqual(['authorization_code']);
    expect(metadata.scope).toBe('svc.forms.read svc.forms.write');
  });

  it('keeps a repeated redirect URI once, and trims the name', () => {
    const metadata = accepted({
      client_name: '  My client ',
      redirect_uris: ['https://a.example/cb', 'https://a.example/cb'],
    });
    expect(metadata).toMatchObject({ client_name: 'My client', redirect_uris: ['https://a.example/cb'] });
  });

  it('ignores metadata this server does not use, and leaves it out of what is stored', () => {
    const metadata = accepted({
      redirect_uris: ['https://a.example/cb'],
      logo_uri: 'https://a.example/logo.png',
      contacts: ['dev@a.example'],
      software_id: 'x',
    });
    expect(Object.keys(metadata).sort()).toEqual([
      'application_type',
      'client_name',
      'grant_types',
      'redirect_uris',
      'response_types',
      'token_endpoint_auth_method',
    ]);
  });

  it('checks application_type against the redirect URIs (SEP-837), and infers it when they agree', () => {
    expect(
      accepted({ redirect_uris: [CURSOR, 'http://127.0.0.1/cb'], application_type: 'native' }),
    ).toMatchObject({
      application_type: 'native',
    });
    expect(accepted({ redirect_uris: ['https://a.example/cb'], application_type: 'web' })).toMatchObject({
      application_type: 'web',
    });
    expect(accepted({ redirect_uris: ['https://a.example/cb'] }).application_type).toBe('web');
    // A client of both kinds that names none registers as before, with no type.
    expect(accepted({ redirect_uris: ['https://a.example/cb', CURSOR] }).application_type).toBeUndefined();
  });

  it('takes exactly ten redirect URIs and a name of exactly 100 characters', () => {
    const uris = Array.from({ length: 10 }, (_, i) => `https://a.example/cb${i}`);
    expect(accepted({ redirect_uris: uris, client_name: 'n'.repeat(100) }).redirect_uris).toHaveLength(10);
  });
});

describe('a registration that is refused', () => {
  it.each([
    ['a body that is not an object', [], /JSON object/],
    ['a null body', null, /JSON object/],
    ['a string body', 'redirect_uris=x', /JSON object/],
  ])('%s', (_label, body, reason) => {
    expect(refusal(body)).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(reason),
    });
  });

  it.each([['client_secret_basic'], ['client_secret_post'], ['private_key_jwt']])(
    'a confidential client (%s), with a description that says what to do',
    (method) => {
      const result = refusal({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: method });
      expect(result.error).toBe('invalid_client_metadata');
      expect(result.error_description).toContain('token_endpoint_auth_method must be "none" or left out');
      expect(result.error_description).toContain('public clients only');
      expect(result.error_description).toContain(`"${method}"`);
    },
  );

  it.each<[string, unknown, RegExp]>([
    ['missing', {}, /redirect_uris is required/],
    ['empty', { redirect_uris: [] }, /at least one/],
    ['a string instead of a list', { redirect_uris: 'https://a.example/cb' }, /array of strings/],
    ['a number in the list', { redirect_uris: ['https://a.example/cb', 7] }, /array of strings/],
    [
      'eleven',
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
      /at most 10 URIs/,
    ],
    [
      'http to a public host',
      { redirect_uris: ['http://evil.example/cb'] },
      /"http:\/\/evil.example\/cb" uses http/,
    ],
    ['javascript:', { redirect_uris: ['https://a.example/cb', 'javascript:alert(1)'] }, /javascript: scheme/],
    ['a fragment', { redirect_uris: ['https://a.example/cb#x'] }, /fragment/],
    // Schemes an operating system or browser runs something with (contract §15, turn 5).
    ...[
      'ms-msdt:/id PCWDiagnostic',
      'ms-msdt:?id=x',
      'search-ms:query=x',
      'itms-services://?action=download-manifest&url=https://e.example/m.plist',
      'itms-apps://x',
      'shell:startup',
      'jar:https://e.example/a.jar!/',
      'vnd.ms-excel:ofe|u|https://e.example/x',
      'file:///etc/passwd',
      'SEARCH-MS:x',
      'ms-officecmd:x',
    ].map(
      (uri) =>
        [uri, { redirect_uris: [uri.replaceAll(' ', '%20')] }, /scheme, which cannot receive a code/] as [
          string,
          unknown,
          RegExp,
        ],
    ),
    [
      'https for a native client (SEP-837)',
      { redirect_uris: ['https://a.example/cb'], application_type: 'native' },
      /application_type "native" takes loopback/,
    ],
    [
      'a loopback URI for a web client (SEP-837)',
      { redirect_uris: ['https://a.example/cb', 'http://127.0.0.1/cb'], application_type: 'web' },
      /application_type "web" takes https redirect URIs only/,
    ],
  ])('redirect_uris %s, as invalid_redirect_uri', (_label, body, reason) => {
    expect(refusal(body)).toEqual({
      ok: false,
      error: 'invalid_redirect_uri',
      error_description: expect.stringMatching(reason),
    });
  });

  const valid = { redirect_uris: ['https://a.example/cb'] };
  it('an application_type other than native or web, as invalid_client_metadata', () => {
    expect(refusal({ ...valid, application_type: 'desktop' })).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'application_type must be "native" or "web" (SEP-837).',
    });
  });

  it.each([
    [
      'a grant type this server has not',
      { grant_types: ['client_credentials'] },
      /"client_credentials" is not supported/,
    ],
    [
      'the implicit grant',
      { grant_types: ['authorization_code', 'implicit'] },
      /"implicit" is not supported/,
    ],
    [
      'refresh_token without authorization_code',
      { grant_types: ['refresh_token'] },
      /must include "authorization_code"/,
    ],
    ['no grant type', { grant_types: [] }, /must include "authorization_code"/],
    [
      'grant types that are not strings',
      { grant_types: 'authorization_code' },
      /grant_types must be an array/,
    ],
    ['the token response type', { response_types: ['token'] }, /response_types may only contain "code"/],
    ['no response type', { response_types: [] }, /must include "code"/],
    ['a name that is not a string', { client_name: 42 }, /client_name must be a string/],
    ['an empty name', { client_name: '   ' }, /client_name must not be empty/],
    ['a name of 101 characters', { client_name: 'n'.repeat(101) }, /at most 100 characters/],
    ['a name with a bidirectional override', { client_name: 'Claude\u202eedualC' }, /control or invisible/],
    ['a name with a newline', { client_name: 'Claude\nApproved by your admin' }, /control or invisible/],
    ['a scope that is not a string', { scope: ['svc.forms.read'] }, /scope must be a string/],
    ['a scope with two spaces', { scope: 'a  b' }, /separated by single spaces/],
    ['a scope with a quote', { scope: 'a"b' }, /scope must be a string/],
    ['a scope that is too long', { scope: 's'.repeat(1001) }, /at most 1000 characters/],
  ])('%s, as invalid_client_metadata', (_label, extra, reason) => {
    expect(refusal({ ...valid, ...extra })).toEqual({
      ok: false,
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(reason),
    });
  });

  it('every description is a sentence', () => {
    for (const body of [null, {}, { redirect_uris: ['http://x.example/'] }, { ...valid, grant_types: ['x'] }])
      expect(refusal(body).error_description).toMatch(/^[A-Za-z_].*\.$/s);
  });
});

describe('a client name', () => {
  it('names the field it came from', () => {
    expect(clientNameProblem('', 'The document’s client_name')).toBe(
      'The document’s client_name must not be empty.',
    );
    expect(clientNameProblem('Claude')).toBeUndefined();
  });
});

describe('a metadata document client id', () => {
  it.each([
    'https://claude.ai/oauth/claude-code-client-metadata',
    'https://vscode.dev/oauth/client-metadata.json',
    'https://client.example/oauth/metadata.json?v=2',
    // Fetchable or not is the fetcher's rule: these are told why they are refused.
    'https://127.0.0.1/x',
    'https://example.com:8443/x',
  ])('%s is one', (clientId) => {
    expect(isMetadataDocumentClientId(clientId)).toBe(true);
  });

  it.each([
    ['a DCR client id', '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61'],
    ['no path', 'https://client.example'],
    ['the root path', 'https://client.example/'],
    ['http', 'http://client.example/metadata.json'],
    ['a fragment', 'https://client.example/metadata.json#x'],
    ['an empty fragment', 'https://client.example/metadata.json#'],
    ['user information', 'https://user@client.example/metadata.json'],
    ['a password alone', 'https://:secret@client.example/metadata.json'],
    ['a dot segment', 'https://client.example/a/../metadata.json'],
    ['an explicit default port', 'https://client.example:443/metadata.json'],
    ['an upper-case host', 'https://Client.example/metadata.json'],
    ['a space', 'https://client.example/meta data.json'],
    ['another scheme', 'cursor://client.example/metadata.json'],
  ])('%s is not one', (_label, clientId) => {
    expect(isMetadataDocumentClientId(clientId)).toBe(false);
  });

  it('is a loopback http URL only when local mode allows it', () => {
    const local = 'http://127.0.0.1:8123/client.json';
    expect(isMetadataDocumentClientId(local)).toBe(false);
    expect(isMetadataDocumentClientId(local, { allowLoopbackHttp: true })).toBe(true);
    expect(isMetadataDocumentClientId('http://127.0.0.1/client.json', { allowLoopbackHttp: true })).toBe(
      true,
    );
    expect(isMetadataDocumentClientId('http://localhost:8123/client.json', { allowLoopbackHttp: true })).toBe(
      false,
    );
    expect(isMetadataDocumentClientId('http://10.0.0.1:8123/client.json', { allowLoopbackHttp: true })).toBe(
      false,
    );
    expect(isMetadataDocumentClientId('http://127.0.0.1:8123/', { allowLoopbackHttp: true })).toBe(false);
    // Only http, not any scheme, on the loopback address.
    expect(isMetadataDocumentClientId('ws://127.0.0.1:8123/client.json', { allowLoopbackHttp: true })).toBe(
      false,
    );
  });
});
