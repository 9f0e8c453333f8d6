import { createHash, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import type { KeyRecord } from '#lib/keys/model';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve, deny } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { AuthorizationRequest } from '#lib/oauth/model';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { entrySk, workspacePk } from '#lib/store/workspace-items';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';

/**
 * An approval's edges (contract §15 "The flow" 2) on DynamoDB Local: a request decided already is
 * answered from its decision before create's rules are read again; a grant matches no key; each
 * approval's code is its own, a widening's too; and a widening's transaction cancelled for a reason
 * that is neither the request's nor the grant's is an error, not a decision.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const NOT_FOUND =
  'This sign-in request does not exist, has expired or was already used; start again from the app.';
const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');
const app: OAuthClient = {
  client_id: '0b8c7f9e-3333-4333-8333-333333333333',
  client_name: 'Assistant',
  redirect_uris: ['http://127.0.0.1:7777/callback'],
  verified_domain: null,
  registration: 'dynamic',
};

let tables: TestTables;
const clock = manualClock(new Date('2026-12-06T08:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;

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
  oauth = {
    ...(rt.oauth as OAuthDeps),
    clients: async (id) =>
      id === app.client_id ? { ok: true, client: app } : { ok: false, error_description: 'unknown' },
  };
});
afterAll(() => tables.drop());

async function requested() {
  const outcome = await authorize(oauth, {
    client_id: app.client_id,
    redirect_uri: app.redirect_uris[0],
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
    scope: 'svc.forms.read svc.forms.write',
    state: 'st',
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

const codeIn = (redirect: { redirect_to: string }) => new URL(redirect.redirect_to).searchParams.get('code');
const grantOf = async (requestId: string) =>
  rt.service.keys.get((await oauth.store.getRequest(requestId))?.grant_id as string);

describe('a request decided already', () => {
  it('approved, answers the same redirect even once create’s rules would refuse it', async () => {
    const member = await newMember(tables);
    const input = { workspaceIds: [member.workspaceId], scopes: ['svc.forms.write' as const] };
    const id = await requested();
    const first = await approve(oauth, member.userId, id, input);
    await tables.setRole(member.userId, member.workspaceId, 'viewer');
    expect(await approve(oauth, member.userId, id, input)).toEqual(first);
  });

  it('denied, is not found whatever the approval asks', async () => {
    const member = await newMember(tables);
    const id = await requested();
    await deny(oauth, member.userId, id);
    const refused = await approve(oauth, member.userId, id, {
      workspaceIds: [randomUUID()],
      scopes: ['svc.forms.write'],
    }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'request_not_found', detail: NOT_FOUND });
  });
});

describe('the store', () => {
  it('answers an approval of a request decided already as such, writing no grant', async () => {
    const member = await newMember(tables);
    const id = await requested();
    await approve(oauth, member.userId, id, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    const decided = await oauth.store.getRequest(id);
    const grant = await grantOf(id);
    const other = randomUUID();
    const again = { ...(grant as KeyRecord), id: other, lineage_id: other };
    expect(await oauth.store.approve(decided as AuthorizationRequest, again, 10, [])).toEqual({
      kind: 'already_decided',
    });
    expect(await rt.service.keys.get(other)).toBeUndefined();
  });

  it('reads a request consistently, and lets a failure that is no lost race reach the caller', async () => {
    const reads: { ConsistentRead?: boolean }[] = [];
    let failUpdates = false;
    const send = (command: { constructor: { name: string }; input: unknown }, ...rest: unknown[]) => {
      if (command.constructor.name === 'GetCommand') reads.push(command.input as (typeof reads)[number]);
      if (failUpdates && command.constructor.name === 'UpdateCommand')
        return Promise.reject(new Error('throttled'));
      return (tables.doc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    };
    const doc = new Proxy(tables.doc, {
      get: (target, name) => (name === 'send' ? send : Reflect.get(target, name, target)),
    });
    const store = (buildRuntime(rt.config, { doc, now: clock.now }).oauth as OAuthDeps).store;
    const id = await requested();
    expect(await store.getRequest(id)).toMatchObject({ id });
    expect(reads).toEqual([expect.objectContaining({ ConsistentRead: true })]);
    failUpdates = true;
    await expect(store.claimRequest(id, `user-${randomUUID()}`)).rejects.toThrow('throttled');
    await expect(
      store.deny({ ...(await oauth.store.getRequest(id)), user_id: 'someone' } as never),
    ).rejects.toThrow('throttled');
    const member = await newMember(tables);
    const approved = await requested();
    await approve(oauth, member.userId, approved, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    const tokens = { access: { digest: 'a', until: '2026-12-06T09:00:00.000Z' }, refresh: 'r' };
    await expect(store.replaceTokens((await grantOf(approved)) as KeyRecord, tokens)).rejects.toThrow(
      'throttled',
    );
  });
});

describe('an approval', () => {
  it('makes a grant with no digest (no key matches it), and a code of its own for each request', async () => {
    const member = await newMember(tables);
    const first = await requested();
    const approved = await approve(oauth, member.userId, first, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    expect((await grantOf(first))?.digest).toBe('');
    const second = await requested();
    const widened = await approve(oauth, member.userId, second, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read', 'svc.forms.write'],
    });
    expect((await oauth.store.getRequest(second))?.grant_id).toBe((await grantOf(first))?.id);
    expect(codeIn(widened)).toMatch(/\S{20}/);
    expect(codeIn(widened)).not.toBe(codeIn(approved));
  });

  it('that widens, cancelled for another reason than the request or the grant, fails and decides nothing', async () => {
    const member = await newMember(tables);
    const added = randomUUID();
    await tables.setRole(member.userId, added, 'editor');
    const first = await requested();
    await approve(oauth, member.userId, first, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    const grant = await grantOf(first);
    // An index entry already where the widening puts the added workspace's.
    await tables.doc.send(
      new PutCommand({
        TableName: tables.keysTable,
        Item: { pk: workspacePk(added), sk: entrySk(grant?.created_at as string, grant?.id as string) },
      }),
    );
    const second = await requested();
    const failed = await approve(oauth, member.userId, second, {
      workspaceIds: [member.workspaceId, added],
      scopes: ['svc.forms.read'],
    }).catch((err: unknown) => err);
    expect(String(failed)).toMatch(
      /^Error: widen transaction cancelled unexpectedly \(reasons: .*ConditionalCheckFailed/,
    );
    expect((await oauth.store.getRequest(second))?.decision).toBeUndefined();
    expect((await rt.service.keys.get(grant?.id as string))?.workspace_ids).toEqual([member.workspaceId]);
  });
});
