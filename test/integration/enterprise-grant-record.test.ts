import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#lib/access/scopes';
import { listKeys } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import type { OAuthClient } from '#lib/oauth/clients';
import type { OAuthDeps } from '#lib/oauth/deps';
import { ENTERPRISE_LIMITS } from '#lib/oauth/enterprise-grants';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { clientKey } from '#lib/store/oauth-items';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { ENTERPRISE, enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * What an enterprise grant is made with (contract §17) on DynamoDB Local: the record the first
 * exchange writes (no digest, no redirect, the app's domain or else the IdP's host as its hint),
 * a dynamically registered app kept from expiring by its use, the workspaces in id order whatever
 * order the memberships come in, and at most 45 of them.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const VERIFIED: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Verified app',
  redirect_uris: ['https://app.example.com/callback'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};

let tables: TestTables;
const clock = manualClock(new Date('2026-12-06T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;
let idp: TestIdp;
let clientId: string;

beforeAll(async () => {
  tables = await createTestTables();
  ({ rt, idp, oauth } = await enterpriseRuntime(tables, clock));
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: ['http://127.0.0.1/cb'] }))
    .client_id;
  const registered = oauth.clients;
  oauth = {
    ...oauth,
    clients: async (id) => (id === VERIFIED.client_id ? { ok: true, client: VERIFIED } : registered(id)),
  };
});
afterAll(() => tables.drop());

const exchange = async (sub: string, client = clientId, deps = oauth) =>
  token(deps, {
    grant_type: JWT_BEARER,
    assertion: await idp.idJag({ sub, client_id: client, scope: 'svc.forms.read' }),
    client_id: client,
  });

async function person(workspaces: number, role: Role = 'editor') {
  const userId = `person-${randomUUID()}`;
  const ids = Array.from({ length: workspaces }, () => randomUUID()).sort();
  await Promise.all(ids.map((id) => tables.setRole(userId, id, role)));
  return { userId, ids };
}

const grantOf = async (userId: string) => {
  const [listed] = (await listKeys(rt.service, { userId, limit: 10 })).data;
  return (await rt.service.keys.get(listed?.id as string)) as KeyRecord;
};

describe('the first exchange’s grant', () => {
  it('has no digest and no redirect; its hint is the IdP’s host for a registered app', async () => {
    const p = await person(1);
    await exchange(p.userId);
    const grant = await grantOf(p.userId);
    expect(grant).toMatchObject({
      kind: 'enterprise_grant',
      digest: '',
      key_hint: 'idp.example.org',
      name: 'Assistant',
      scopes: ['svc.forms.read'],
      workspace_ids: p.ids,
      grant: {
        client: { id: clientId, name: 'Assistant', verified_domain: null },
        redirect_uri: '',
        redirect_host: '',
        resource: ENTERPRISE.resource,
        idp: ENTERPRISE.idp,
      },
    });
    expect(grant).not.toHaveProperty('workspace_rules');
  });

  it('its hint is the domain of an app with a metadata document', async () => {
    const p = await person(1);
    await exchange(p.userId, VERIFIED.client_id);
    expect(await grantOf(p.userId)).toMatchObject({ key_hint: 'app.example.com', name: 'Verified app' });
  });

  it('keeps a dynamically registered app from expiring: its registration is used', async () => {
    const other = (await register(oauth, { client_name: 'Other', redirect_uris: ['http://127.0.0.1/cb'] }))
      .client_id;
    const read = async () =>
      (await tables.doc.send(new GetCommand({ TableName: tables.keysTable, Key: clientKey(other) }))).Item;
    expect(await read()).toHaveProperty('ttl');
    const p = await person(1);
    await exchange(p.userId, other);
    const kept = await read();
    expect(kept).not.toHaveProperty('ttl');
    expect(kept?.used_at).toBe(clock.now().toISOString());
  });
});

describe('a grant’s write that fails', () => {
  it('reaches the caller as it failed: no OAuth error made of it', async () => {
    const p = await person(1);
    const name = 'fail-grant';
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand')
          throw Object.assign(new Error('InternalServerError (injected)'), {
            name: 'InternalServerError',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await expect(exchange(p.userId)).rejects.toThrow('InternalServerError (injected)');
    } finally {
      tables.doc.middlewareStack.remove(name);
    }
    expect((await listKeys(rt.service, { userId: p.userId, limit: 10 })).data).toEqual([]);
  });

  it('a renewal cancelled for another reason than its conditions reaches the caller', async () => {
    const p = await person(1);
    await exchange(p.userId);
    const name = 'cancel-renewal';
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand')
          throw new TransactionCanceledException({
            message: 'Transaction cancelled (injected)',
            $metadata: {},
            CancellationReasons: [{ Code: 'ValidationError' }, { Code: 'None' }, { Code: 'None' }],
          });
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await expect(exchange(p.userId)).rejects.toThrow(
        'renew transaction cancelled unexpectedly (reasons: ValidationError, None, None)',
      );
    } finally {
      tables.doc.middlewareStack.remove(name);
    }
  });

  it('a cap that keeps changing under it is the key service’s conflict, not the cap’s refusal', async () => {
    const p = await person(1);
    const enterprise = oauth.enterprise as NonNullable<OAuthDeps['enterprise']>;
    // Every insert finds the person's slots full of a lapsed one that another request keeps renewing.
    const lapsed = { 'other-lineage': '2026-01-01T00:00:00.000Z' };
    const contended: OAuthDeps = {
      ...oauth,
      enterprise: {
        ...enterprise,
        store: new Proxy(enterprise.store, {
          get: (target, name, receiver) =>
            name === 'insert'
              ? async () => ({ kind: 'no_free_slot', slots: lapsed })
              : Reflect.get(target, name, receiver),
        }),
      },
    };
    await expect(exchange(p.userId, clientId, contended)).rejects.toMatchObject({
      code: 'conflict',
      status: 409,
    });
  });
});

describe('the workspaces it reaches', () => {
  it('in id order, whatever order the person’s memberships are read in', async () => {
    const p = await person(3);
    const lister = oauth.enterprise as NonNullable<OAuthDeps['enterprise']>;
    const reversed: OAuthDeps = {
      ...oauth,
      enterprise: {
        ...lister,
        memberships: {
          rolesOf: async (userId) => new Map([...(await lister.memberships.rolesOf(userId))].reverse()),
        },
      },
    };
    await exchange(p.userId, clientId, reversed);
    expect((await grantOf(p.userId)).workspace_ids).toEqual(p.ids);
  });

  it('at most 45: the first in id order', async () => {
    expect(ENTERPRISE_LIMITS.maxWorkspaces).toBe(45);
    const p = await person(46, 'viewer');
    const answer = await exchange(p.userId);
    expect((await grantOf(p.userId)).workspace_ids).toEqual(p.ids.slice(0, 45));
    const verified = await rt.verify(answer.access_token);
    expect(verified.outcome === 'valid' && verified.workspaces.length).toBe(45);
  });
});
