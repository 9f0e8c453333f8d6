import { describe, expect, it } from 'vitest';
import {
  REDIRECT_URI_MAX_LENGTH,
  redirectHost,
  redirectUriMatches,
  redirectUriProblem,
} from '#lib/oauth/redirect-uris';

/** Redirect URIs (contract §15): what may be registered, how one is matched, what consent shows. */

describe('a redirect URI that may be registered', () => {
  it.each([
    ['ChatGPT', 'https://chatgpt.com/connector_platform_oauth_redirect'],
    ['Claude', 'https://claude.ai/api/mcp/auth_callback'],
    ['Claude (claude.com)', 'https://claude.com/api/mcp/auth_callback'],
    ['https with a port and a query', 'https://example.com:8443/cb?tenant=a'],
    ['MCP Inspector on localhost', 'http://localhost:6274/oauth/callback'],
    ['loopback IPv4 without a port', 'http://127.0.0.1/callback'],
    ['loopback IPv6', 'http://[::1]:33418/'],
    ['Cursor', 'cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback'],
    ['VS Code', 'vscode://vscode.github-authentication/did-authenticate'],
    ['a reverse-domain scheme without authority (RFC 8252 §7.1)', 'com.example.app:/oauth2redirect/example'],
  ])('%s: %s', (_label, uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });
});

describe('a redirect URI that may not be registered', () => {
  it.each([
    ['a relative one', '/callback', /not an absolute URI/],
    ['no scheme', 'example.com/callback', /not an absolute URI/],
    ['a fragment', 'https://example.com/cb#done', /fragment/],
    ['an empty fragment', 'https://example.com/cb#', /fragment/],
    ['http to a public host', 'http://example.com/cb', /http to a host other than the loopback/],
    ['http to a private address', 'http://10.0.0.1/cb', /http to a host other than the loopback/],
    ['http to another loopback address', 'http://127.0.0.2/cb', /http to a host other than the loopback/],
    ['javascript:', 'javascript:alert(document.cookie)', /javascript: scheme/],
    ['JavaScript: in capitals', 'JavaScript:alert(1)', /javascript: scheme/],
    ['data:', 'data:text/html,<script>alert(1)</script>', /data: scheme/],
    ['file:', 'file:///etc/passwd', /file: scheme/],
    ['blob:', 'blob:https://example.com/uuid', /blob: scheme/],
    ['vbscript:', 'vbscript:msgbox', /vbscript: scheme/],
    ['mailto:', 'mailto:attacker@example.com', /mailto: scheme/],
    ['user information hiding the host', 'https://chatgpt.com@evil.example/cb', /user name or password/],
    ['https without //', 'https:evil.example/cb', /must start with https:\/\//],
    ['a backslash', 'https://evil.example\\@good.example/cb', /backslash/],
    ['a space', 'https://example.com/c b', /spaces, control or invisible/],
    ['a leading space', ' https://example.com/cb', /spaces, control or invisible/],
    ['a newline', 'https://example.com/cb\n', /spaces, control or invisible/],
    ['a bidirectional override', 'https://example.com/\u202ebc', /spaces, control or invisible/],
    ['an empty string', '', /is empty/],
  ])('%s', (_label, uri, reason) => {
    expect(redirectUriProblem(uri)).toMatch(reason);
  });

  it('is refused past the length limit', () => {
    const long = `https://example.com/${'a'.repeat(REDIRECT_URI_MAX_LENGTH)}`;
    expect(redirectUriProblem(long)).toMatch(`longer than ${REDIRECT_URI_MAX_LENGTH} characters`);
    expect(redirectUriProblem(long.slice(0, REDIRECT_URI_MAX_LENGTH))).toBeUndefined();
  });

  it('is quoted in the description, or named by the subject given instead', () => {
    expect(redirectUriProblem('http://example.com/cb')).toMatch(
      /^The redirect URI "http:\/\/example.com\/cb" uses/,
    );
    const named = redirectUriProblem('http://example.com/cb', 'redirect_uris[3]');
    expect(named).toMatch(/^redirect_uris\[3\] uses http/);
    expect(named).not.toContain('example.com/cb');
  });

  it('tells what to use instead', () => {
    expect(redirectUriProblem('http://example.com/cb')).toContain('use https, or http://127.0.0.1');
  });
});

describe('matching a presented redirect URI', () => {
  const registered = [
    'https://claude.ai/api/mcp/auth_callback',
    'http://127.0.0.1/callback',
    'http://localhost:6274/oauth/callback?x=1',
    'http://[::1]/cb',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
  ];

  it('matches a registered URI exactly', () => {
    for (const uri of registered) expect(redirectUriMatches(registered, uri)).toBe(true);
  });

  it('matches an https URI only as the same string', () => {
    expect(redirectUriMatches(registered, 'https://claude.ai/api/mcp/auth_callback/')).toBe(false);
    expect(redirectUriMatches(registered, 'https://claude.ai/api/mcp/auth_callback?x=1')).toBe(false);
    expect(redirectUriMatches(registered, 'https://claude.ai:8443/api/mcp/auth_callback')).toBe(false);
    expect(redirectUriMatches(registered, 'https://CLAUDE.ai/api/mcp/auth_callback')).toBe(false);
    expect(redirectUriMatches(registered, 'https://claude.ai/api/mcp/auth_callback#x')).toBe(false);
  });

  it('matches a loopback http URI on any port (RFC 8252 §7.3)', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53124/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://localhost:1234/oauth/callback?x=1')).toBe(true);
    expect(redirectUriMatches(registered, 'http://[::1]:9/cb')).toBe(true);
  });

  it('still needs the same host, path and query on a loopback URI', () => {
    expect(redirectUriMatches(registered, 'http://localhost:53124/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53124/other')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53124/callback?x=1')).toBe(false);
    expect(redirectUriMatches(registered, 'http://localhost:6274/oauth/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:53124/callback#frag')).toBe(false);
    expect(redirectUriMatches(registered, 'https://127.0.0.1:53124/callback')).toBe(false);
  });

  it('ignores the port only for loopback http', () => {
    expect(redirectUriMatches(['https://example.com/cb'], 'https://example.com:444/cb')).toBe(false);
    expect(redirectUriMatches(['http://example.com/cb'], 'http://example.com:8080/cb')).toBe(false);
    expect(redirectUriMatches(registered, 'cursor://anysphere.cursor-retrieval:1/oauth/callback')).toBe(
      false,
    );
  });

  it('matches nothing against an empty list', () => {
    expect(redirectUriMatches([], 'http://127.0.0.1/callback')).toBe(false);
  });
});

describe('the redirect host shown on the consent page', () => {
  it.each([
    ['https://claude.ai/api/mcp/auth_callback', 'claude.ai'],
    ['https://example.com:443/cb', 'example.com'],
    ['https://example.com:8443/cb', 'example.com:8443'],
    ['http://localhost:6274/oauth/callback', 'localhost:6274'],
    ['http://127.0.0.1/callback', '127.0.0.1'],
    ['http://[::1]:33418/', '[::1]:33418'],
    ['cursor://anysphere.cursor-retrieval/oauth/callback', 'cursor://'],
    ['vscode://vscode.github-authentication/did-authenticate', 'vscode://'],
    ['com.example.app:/oauth2redirect', 'com.example.app:'],
    ['not a uri', ''],
  ])('%s shows %s', (uri, host) => {
    expect(redirectHost(uri)).toBe(host);
  });
});
