import { createHash, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalResource, type KeyRecord } from '#lib/keys/model';
import type { EnterpriseDeps, OAuthDeps } from '#lib/oauth/deps';
import type { EnterpriseGrantKey } from '#lib/oauth/port';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { ttlAfter } from '#lib/store/items';
import { removeKeyFromWorkspace } from '#lib/workspaces/keys';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { ENTERPRISE, enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * The enterprise grants' store (lib/store/enterprise-store.ts, contract §17) on DynamoDB Local:
 * where a used ID-JAG, an acted-on SET and a grant's `CURRENT` pointer are kept and for how long,
 * its reads consistent, and a renewal called directly: as read or refused as changed, its
 * workspace index matched to what it reaches, never to a workspace the grant was cut off from.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const DAY = 86_400_000;
const sha = (text: string) => createHash('sha256').update(text).digest('base64url');

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let store: EnterpriseDeps['store'];
let idp: TestIdp;
let clientId: string;
/** The reads the store sent, as DynamoDB received them. */
const reads: { Key?: Record<string, unknown>; ConsistentRead?: boolean }[] = [];

/** The table's client, recording every `GetItem` it sends. */
function recording(doc: DynamoDBDocumentClient) {
  const send = (command: { constructor: { name: string }; input: unknown }, ...rest: unknown[]) => {
    if (command.constructor.name === 'GetCommand') reads.push(command.input as (typeof reads)[number]);
    return (doc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  };
  return new Proxy(doc, {
    get: (target, name) => (name === 'send' ? send : Reflect.get(target, name, target)),
  });
}

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(
    { config: tables.config.bind(tables), doc: recording(tables.doc) },
    clock,
  ));
  store = (oauth.enterprise as EnterpriseDeps).store;
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  idp.defaults.client_id = clientId;
});
afterAll(() => tables.drop());

const item = async (pk: string) => (await tables.scanKeys()).find((i) => i.pk === pk);
const grantKey = (userId: string): EnterpriseGrantKey => ({
  userId,
  clientId,
  resource: canonicalResource(ENTERPRISE.resource),
  idp: ENTERPRISE.idp,
});

/** A person who is an editor of `count` workspaces, and their enterprise grant's record. */
async function grantIn(count: number) {
  const userId = `user-${randomUUID()}`;
  const workspaces = Array.from({ length: count }, () => randomUUID()).sort();
  for (const w of workspaces) await tables.setRole(userId, w, 'editor');
  await token(oauth, {
    grant_type: JWT_BEARER,
    assertion: await idp.idJag({ sub: userId }),
    client_id: clientId,
  });
  const id = (await store.currentGrantId(grantKey(userId))) as string;
  return { userId, workspaces, id, record: (await rt.service.keys.get(id)) as KeyRecord };
}

/** A renewal of `record` reaching `workspaceIds`, with an ID-JAG of its own. */
const renewal = (record: KeyRecord, workspaceIds: string[], jti: string = randomUUID()) =>
  store.renew(
    record,
    {
      workspace_ids: workspaceIds,
      scopes: record.scopes,
      expires_at: new Date(clock.now().getTime() + 30 * DAY).toISOString(),
      access: record.grant?.access as NonNullable<NonNullable<KeyRecord['grant']>['access']>,
    },
    { issuer: ENTERPRISE.idp, jti, until: new Date(clock.now().getTime() + 300_000).toISOString() },
    grantKey(record.user_id),
  );
const entriesOf = async (workspaceId: string, grantId: string) =>
  (await tables.workspaceEntries(workspaceId)).filter((e) => e.key_id === grantId);

