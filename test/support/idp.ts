import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import type { Config, Settings } from '#lib/config';
import { IdentityKeySets, type PublicJsonFetch } from '#lib/identity/key-sets';
import type { OAuthDeps } from '#lib/oauth/deps';
import { buildRuntime } from '#lib/runtime';

/**
 * An identity provider in a test: its key pair, its JWKS, and ID-JAGs (or any JWT) signed as it
 * signs them, with each rule of contract §17 breakable one at a time. `fetch` answers the JWKS and
 * the OpenID configuration as `publicJsonFetch` would over the wire, counting the fetches.
 */
export interface TestIdp {
  issuer: string;
  /** What every ID-JAG says unless told otherwise (a test may set `client_id` once it registered one). */
  defaults: IdJagDefaults;
  jwks: { keys: JWK[] };
  kid: string;
  fetch: PublicJsonFetch & { count: () => number };
  sign(payload: JWTPayload, header?: { alg?: string; typ?: string; kid?: string }): Promise<string>;
  idJag(
    claims: Partial<IdJagClaims> & { sub: string },
    header?: { alg?: string; typ?: string; kid?: string },
  ): Promise<string>;
  /** A new signing key (the old one is no longer published): rotation at the IdP. */
  rotate(): Promise<void>;
}

export interface IdJagClaims {
  sub: string;
  client_id: string;
  resource: string;
  scope: string;
  aud: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface IdJagDefaults {
  aud: string;
  client_id?: string;
  resource?: string;
  now?: () => Date;
}

export async function testIdp(issuer: string, defaults: IdJagDefaults): Promise<TestIdp> {
  let pair = await generateKeyPair('ES256', { extractable: true });
  let kid = `k-${randomUUID().slice(0, 8)}`;
  const publish = async () => ({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' }],
  });
  const idp = {
    issuer,
    defaults,
    jwks: await publish(),
    kid,
  } as TestIdp;
  let fetches = 0;
  idp.fetch = Object.assign(
    async (url: string) => {
      fetches++;
      if (url === `${issuer}/.well-known/openid-configuration`)
        return { ok: true as const, json: { issuer, jwks_uri: `${issuer}/jwks` } };
      if (url === `${issuer}/jwks`) return { ok: true as const, json: idp.jwks };
      return { ok: false as const, reason: 'not found' };
    },
    { count: () => fetches },
  );
  idp.sign = (payload, header = {}) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: header.alg ?? 'ES256', typ: header.typ ?? 'JWT', kid: header.kid ?? kid })
      .sign(pair.privateKey);
  idp.idJag = (claims, header = {}) => {
    const now = Math.floor((defaults.now?.() ?? new Date()).getTime() / 1000);
    return idp.sign(
      {
        iss: issuer,
        aud: defaults.aud,
        client_id: defaults.client_id,
        resource: defaults.resource,
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
        ...claims,
      },
      { typ: 'oauth-id-jag+jwt', ...header },
    );
  };
  idp.rotate = async () => {
    pair = await generateKeyPair('ES256', { extractable: true });
    kid = `k-${randomUUID().slice(0, 8)}`;
    idp.kid = kid;
    idp.jwks = await publish();
  };
  return idp;
}

/** Where the enterprise tests' deployment and IdP live. */
export const ENTERPRISE = {
  issuer: 'https://keys.example.com',
  resource: 'https://mcp.example.com/mcp',
  idp: 'https://idp.example.org',
} as const;

/**
 * A runtime on `tables` with OAuth on and the test IdP trusted (contract §17), and its OAuth deps
 * with the IdP's documents served from the test's IdP instead of the network
 * (test/integration/public-json.test.ts covers the wire).
 */
export async function enterpriseRuntime(
  tables: { config(settings?: Partial<Settings>): Config; doc: DynamoDBDocumentClient },
  clock: { now: () => Date },
  settings: Partial<Settings> = {},
) {
  const rt = buildRuntime(
    {
      ...tables.config(settings),
      oauth: {
        issuer: ENTERPRISE.issuer,
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources: [ENTERPRISE.resource],
        identityProviders: [{ issuer: ENTERPRISE.idp }],
      },
      mcpResource: ENTERPRISE.resource,
    },
    { doc: tables.doc, now: clock.now },
  );
  const idp = await testIdp(ENTERPRISE.idp, {
    aud: ENTERPRISE.issuer,
    resource: ENTERPRISE.resource,
    now: clock.now,
  });
  const built = rt.oauth as OAuthDeps;
  const oauth: OAuthDeps = {
    ...built,
    enterprise: {
      ...(built.enterprise as NonNullable<OAuthDeps['enterprise']>),
      keySets: new IdentityKeySets(idp.fetch, () => clock.now().getTime()),
    },
  };
  return { rt, idp, oauth };
}

/**
 * The forgeries an attacker tries on an IdP-signed token of type `typ` (contract §17), each with
 * claims that would otherwise pass: another key under the IdP's `kid`, `alg: none`, and HS256 with
 * the IdP's public key as the secret.
 */
export function forgeries(idp: TestIdp, typ: string) {
  return {
    otherKey: async (claims: JWTPayload) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ, kid: idp.kid })
        .sign((await generateKeyPair('ES256')).privateKey),
    algNone: async (claims: JWTPayload) =>
      new UnsecuredJWT(claims)
        .encode()
        .replace(/^[^.]+/, Buffer.from(JSON.stringify({ alg: 'none', typ })).toString('base64url')),
    publicKeyAsSecret: (claims: JWTPayload) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ, kid: idp.kid })
        .sign(new TextEncoder().encode(JSON.stringify(idp.jwks.keys[0]))),
  };
}
