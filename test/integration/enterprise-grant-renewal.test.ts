import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listKeys } from '#lib/keys/lifecycle';
import type { OAuthDeps } from '#lib/oauth/deps';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { listWorkspaceKeys, removeKeyFromWorkspace } from '#lib/workspaces/keys';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * What an enterprise grant's renewal keeps (contract §17, decision 87), on DynamoDB Local: a
 * workspace an administrator cut it off from stays cut off after the person's next exchange, and
 * two first exchanges that really race (both read that there is no grant yet, then both write)
 * make one grant, the loser renewing the winner's.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let idp: TestIdp;
let clientId: string;

/**
 * The table's client, except that a transaction making a person's first enterprise grant (its
 * `grant.created` and its `CURRENT` pointer) waits until `parties` of them have been sent, or five
 * seconds: the exchanges let through together have all read that there is no grant before any of
 * them wrote. `races` counts the groups let through together.
 */
function barrierOnFirstGrants(doc: DynamoDBDocumentClient) {
  let waiting: (() => void)[] = [];
  let parties = 0;
  let races = 0;
  /** A transaction that makes a grant (`grant.created`) and names it the current one (`CURRENT`). */
  const firstGrant = (input: unknown) => {
    const items = (input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems;
    const puts = (items ?? []).map((item) => item.Put?.Item);
    return puts.some((item) => item?.sk === 'CURRENT') && puts.some((item) => item?.type === 'grant.created');
  };
  const send = async (command: { input: unknown }, ...rest: unknown[]) => {
    if (parties > 0 && firstGrant(command.input))
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length < parties) return void setTimeout(resolve, 5000).unref();
        races++;
        for (const release of waiting.splice(0)) release();
      });
    return (doc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  };
  const client = new Proxy(doc, {
    get: (target, name) => (name === 'send' ? send : Reflect.get(target, name, target)),
  });
  return {
    client,
    /** Holds first-grant transactions until `count` of them have arrived (0: none is held). */
    hold(count: number) {
      parties = count;
      waiting = [];
      if (count > 0) races = 0;
    },
    races: () => races,
  };
}

let barrier: ReturnType<typeof barrierOnFirstGrants>;

beforeAll(async () => {
  tables = await createTestTables();
  barrier = barrierOnFirstGrants(tables.doc);
  const racing = { config: tables.config.bind(tables), doc: barrier.client };
  ({ rt, idp, oauth } = await enterpriseRuntime(racing, clock));
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  idp.defaults.client_id = clientId;
});
afterAll(() => tables.drop());

const exchange = (assertion: string) =>
  token(oauth, { grant_type: JWT_BEARER, assertion, client_id: clientId });

/** The ids of the workspaces an access token reaches now. */
async function reached(accessToken: string) {
  const verified = await rt.verify(accessToken);
  return verified.outcome === 'valid' ? verified.workspaces.map((w) => w.id).sort() : verified.outcome;
}

describe('an enterprise grant cut off from one of several workspaces', () => {
  it('stays cut off after the person’s next exchange, in the token and in that workspace’s list', async () => {
    const member = await newMember(tables);
    const [kept, cut] = [member.workspaceId, randomUUID()];
    const admin = `admin-${randomUUID()}`;
    await tables.setRole(member.userId, cut, 'editor');
    await tables.setRole(admin, cut, 'owner');
    const first = await exchange(await idp.idJag({ sub: member.userId }));
    expect(await reached(first.access_token)).toEqual([kept, cut].sort());
    const [grant] = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    const grantId = grant?.id as string;

    await removeKeyFromWorkspace(rt.governance, { userId: admin, workspaceId: cut, keyId: grantId });
    expect(await reached(first.access_token)).toEqual([kept]);

    clock.advance(60_000);
    const next = await exchange(await idp.idJag({ sub: member.userId }));
    expect(await reached(next.access_token)).toEqual([kept]);
    expect(await reached(first.access_token)).toEqual([kept]);
    const [renewed] = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    expect(renewed).toMatchObject({ id: grantId, status: 'active' });
    const listed = await listWorkspaceKeys(rt.governance, { userId: admin, workspaceId: cut, limit: 10 });
    expect(listed.data).toEqual([
      expect.objectContaining({ id: grantId, workspace_access: 'removed', status: 'removed' }),
    ]);
  });
});

describe('two first exchanges at once', () => {
  it('both read that there is no grant, both write: one grant, the loser renewing it', async () => {
    const member = await newMember(tables);
    const jags = [await idp.idJag({ sub: member.userId }), await idp.idJag({ sub: member.userId })];
    barrier.hold(2);
    const answers = await Promise.all(jags.map(exchange)).finally(() => barrier.hold(0));
    // Both made it to the insert before either had written: the race happened.
    expect(barrier.races()).toBeGreaterThan(0);
    const listed = (await listKeys(rt.service, { userId: member.userId, limit: 10 })).data;
    expect(listed).toHaveLength(1);
    const events = (await tables.scanKeys()).filter(
      (i) => i.key_id === listed[0]?.id && i.type === 'grant.created',
    );
    expect(events).toHaveLength(1);
    for (const answer of answers)
      expect(await rt.verify(answer.access_token)).toMatchObject({ outcome: 'valid', key_id: listed[0]?.id });
  });
});