describe('what the store keeps', () => {
  it('a used ID-JAG by the hash of its issuer and jti, until a minute past its exp', async () => {
    const jti = randomUUID();
    const exp = Math.floor(clock.now().getTime() / 1000) + 300;
    await token(oauth, {
      grant_type: JWT_BEARER,
      assertion: await idp.idJag({ sub: (await grantIn(1)).userId, jti, exp }),
      client_id: clientId,
    });
    expect(await item(`ASSERTION#${sha(`${ENTERPRISE.idp}\0${jti}`)}`)).toEqual({
      pk: `ASSERTION#${sha(`${ENTERPRISE.idp}\0${jti}`)}`,
      sk: 'JTI',
      ttl: exp + 60,
    });
  });

  it('the current grant by the hash of person, app, MCP server and IdP, as long as its grant', async () => {
    const g = await grantIn(1);
    const pk = `ENTERPRISE_GRANT#${sha([g.userId, clientId, ENTERPRISE.resource, ENTERPRISE.idp].join('\0'))}`;
    expect(await item(pk)).toEqual({
      pk,
      sk: 'CURRENT',
      grant_id: g.id,
      ttl: ttlAfter(g.record.expires_at, tables.config().settings.retentionDays),
    });
  });

  it('an acted-on SET by the hash of its issuer and jti, until a minute past the time given; read consistently', async () => {
    const signal = { issuer: ENTERPRISE.idp, jti: randomUUID(), until: '2026-12-06T09:00:00.000Z' };
    expect(await store.signalSeen(signal)).toBe(false);
    await store.recordSignal(signal);
    const pk = `SIGNAL#${sha(`${signal.issuer}\0${signal.jti}`)}`;
    expect(await item(pk)).toEqual({ pk, sk: 'JTI', ttl: Date.parse(signal.until) / 1000 + 60 });
    expect(await store.signalSeen(signal)).toBe(true);
    expect(await store.signalSeen({ ...signal, jti: randomUUID() })).toBe(false);
    expect(reads.filter((r) => String(r.Key?.pk).startsWith('SIGNAL#'))).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ ConsistentRead: true })),
    );
  });

  it('reads the current grant consistently: an exchange right after another must see its grant', async () => {
    reads.length = 0;
    const g = await grantIn(1);
    expect(await store.currentGrantId(grantKey(g.userId))).toBe(g.id);
    const pointerReads = reads.filter((r) => String(r.Key?.pk).startsWith('ENTERPRISE_GRANT#'));
    expect(pointerReads.length).toBeGreaterThan(1);
    for (const read of pointerReads) expect(read.ConsistentRead).toBe(true);
  });
});

describe('a renewal', () => {
  it('renews the grant as read, then refuses the same read as changed, and a used ID-JAG as replayed', async () => {
    const g = await grantIn(1);
    const jti = randomUUID();
    // A minute on: the renewal moves the expiry, so the record read before it is stale.
    clock.advance(60_000);
    expect(await renewal(g.record, g.workspaces, jti)).toBe('renewed');
    const renewed = (await rt.service.keys.get(g.id)) as KeyRecord;
    expect(await renewal(g.record, g.workspaces)).toBe('grant_changed');
    expect(await renewal(renewed, g.workspaces, jti)).toBe('replayed');
    expect(await renewal(renewed, g.workspaces)).toBe('renewed');
  });

  it('of a record that is no grant is refused as changed, writing nothing', async () => {
    const g = await grantIn(1);
    const { grant: _none, ...notAGrant } = g.record;
    const before = JSON.stringify(await tables.scanKeys());
    expect(await renewal(notAGrant as KeyRecord, g.workspaces)).toBe('grant_changed');
    expect(JSON.stringify(await tables.scanKeys())).toBe(before);
  });

  it('deletes the index entry of a workspace it no longer reaches, and keeps the others', async () => {
    const g = await grantIn(2);
    const [kept, dropped] = g.workspaces as [string, string];
    expect(await entriesOf(dropped, g.id)).toHaveLength(1);
    clock.advance(60_000);
    expect(await renewal(g.record, [kept])).toBe('renewed');
    expect(await entriesOf(dropped, g.id)).toEqual([]);
    // The entry of the workspace it still reaches shows the renewed expiry.
    const expires_at = (await rt.service.keys.get(g.id))?.expires_at;
    expect(expires_at).not.toBe(g.record.expires_at);
    expect(await entriesOf(kept, g.id)).toEqual([
      expect.objectContaining({ workspace_access: 'active', expires_at }),
    ]);
    expect((await rt.service.keys.get(g.id))?.workspace_ids).toEqual([kept]);
  });

  it('never writes an ordinary index entry for a workspace the grant was cut off from, whatever it is given', async () => {
    const g = await grantIn(2);
    const [kept, cut] = g.workspaces as [string, string];
    const admin = `admin-${randomUUID()}`;
    await tables.setRole(admin, cut, 'owner');
    await removeKeyFromWorkspace(rt.governance, { userId: admin, workspaceId: cut, keyId: g.id });
    const record = (await rt.service.keys.get(g.id)) as KeyRecord;
    expect(record.removed_workspace_ids).toEqual([cut]);
    expect(await renewal(record, [kept, cut])).toBe('renewed');
    expect(await entriesOf(cut, g.id)).toEqual([expect.objectContaining({ workspace_access: 'removed' })]);
    expect(await entriesOf(kept, g.id)).toEqual([expect.objectContaining({ workspace_access: 'active' })]);
  });
});
