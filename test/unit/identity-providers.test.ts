import { describe, expect, it } from 'vitest';
import {
  identityProvidersProblems,
  MAX_IDENTITY_PROVIDERS,
  parseIdentityProviders,
} from '#lib/identity/providers';

/**
 * The trusted identity providers setting (`IDENTITY_PROVIDERS`, contract §17): https URLs only
 * (loopback http in local mode), each issuer once, at most 10, every problem named at once, so a
 * deployment fails at cold start rather than trust the wrong keys.
 */

const IDP = 'https://idp.example.org';
const problems = (value: unknown, allowLoopbackHttp?: boolean) =>
  identityProvidersProblems(value, allowLoopbackHttp === undefined ? undefined : { allowLoopbackHttp });

describe('the identity providers setting', () => {
  it('takes https issuers and key sets, a claim name, and nothing else', () => {
    expect(
      parseIdentityProviders(
        JSON.stringify([
          { issuer: IDP },
          {
            issuer: 'https://login.example.com/tenant/v2.0',
            jwksUri: 'https://keys.example.com/jwks',
            userClaim: 'email',
          },
        ]),
      ),
    ).toEqual([
      { issuer: IDP },
      {
        issuer: 'https://login.example.com/tenant/v2.0',
        jwksUri: 'https://keys.example.com/jwks',
        userClaim: 'email',
      },
    ]);
    expect(parseIdentityProviders('[]')).toEqual([]);
  });

  it.each([
    [
      'an http jwksUri',
      [{ issuer: IDP, jwksUri: 'http://idp.example.org/jwks' }],
      '[0].jwksUri must be an https URL',
    ],
    ['an http issuer', [{ issuer: 'http://idp.example.org' }], '[0].issuer must be an https URL'],
    [
      'an issuer twice',
      [{ issuer: IDP }, { issuer: IDP, userClaim: 'email' }],
      'must not list an issuer twice',
    ],
    [
      'more than 10',
      Array.from({ length: MAX_IDENTITY_PROVIDERS + 1 }, (_, i) => ({
        issuer: `https://idp${i}.example.org`,
      })),
      'must list at most 10 identity providers',
    ],
    ['no issuer', [{ jwksUri: `${IDP}/jwks` }], '[0].issuer must be an https URL'],
    ['an issuer that is no URL', [{ issuer: 'idp.example.org' }], '[0].issuer must be an https URL'],
    [
      'an issuer of 2049 characters',
      [{ issuer: `${IDP}/${'a'.repeat(2025)}` }],
      '[0].issuer must be an https URL',
    ],
    [
      'user information',
      [{ issuer: 'https://user@idp.example.org' }],
      '[0].issuer must have no user information or fragment',
    ],
    [
      'a password',
      [{ issuer: 'https://:secret@idp.example.org' }],
      '[0].issuer must have no user information or fragment',
    ],
    [
      'a fragment',
      [{ issuer: IDP, jwksUri: `${IDP}/jwks#keys` }],
      '[0].jwksUri must have no user information or fragment',
    ],
    [
      'a setting it does not know',
      [{ issuer: IDP, audience: 'x' }],
      '[0].audience is not a setting of an identity provider',
    ],
    ['a claim that is no name', [{ issuer: IDP, userClaim: 'a b' }], '[0].userClaim must be a claim name'],
    ['a claim that is no string', [{ issuer: IDP, userClaim: 7 }], '[0].userClaim must be a claim name'],
    [
      'an entry that is no object',
      ['https://idp.example.org'],
      '[0] must be an object { issuer, jwksUri?, userClaim? }',
    ],
    ['a null entry', [null], '[0] must be an object { issuer, jwksUri?, userClaim? }'],
    ['an entry that is a list', [[IDP]], '[0] must be an object { issuer, jwksUri?, userClaim? }'],
    ['a value that is no list', { issuer: IDP }, 'must be a list of { issuer, jwksUri?, userClaim? }'],
  ])('refuses %s', (_name, value, problem) => {
    expect(problems(value)).toEqual([problem]);
    expect(() => parseIdentityProviders(JSON.stringify(value))).toThrow(`IDENTITY_PROVIDERS ${problem}`);
  });

  it('names every problem of every entry, each with its place', () => {
    expect(
      problems([
        { issuer: 'http://a.example', x: 1 },
        { issuer: IDP, jwksUri: 'ftp://b.example/jwks' },
      ]),
    ).toEqual([
      '[0].x is not a setting of an identity provider',
      '[0].issuer must be an https URL',
      '[1].jwksUri must be an https URL',
    ]);
    expect(() =>
      parseIdentityProviders('[{"issuer":"http://a.example"},{"issuer":"http://a.example"}]'),
    ).toThrow(
      'IDENTITY_PROVIDERS [0].issuer must be an https URL; [1].issuer must be an https URL; must not list an issuer twice',
    );
  });

  it('allows http only on 127.0.0.1, and only in local mode', () => {
    const local = [
      { issuer: 'http://127.0.0.1:3000/_dev/idp', jwksUri: 'http://127.0.0.1:3000/_dev/idp/jwks' },
    ];
    expect(problems(local, true)).toEqual([]);
    expect(problems(local)).toEqual(['[0].issuer must be an https URL', '[0].jwksUri must be an https URL']);
    expect(problems(local, false)).toHaveLength(2);
    expect(problems([{ issuer: 'http://localhost:3000/idp' }], true)).toEqual([
      '[0].issuer must be an https URL (or http://127.0.0.1 in local mode)',
    ]);
    expect(problems([{ issuer: 'ftp://127.0.0.1/idp' }], true)).toHaveLength(1);
    expect(parseIdentityProviders(JSON.stringify(local), { allowLoopbackHttp: true })).toEqual(local);
  });

  it('takes exactly 10, and a claim name of 64 characters', () => {
    const ten = Array.from({ length: MAX_IDENTITY_PROVIDERS }, (_, i) => ({
      issuer: `https://idp${i}.example.org`,
    }));
    expect(MAX_IDENTITY_PROVIDERS).toBe(10);
    expect(problems(ten)).toEqual([]);
    expect(problems([{ issuer: IDP, userClaim: `c${'x'.repeat(63)}` }])).toEqual([]);
    expect(problems([{ issuer: IDP, userClaim: `c${'x'.repeat(64)}` }])).toHaveLength(1);
    expect(problems([{ issuer: IDP, userClaim: '1st' }])).toHaveLength(1);
    // A value that is no string is refused as such, even when its text would be a name.
    expect(problems([{ issuer: IDP, userClaim: true }])).toEqual(['[0].userClaim must be a claim name']);
    expect(problems([{ issuer: IDP, userClaim: 'urn:example.claim_a-b' }])).toEqual([]);
    expect(problems([{ issuer: `${IDP}/${'a'.repeat(2024)}` }])).toEqual([]);
  });

  it('refuses a value that is no JSON in a sentence of its own', () => {
    expect(() => parseIdentityProviders('[{')).toThrow(
      'IDENTITY_PROVIDERS must be JSON: a list of { issuer, jwksUri?, userClaim? }',
    );
  });

  it('keeps only the fields that are set', () => {
    const [parsed] = parseIdentityProviders(JSON.stringify([{ issuer: IDP }]));
    expect(Object.keys(parsed ?? {})).toEqual(['issuer']);
  });
});
