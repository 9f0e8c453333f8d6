import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyRecord } from '#lib/keys/model';
import { authorize } from '#lib/oauth/authorize';
import { approve } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { AuthorizationRequest } from '#lib/oauth/model';
import type { GrantTokens } from '#lib/oauth/port';
import { register } from '#lib/oauth/registration';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';

/**
 * The authorization server's DynamoDB adapter (lib/store/oauth-store.ts) on DynamoDB Local: its
 * requests and registrations as stored, and each conditional write answering a lost race as data
 * (a request claimed or decided once, a code redeemed once, tokens replaced from the ones read).
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1/callback';
const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let clientId: string;

beforeAll(async () => {
  tables = await createTestTables();
  rt = buildRuntime(
    {
      ...tables.config(),
      oauth: {
        issuer: 'https://keys.example.com',
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources: [RESOURCE],
      },
    },
    { doc: tables.doc, now: clock.now },
  );
  oauth = rt.oauth as OAuthDeps;
  clientId = (await register(oauth, { client_name: 'Store client', redirect_uris: [REDIRECT] })).client_id;
});
afterAll(() => tables.drop());

function request(overrides: Partial<AuthorizationRequest> = {}): AuthorizationRequest {
  return {
    id: randomUUID(),
    client: { id: clientId, name: 'Store client', verified_domain: null },
    redirect_uri: REDIRECT,
    redirect_host: '127.0.0.1',
    code_challenge: challenge,
    resource: RESOURCE,
    scopes: ['svc.forms.read'],
    created_at: '2026-11-28T09:00:00.000Z',
    expires_at: '2026-11-28T09:10:00.000Z',
    grant_id: randomUUID(),
    ...overrides,
  };
}

const rawItem = async (pk: string, sk: string) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.keysTable, Key: { pk, sk } }))).Item;

/** A grant approved through the flow, with its code not yet redeemed: the record as stored. */
async function approvedGrant(): Promise<KeyRecord> {
  const member = await newMember(tables);
  const outcome = await authorize(oauth, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  const requestId = new URL(outcome.location).searchParams.get('request') as string;
  await approve(oauth, member.userId, requestId, {
    workspaceIds: [member.workspaceId],
    scopes: ['svc.forms.read'],
  });
  const stored = await oauth.store.getRequest(requestId);
  const grant = await rt.service.keys.get(stored?.grant_id as string);
  if (!grant) throw new Error('no grant');
  return grant;
}

const tokens = (n: number, extra: Partial<GrantTokens> = {}): GrantTokens => ({
  access: { digest: `access-${n}`, until: '2026-11-28T10:00:00.000Z' },
  refresh: `refresh-${n}`,
  ...extra,
});

describe('an authorization request', () => {
  it('is stored once under its id with a TTL at its expiry, and read back without the table’s keys', async () => {
    const stored = request({ state: 'xyz' });
    await oauth.store.putRequest(stored);
    expect(await oauth.store.getRequest(stored.id)).toEqual(stored);
    expect(await rawItem(`OAUTH_REQUEST#${stored.id}`, 'REQUEST')).toMatchObject({
      ttl: Date.parse(stored.expires_at) / 1000,
    });
    await expect(oauth.store.putRequest({ ...stored, state: 'other' })).rejects.toThrow();
    expect((await oauth.store.getRequest(stored.id))?.state).toBe('xyz');
    expect(await oauth.store.getRequest(randomUUID())).toBeUndefined();
  });

  it('is claimed by the first person who opens it; others read it as claimed, a missing one is undefined', async () => {
    const stored = request();
    await oauth.store.putRequest(stored);
    expect(await oauth.store.claimRequest(stored.id, 'user-a')).toEqual({ ...stored, user_id: 'user-a' });
    expect(await oauth.store.claimRequest(stored.id, 'user-b')).toEqual({ ...stored, user_id: 'user-a' });
    expect(await oauth.store.claimRequest(stored.id, 'user-a')).toEqual({ ...stored, user_id: 'user-a' });
    expect(await oauth.store.claimRequest(randomUUID(), 'user-a')).toBeUndefined();
    expect(await rawItem(`OAUTH_REQUEST#${randomUUID()}`, 'REQUEST')).toBeUndefined();
  });

  it('is denied once, by the person who claimed it; a missing or unclaimed one is not', async () => {
    const stored = request();
    await oauth.store.putRequest(stored);
    expect(await oauth.store.deny({ ...stored, user_id: 'user-a' })).toBe(false);
    await oauth.store.claimRequest(stored.id, 'user-a');
    expect(await oauth.store.deny({ ...stored, user_id: 'user-b' })).toBe(false);
    expect(await oauth.store.deny({ ...stored, user_id: 'user-a' })).toBe(true);
    expect((await oauth.store.getRequest(stored.id))?.decision).toBe('denied');
    expect(await oauth.store.deny({ ...stored, user_id: 'user-a' })).toBe(false);
    expect(await oauth.store.deny(request({ user_id: 'user-a' }))).toBe(false);
  });
});

describe('a registered client', () => {
  it('is stored once with a TTL, and kept (TTL removed, first use recorded) once a grant uses it', async () => {
    const id = randomUUID();
    const client = {
      client_id: id,
      client_name: 'Kept',
      redirect_uris: [REDIRECT],
      created_at: clock.now().toISOString(),
    };
    await oauth.store.putClient(client, new Date('2026-12-28T09:00:00.900Z'));
    expect(await oauth.store.getClient(id)).toEqual(client);
    expect((await rawItem(`OAUTH_CLIENT#${id}`, 'CLIENT'))?.ttl).toBe(
      Date.parse('2026-12-28T09:00:00Z') / 1000,
    );
    await expect(oauth.store.putClient({ ...client, client_name: 'Again' }, new Date())).rejects.toThrow();

    await oauth.store.keepClient(id, new Date('2026-11-29T00:00:00.000Z'));
    await oauth.store.keepClient(id, new Date('2026-11-30T00:00:00.000Z'));
    expect(await oauth.store.getClient(id)).toEqual({ ...client, used_at: '2026-11-29T00:00:00.000Z' });
    expect(await rawItem(`OAUTH_CLIENT#${id}`, 'CLIENT')).not.toHaveProperty('ttl');
    // Keeping a registration that is gone changes nothing and does not fail.
    const gone = randomUUID();
    await oauth.store.keepClient(gone, new Date());
    expect(await oauth.store.getClient(gone)).toBeUndefined();
  });
});

describe('a grant’s tokens', () => {
  const grantItem = async (id: string) =>
    (await rawItem(keyPk(id), KEY_SK))?.grant as Record<string, unknown>;

  it('are first set by redeeming the code it was read with, once; the code is remembered as redeemed', async () => {
    const grant = await approvedGrant();
    const code = grant.grant?.code;
    expect(await oauth.store.redeemCode(grant, tokens(1))).toBe(true);
    const after = await grantItem(grant.id);
    expect(after).toMatchObject({
      access: tokens(1).access,
      refresh: 'refresh-1',
      redeemed_code: code?.digest,
    });
    expect(after).not.toHaveProperty('code');
    expect(after).not.toHaveProperty('previous_access');
    expect(after).not.toHaveProperty('replaced_refresh');
    expect(await oauth.store.redeemCode(grant, tokens(2))).toBe(false);
    expect((await grantItem(grant.id)).refresh).toBe('refresh-1');
    const { code: _code, ...withoutCode } = grant.grant as NonNullable<KeyRecord['grant']>;
    expect(await oauth.store.redeemCode({ ...grant, grant: withoutCode }, tokens(3))).toBe(false);
  });

  it('are not set on a revoked grant', async () => {
    const grant = await approvedGrant();
    await rt.service.keys.revoke(grant, clock.now(), []);
    expect(await oauth.store.redeemCode(grant, tokens(1))).toBe(false);
    expect(await grantItem(grant.id)).not.toHaveProperty('access');
  });

  it('are replaced from the refresh token they were read with, keeping or dropping the previous access token', async () => {
    const grant = await approvedGrant();
    await oauth.store.redeemCode(grant, tokens(1));
    const current = (await rt.service.keys.get(grant.id)) as KeyRecord;
    const previous = { digest: 'access-1', until: '2026-11-28T09:01:00.000Z' };
    const replaced = [{ digest: 'refresh-1', until: '2026-11-28T09:01:00.000Z' }];
    expect(
      await oauth.store.replaceTokens(
        current,
        tokens(2, { previous_access: previous, replaced_refresh: replaced }),
      ),
    ).toBe(true);
    expect(await grantItem(grant.id)).toMatchObject({
      access: tokens(2).access,
      refresh: 'refresh-2',
      previous_access: previous,
      replaced_refresh: replaced,
    });
    // Read before that replacement: another refresh won, nothing changes.
    expect(await oauth.store.replaceTokens(current, tokens(3))).toBe(false);
    expect((await grantItem(grant.id)).refresh).toBe('refresh-2');

    const again = (await rt.service.keys.get(grant.id)) as KeyRecord;
    expect(await oauth.store.replaceTokens(again, tokens(4, { replaced_refresh: [] }))).toBe(true);
    const last = await grantItem(grant.id);
    expect(last).toMatchObject({ refresh: 'refresh-4', replaced_refresh: [] });
    expect(last).not.toHaveProperty('previous_access');
  });
});

describe('a widening', () => {
  async function claimedRequestFor(grant: KeyRecord) {
    const stored = request({ user_id: grant.user_id, grant_id: randomUUID() });
    await oauth.store.putRequest(stored);
    await oauth.store.claimRequest(stored.id, grant.user_id);
    return stored;
  }
  const widening = (grant: KeyRecord, added: string[] = []) => ({
    scopes: [...grant.scopes, 'svc.forms.write' as const],
    workspace_ids: [...grant.workspace_ids, ...added],
    code: { digest: 'new-code', until: '2026-11-28T09:01:00.000Z', challenge },
    redirect_uri: 'http://127.0.0.1/again',
    redirect_host: '127.0.0.1',
  });

  it('sets the scopes (the workspace index’s copy too), the new code and its redirect, and marks the request approved for the grant', async () => {
    const grant = await approvedGrant();
    const stored = await claimedRequestFor(grant);
    expect(await oauth.store.widen(stored, grant, widening(grant), [], clock.now())).toBe('widened');
    const item = await rawItem(keyPk(grant.id), KEY_SK);
    expect(item).toMatchObject({
      scopes: ['svc.forms.read', 'svc.forms.write'],
      grant: {
        code: { digest: 'new-code' },
        redirect_uri: 'http://127.0.0.1/again',
        redirect_host: '127.0.0.1',
      },
    });
    const [entry] = await tables.workspaceEntries(grant.workspace_ids[0] as string);
    expect(entry).toMatchObject({ scopes: ['svc.forms.read', 'svc.forms.write'] });
    expect(await oauth.store.getRequest(stored.id)).toMatchObject({
      decision: 'approved',
      grant_id: grant.id,
    });
    expect(await oauth.store.widen(stored, grant, widening(grant), [], clock.now())).toBe('already_decided');
  });

  it('is grant_changed when the grant was revoked, expired or its scopes changed since it was read', async () => {
    const revoked = await approvedGrant();
    await rt.service.keys.revoke(revoked, clock.now(), []);
    expect(
      await oauth.store.widen(await claimedRequestFor(revoked), revoked, widening(revoked), [], clock.now()),
    ).toBe('grant_changed');

    const expired = await approvedGrant();
    expect(
      await oauth.store.widen(
        await claimedRequestFor(expired),
        expired,
        widening(expired),
        [],
        new Date(expired.expires_at),
      ),
    ).toBe('grant_changed');

    const changed = await approvedGrant();
    await tables.setKeyField(changed.id, 'scopes', ['svc.forms.read', 'svc.forms.generate']);
    const stored = await claimedRequestFor(changed);
    expect(await oauth.store.widen(stored, changed, widening(changed), [], clock.now())).toBe(
      'grant_changed',
    );
    expect((await oauth.store.getRequest(stored.id))?.decision).toBeUndefined();

    // Its workspaces changed (a concurrent widening added one): decided again, nothing written.
    const moved = await approvedGrant();
    await tables.setKeyField(moved.id, 'workspace_ids', [...moved.workspace_ids, randomUUID()]);
    const again = await claimedRequestFor(moved);
    expect(await oauth.store.widen(again, moved, widening(moved), [], clock.now())).toBe('grant_changed');
  });

  it('adds a workspace: the grant reaches it and the workspace index has its entry, with the widened scopes', async () => {
    const grant = await approvedGrant();
    const added = randomUUID();
    const stored = await claimedRequestFor(grant);
    expect(await oauth.store.widen(stored, grant, widening(grant, [added]), [], clock.now())).toBe('widened');
    expect(await rawItem(keyPk(grant.id), KEY_SK)).toMatchObject({
      workspace_ids: [...grant.workspace_ids, added],
    });
    expect(await tables.workspaceEntries(added)).toEqual([
      expect.objectContaining({
        key_id: grant.id,
        scopes: ['svc.forms.read', 'svc.forms.write'],
        workspace_access: 'active',
        expires_at: grant.expires_at,
      }),
    ]);
  });
});
