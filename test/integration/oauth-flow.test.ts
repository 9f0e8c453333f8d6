import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { AppError } from '#lib/errors';
import { makeHandlers } from '#lib/handlers/index';
import { generateGrantCredential } from '#lib/keys/format';
import { createKey } from '#lib/keys/lifecycle';
import type { KeyStore } from '#lib/keys/port';
import { authorize } from '#lib/oauth/authorize';
import { type ApproveInput, approve, consentView } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { register } from '#lib/oauth/registration';
import { type TokenResponse, token } from '#lib/oauth/token';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { freshCaller } from '#test/support/api';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { recordAnswer } from '#test/support/route-codes';

/**
 * The OAuth rules that need time to pass (contract §15 "The flow"), through the flow's use cases
 * on DynamoDB Local with a clock the test moves: the code's 60 s, the refresh grace and reuse
 * detection, a request's 10 minutes, an unused registration's 30 days, a grant's expiry as the
 * limit of every token. Then the consent routes' answers that need a store losing races. The
 * flow over HTTP with a real client is test/e2e/oauth.test.ts.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1/callback';
const SECOND = 1000;
const DAY = 86_400 * SECOND;

let tables: TestTables;
const clock = manualClock(new Date());
let rt: Runtime;
let oauth: OAuthDeps;
let clientId: string;

/** A runtime with OAuth on over this file's tables, on `now`; `settings` as `createTestTables` takes them. */
function oauthRuntime(settings: Parameters<TestTables['config']>[0] = {}, now = clock.now): Runtime {
  return buildRuntime(
    {
      ...tables.config(settings),
      oauth: {
        issuer: 'https://keys.example.com',
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources: [RESOURCE],
      },
      mcpResource: RESOURCE,
    },
    { doc: tables.doc, now },
  );
}

beforeAll(async () => {
  tables = await createTestTables();
  rt = oauthRuntime();
  oauth = rt.oauth as OAuthDeps;
  clientId = (await register(oauth, { client_name: 'Timed client', redirect_uris: [REDIRECT] })).client_id;
});
afterAll(() => tables.drop());

const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

