import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer, localIssuer } from '#infra/local/dev/issuer';
import { remoteVerifier, type TokenVerifier } from '#infra/local/emulation/jwt-authorizer';
import { type RunningService, startService } from '#test/support/local-service';

/**
 * Local mode's JWT check is at least as strict as API Gateway's JWT authorizer (contract §8):
 * `exp` required and enforced, `nbf`/`iat` at most 60 s in the future, `kid` required and
 * matched, issuer and audience; for the dev issuer and for a real identity provider alike.
 */
const IDP_ISSUER = 'https://idp.example.test/';
const IDP_AUDIENCE = 'svc-dashboard';
const IDP_KID = 'idp-key-1';

let devIssuer: LocalIssuer;
let devKey: CryptoKey;
let devKid: string;
let idpKey: CryptoKey;
let jwksServer: Server;
let jwksUrl: string;
let remote: TokenVerifier;

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-jwt-'));
  devIssuer = await localIssuer(dataDir);
  // The dev issuer's private key, as anyone with the data directory could read it.
  const privateJwk = JSON.parse(readFileSync(join(dataDir, 'jwt', 'signing-key.jwk.json'), 'utf8')) as JWK;
  devKid = privateJwk.kid ?? '';
  devKey = (await importJWK(privateJwk, 'ES256')) as CryptoKey;

  const pair = await generateKeyPair('RS256', { extractable: true });
  idpKey = pair.privateKey;
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: IDP_KID, alg: 'RS256', use: 'sig' }] };
  jwksServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const address = jwksServer.address();
  jwksUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/jwks.json`;
  remote = remoteVerifier(jwksUrl, IDP_ISSUER, IDP_AUDIENCE);
});
afterAll(async () => {
  await new Promise((resolve) => jwksServer?.close(resolve));
});

const now = () => Math.floor(Date.now() / 1000);

interface Variant {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  omit?: string[];
  key?: 'own' | 'foreign';
}

interface Issuer {
  name: string;
  verifier: () => TokenVerifier;
  alg: string;
  kid: () => string;
  key: () => CryptoKey;
  iss: string;
  aud: string;
}

const issuers: Issuer[] = [
  {
    name: 'the dev issuer',
    verifier: () => devIssuer,
    alg: 'ES256',
    kid: () => devKid,
    key: () => devKey,
    iss: LOCAL_ISSUER,
    aud: LOCAL_AUDIENCE,
  },
  {
    name: 'a real identity provider (JWT_ISSUER/JWKS_URL)',
    verifier: () => remote,
    alg: 'RS256',
    kid: () => IDP_KID,
    key: () => idpKey,
    iss: IDP_ISSUER,
    aud: IDP_AUDIENCE,
  },
];

async function mint(issuer: Issuer, variant: Variant = {}): Promise<string> {
  const t = now();
  const claims: JWTPayload = {
    sub: 'alice',
    iss: issuer.iss,
    aud: issuer.aud,
    iat: t,
    exp: t + 3600,
    email_verified: true,
    auth_time: t,
    ...variant.claims,
  };
  for (const name of variant.omit ?? []) delete claims[name];
  const header = { alg: issuer.alg, kid: issuer.kid(), typ: 'JWT', ...variant.header };
  for (const name of variant.omit ?? []) delete (header as Record<string, unknown>)[name];
  const key = variant.key === 'foreign' ? (await generateKeyPair(issuer.alg)).privateKey : issuer.key();
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
}

/** An unsigned token (`alg: none`) with otherwise valid claims. */
function unsigned(issuer: Issuer): string {
  const t = now();
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none', kid: issuer.kid() })}.${part({ sub: 'alice', iss: issuer.iss, aud: issuer.aud, iat: t, exp: t + 3600 })}.`;
}

// Built when each test runs: the clock moves while the suite starts its servers.
const refused: [string, () => Variant][] = [
  ['without exp', () => ({ omit: ['exp'] })],
  ['expired a second ago', () => ({ claims: { exp: now() - 1 } })],
  ['with iat an hour in the future', () => ({ claims: { iat: now() + 3600 } })],
  ['with iat 65 s in the future', () => ({ claims: { iat: now() + 65 } })],
  ['with nbf two minutes in the future', () => ({ claims: { nbf: now() + 120 } })],
  ['without kid', () => ({ omit: ['kid'] })],
  ['with an empty kid', () => ({ header: { kid: '' } })],
  ['with a kid the key set does not hold', () => ({ header: { kid: 'someone-else' } })],
  ['signed by another key under the right kid', () => ({ key: 'foreign' })],
  ['from another issuer', () => ({ claims: { iss: 'https://evil.example/' } })],
  ['for another audience', () => ({ claims: { aud: 'another-api' } })],
];

describe.each(issuers)('$name', (issuer) => {
  it('accepts a well-formed token, and nbf/iat up to 60 s in the future', async () => {
    expect(await issuer.verifier().verify(await mint(issuer))).toMatchObject({ sub: 'alice' });
    const skewed = await mint(issuer, { claims: { nbf: now() + 30, iat: now() + 30 } });
    expect(await issuer.verifier().verify(skewed)).toMatchObject({ sub: 'alice' });
  });

  it.each(refused)('refuses a token %s', async (_label, variant) => {
    expect(await issuer.verifier().verify(await mint(issuer, variant()))).toBeUndefined();
  });

  it('refuses an unsigned token (alg none)', async () => {
    expect(await issuer.verifier().verify(unsigned(issuer))).toBeUndefined();
  });
});

describe('over HTTP, with the service pointed at a real identity provider', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-jwt-e2e-')),
        JWT_ISSUER: IDP_ISSUER,
        JWT_AUDIENCE: IDP_AUDIENCE,
        JWKS_URL: jwksUrl,
      },
      ['--in-memory'],
    );
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
  });

  const list = async (token: string) => {
    const response = await fetch(`${service.url}/v1/mcp/api-keys`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: response.status, body: await response.text() };
  };

  it('answers 401 as API Gateway does for a token without exp, with a future iat or without kid', async () => {
    const idp = issuers[1] as Issuer;
    expect((await list(await mint(idp))).status).toBe(200);
    for (const variant of [{ omit: ['exp'] }, { claims: { iat: now() + 3600 } }, { omit: ['kid'] }]) {
      expect(await list(await mint(idp, variant))).toEqual({
        status: 401,
        body: '{"message":"Unauthorized"}',
      });
    }
  });
});
