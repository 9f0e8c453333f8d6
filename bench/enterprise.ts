import { randomUUID } from 'node:crypto';
import { IdentityKeySets } from '#lib/identity/key-sets';
import { createKey } from '#lib/keys/lifecycle';
import type { OAuthDeps } from '#lib/oauth/deps';
import { receiveSignal } from '#lib/oauth/identity-signals';
import { token } from '#lib/oauth/token';
import { testIdp } from '#test/support/idp';
import { buildRuntimeWithAdapters } from '#test/support/runtime-adapters';
import { BENCH_APP, consentGrantTokens } from './consent-grant.ts';
import type { BenchContext } from './context.ts';
import { interleavedSequential, record, scaled } from './harness.ts';
import { costsAsAKey } from './verify.ts';

/**
 * Enterprise-managed authorization (contract §17), against DynamoDB Local: an ID-JAG's exchange
 * (verified with the IdP's cached keys, the grant renewed, a token issued) next to a consent
 * grant's token request (a refresh) in the same run; an enterprise grant's access token verified
 * next to a key of the same person; and one identity signal that ends a person's 50 credentials.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ISSUER = 'https://keys.bench.example';
const IDP = 'https://idp.bench.example';
const RESOURCE = 'https://mcp.bench.example/mcp';

/** A runtime with OAuth and the bench's IdP trusted; the IdP's documents served in memory. */
async function enterpriseRuntime(ctx: BenchContext) {
  const built = buildRuntimeWithAdapters(
    {
      ...ctx.config,
      oauth: {
        issuer: ISSUER,
        consentPageUrl: 'https://dash.bench.example/consent',
        resources: [RESOURCE],
        identityProviders: [{ issuer: IDP }],
      },
      mcpResource: RESOURCE,
    },
    { doc: ctx.rt.doc },
  );
  const idp = await testIdp(IDP, { aud: ISSUER, resource: RESOURCE });
  const base = built.oauth as OAuthDeps;
  const app = BENCH_APP;
  const oauth: OAuthDeps = {
    ...base,
    clients: async () => ({ ok: true as const, client: app }),
    enterprise: {
      ...(base.enterprise as NonNullable<OAuthDeps['enterprise']>),
      keySets: new IdentityKeySets(idp.fetch),
    },
  };
  return { built, oauth, idp, app };
}

export async function enterprise(ctx: BenchContext, log: (line: string) => void) {
  log('enterprise: ID-JAG exchange, enterprise access tokens, identity signals');
  const { built, oauth, idp, app } = await enterpriseRuntime(ctx);
  const { userId, key } = await ctx.creatorWithKey(1);

  // A consent grant of the same person and app, for its refresh.
  let refreshToken = (
    await consentGrantTokens(oauth, app, { userId, workspaceIds: key.metadata.workspace_ids }, RESOURCE)
  ).refresh_token;

  // The ID-JAGs are signed by the IdP beforehand: what is timed is this service's exchange.
  const n = scaled(200, 4);
  const jags = await Promise.all(
    Array.from({ length: n + 1 }, () => idp.idJag({ sub: userId, client_id: app.client_id })),
  );
  let accessToken = (
    await token(oauth, { grant_type: JWT_BEARER, assertion: jags.pop() as string, client_id: app.client_id })
  ).access_token;
  const times = await interleavedSequential(
    {
      refresh: async () => {
        refreshToken = (
          await token(oauth, {
            grant_type: 'refresh_token',
            refresh_token: refreshToken,
            client_id: app.client_id,
          })
        ).refresh_token;
      },
      exchange: async () => {
        accessToken = (
          await token(oauth, {
            grant_type: JWT_BEARER,
            assertion: jags.pop() as string,
            client_id: app.client_id,
          })
        ).access_token;
      },
    },
    n,
  );
  record(
    'ID-JAG exchange (cached JWKS, grant renewed, token issued), p50',
    times.exchange.p50,
    'ms',
    { name: 'consent grant refresh at the token endpoint, p50 (same run)', value: times.refresh.p50 },
    { text: '≤ 3x', met: (m) => (m.ratio ?? Number.POSITIVE_INFINITY) <= 3 },
  );

  // The enterprise grant's access token: the key's one round trip, at the key's read units.
  const verifyToken = () => built.verify(accessToken);
  if ((await verifyToken()).outcome !== 'valid') throw new Error('enterprise access token does not verify');
  await costsAsAKey(built.doc, 'enterprise access-token', {
    token: verifyToken,
    key: () => built.verify(key.apiKey),
  });

  await signalOf50(ctx, oauth, idp);
}

/** One `account-disabled` for a person with 50 active credentials (47 keys, 3 enterprise grants). */
async function signalOf50(ctx: BenchContext, oauth: OAuthDeps, idp: Awaited<ReturnType<typeof testIdp>>) {
  const { userId, key } = await ctx.creatorWithKey(1);
  for (let i = 1; i < 47; i++)
    await createKey(oauth, {
      userId,
      name: `k${i}`,
      workspaceIds: key.metadata.workspace_ids,
      scopes: ['svc.forms.read'],
    });
  for (let i = 0; i < 3; i++) {
    const clientId = `https://app${i}.bench.example/client.json`;
    const client = {
      client_id: clientId,
      client_name: `App ${i}`,
      redirect_uris: [],
      verified_domain: `app${i}.bench.example`,
      registration: 'metadata_document' as const,
    };
    await token(
      { ...oauth, clients: async () => ({ ok: true as const, client }) },
      {
        grant_type: JWT_BEARER,
        assertion: await idp.idJag({ sub: userId, client_id: clientId }),
        client_id: clientId,
      },
    );
  }
  const set = await idp.sign(
    {
      iss: IDP,
      aud: ISSUER,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      sub_id: { format: 'iss_sub', iss: IDP, sub: userId },
      events: { 'https://schemas.openid.net/secevent/risc/event-type/account-disabled': {} },
    },
    { typ: 'secevent+jwt' },
  );
  const started = performance.now();
  const done = await receiveSignal(oauth, set);
  const ms = performance.now() - started;
  if (done.revoked !== 50) throw new Error(`the signal revoked ${done.revoked} credentials, not 50`);
  record('identity signal revoking 50 credentials (one delivery)', ms, 'ms', undefined, {
    text: '< 10,000 (the OAuth function’s timeout)',
    met: (m) => m.value < 10_000,
  });
}