/** An authorization request for the registered client, sent on to the consent page: its id. */
async function requested(deps: OAuthDeps = oauth): Promise<string> {
  const outcome = await authorize(deps, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state',
    resource: RESOURCE,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

/** A member's approved request: the code and who approved it. */
async function approved(input: Partial<ApproveInput> = {}) {
  const member = await newMember(tables);
  const { redirect_to } = await approve(oauth, member.userId, await requested(), {
    workspaceIds: [member.workspaceId],
    scopes: ['svc.forms.read'],
    ...input,
  });
  return { ...member, code: new URL(redirect_to).searchParams.get('code') as string };
}

const redeem = (code: string) =>
  token(oauth, {
    grant_type: 'authorization_code',
    code,
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    resource: RESOURCE,
  });

const refresh = (refreshToken: string) =>
  token(oauth, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

/** The grant a token names (the id part of every credential of a grant is the grant's id). */
async function grantOf(tokens: TokenResponse) {
  const verified = await rt.verify(tokens.access_token);
  if (verified.outcome !== 'valid') throw new Error(`not valid: ${verified.outcome}`);
  return verified.key_id;
}

/** The OAuth error a use case rejected with. */
async function refusal(pending: Promise<unknown>): Promise<OAuthError> {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OAuthError);
  return err as OAuthError;
}

async function revocationReasons(grantId: string) {
  const { items } = await rt.service.keys.listLineageEvents(grantId, { limit: 10 });
  return items.filter((e) => e.type === 'grant.revoked').map((e) => (e.details as { reason: string }).reason);
}

describe('an authorization code lives 60 seconds', () => {
  it('is redeemed 59 s after approval', async () => {
    const { code } = await approved();
    clock.advance(59 * SECOND);
    const tokens = await redeem(code);
    expect(tokens.expires_in).toBe(3600);
  });

  it('is invalid_grant 61 s after approval, and the grant it would have made is not revoked for it', async () => {
    const { code, userId } = await approved();
    clock.advance(61 * SECOND);
    const expired = await refusal(redeem(code));
    expect(expired.error).toBe('invalid_grant');
    expect(expired.description).toMatch(/expired/);
    const [grant] = (await rt.service.keys.listByUser(userId, { limit: 10, now: clock.now() })).items;
    expect(grant?.revoked_at).toBeUndefined();
    expect(await revocationReasons(grant?.id as string)).toEqual([]);
  });
});

describe('refresh rotation', () => {
  it('the refresh token just replaced works for 60 s; presented after, it revokes the grant (refresh_reuse)', async () => {
    const { code } = await approved();
    const first = await redeem(code);
    const grantId = await grantOf(first);
    const second = await refresh(first.refresh_token);
    clock.advance(59 * SECOND);
    // A client refreshing from two places at once is not logged out.
    const third = await refresh(first.refresh_token);
    expect((await rt.verify(third.access_token)).outcome).toBe('valid');

    clock.advance(2 * SECOND);
    const reused = await refusal(refresh(first.refresh_token));
    expect(reused.error).toBe('invalid_grant');
    expect(reused.description).toMatch(/already used; the grant is revoked/);
    expect(await revocationReasons(grantId)).toEqual(['refresh_reuse']);
    for (const live of [third.access_token, second.access_token])
      expect((await rt.verify(live)).outcome).toBe('revoked');
    expect((await refusal(refresh(third.refresh_token))).error).toBe('invalid_grant');
  });

  it('an unknown secret on the grant’s id is invalid_grant and revokes nothing, even after the grace', async () => {
    const { code } = await approved();
    const first = await redeem(code);
    const grantId = await grantOf(first);
    const second = await refresh(first.refresh_token);
    clock.advance(120 * SECOND);
    const forged = await refusal(refresh(generateGrantCredential('refresh_token', grantId)));
    expect(forged.error).toBe('invalid_grant');
    expect(await revocationReasons(grantId)).toEqual([]);
    expect((await rt.verify(second.access_token)).outcome).toBe('valid');
  });

  it('the access token a refresh replaced works a minute more, then not', async () => {
    const { code } = await approved();
    const first = await redeem(code);
    await refresh(first.refresh_token);
    clock.advance(59 * SECOND);
    expect((await rt.verify(first.access_token)).outcome).toBe('valid');
    clock.advance(2 * SECOND);
    expect((await rt.verify(first.access_token)).outcome).not.toBe('valid');
  });

  it('an access token lives an hour, and a refresh never reaches past the grant’s expiry', async () => {
    const { code } = await approved({ expiresInDays: 1 });
    const first = await redeem(code);
    clock.advance(3601 * SECOND);
    expect((await rt.verify(first.access_token)).outcome).not.toBe('valid');

    clock.advance(DAY - 3601 * SECOND - 600 * SECOND);
    const late = await refresh(first.refresh_token);
    expect(late.expires_in).toBeLessThanOrEqual(600);
    expect(late.expires_in).toBeGreaterThan(590);
    const verified = await rt.verify(late.access_token);
    expect(verified.outcome).toBe('valid');

    clock.advance(601 * SECOND);
    expect((await rt.verify(late.access_token)).outcome).not.toBe('valid');
    const after = await refusal(refresh(late.refresh_token));
    expect(after.error).toBe('invalid_grant');
    expect(after.description).toMatch(/expired/);
  });
});

describe('a grant is for one MCP server, however its URL was written (RFC 8707)', () => {
  it('a resource written in another form of the same URL is the same resource at the token endpoint', async () => {
    const member = await newMember(tables);
    const outcome = await authorize(oauth, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://MCP.example.com:443/mcp',
    });
    if (outcome.kind !== 'redirect') throw new Error(outcome.message);
    const requestId = new URL(outcome.location).searchParams.get('request') as string;
    // The consent page names the server as the deployment knows it.
    expect((await consentView(oauth, member.userId, requestId)).resource).toBe(RESOURCE);
    const { redirect_to } = await approve(oauth, member.userId, requestId, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    const tokens = await redeem(new URL(redirect_to).searchParams.get('code') as string);
    expect((await rt.verify(tokens.access_token)).outcome).toBe('valid');
    const refreshed = await token(oauth, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: 'https://mcp.EXAMPLE.com/mcp',
    });
    expect(refreshed.access_token).toBeDefined();
    const other = await refusal(
      token(oauth, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.refresh_token,
        client_id: clientId,
        resource: 'https://mcp.example.com/other',
      }),
    );
    expect(other.error).toBe('invalid_target');
  });
});

describe('requests and registrations expire', () => {
  it('a request not decided within 10 minutes is request_not_found', async () => {
    const member = await newMember(tables);
    const requestId = await requested();
    clock.advance(599 * SECOND);
    expect((await consentView(oauth, member.userId, requestId)).id).toBe(requestId);
    clock.advance(2 * SECOND);
    const gone = await consentView(oauth, member.userId, requestId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(gone).toBeInstanceOf(AppError);
    expect((gone as AppError).code).toBe('request_not_found');
  });

  it('a registration no grant used is unknown after 30 days; one a grant used is kept', async () => {
    const unused = (await register(oauth, { redirect_uris: [REDIRECT] })).client_id;
    const resolvedNow = await oauth.clients(unused);
    expect(resolvedNow.ok).toBe(true);
    // clientId was used by the grants above.
    clock.advance(30 * DAY + SECOND);
    expect(await oauth.clients(unused)).toMatchObject({ ok: false });
    expect(await oauth.clients(clientId)).toMatchObject({ ok: true });
  });
});

type Handler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** `POST …/approve` through its Lambda handler, as API Gateway invokes it; the answer is recorded for the route-codes reporter. */
async function approveRoute(runtime: Runtime, userId: string, requestId: string, body: unknown) {
  const handler = makeHandlers(runtime, { githubKeys: async () => [] })['approve-oauth-request'] as Handler;
  const rawPath = `/v1/mcp/oauth/requests/${requestId}/approve`;
  const out = await handler(
    httpApiEvent({
      method: 'POST',
      routeKey: 'POST /v1/mcp/oauth/requests/{request_id}/approve',
      rawPath,
      pathParameters: { request_id: requestId },
      headers: { 'content-type': 'application/json', 'user-agent': 'vitest' },
      body: JSON.stringify(body),
      claims: freshCaller(userId) as unknown as Record<string, unknown>,
    }),
    lambdaContext('test'),
  );
  if (typeof out === 'string') throw new Error('handlers must return structured results');
  const reply = { status: out.statusCode ?? 200, body: JSON.parse(out.body ?? '{}') };
  recordAnswer('POST', rawPath, reply.status, reply.body);
  return reply;
}

// The approve route checks the login's age (step-up) on the runtime's clock: these run on the real one.
const realTime = () => new Date();

describe('approve counts a grant against the active-credential cap, as create counts a key', () => {
  it('409 key_limit_reached when the person holds the most active credentials allowed', async () => {
    const capped = oauthRuntime({ maxActiveKeys: 1 }, realTime);
    const member = await newMember(tables);
    await createKey(capped.service, {
      userId: member.userId,
      name: 'laptop',
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    const reply = await approveRoute(capped, member.userId, await requested(capped.oauth as OAuthDeps), {
      workspace_ids: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ code: 'key_limit_reached' });
  });

  it('409 conflict when concurrent changes keep taking the slot it freed, and no grant is written', async () => {
    const capped = oauthRuntime({ maxActiveKeys: 1 }, realTime);
    const deps = capped.oauth as OAuthDeps;
    // Every slot looks held by a lapsed lineage, and every release is taken again at once.
    const lapsed = { 'other-lineage': '2000-01-01T00:00:00.000Z' };
    const keys = Object.create(deps.keys) as KeyStore;
    keys.releaseSlots = async () => undefined;
    const store = Object.create(deps.store) as OAuthDeps['store'];
    store.approve = async () => ({ kind: 'no_free_slot', slots: lapsed });
    const racing: Runtime = { ...capped, oauth: { ...deps, keys, store } };
    const member = await newMember(tables);
    const requestId = await requested(deps);
    const reply = await approveRoute(racing, member.userId, requestId, {
      workspace_ids: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ code: 'conflict' });
    expect((await rt.service.keys.listByUser(member.userId, { limit: 10, now: new Date() })).items).toEqual(
      [],
    );
  });
});
