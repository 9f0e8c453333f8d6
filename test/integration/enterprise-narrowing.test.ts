import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role, Scope } from '#lib/access/scopes';
import { createKey, listKeys } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import type { OAuthDeps } from '#lib/oauth/deps';
import { register } from '#lib/oauth/registration';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import type { WorkspacePolicy } from '#lib/workspace-policy/rules';
import { applyWorkspacePolicy, putPolicy } from '#lib/workspaces/policy';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { enterpriseRuntime, type TestIdp } from '#test/support/idp';

/**
 * An enterprise grant narrowed per workspace (contract §17, §19) on DynamoDB Local: the
 * identity provider decided it and no person chose its scopes, so a workspace whose policy allows
 * only some of them keeps it there with those (written as the workspace's rules, with the
 * policy's tools and caps), and one allowing none of them is left out; the policy fan-out narrows
 * and widens it again where a key would be cut off.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const READ_WRITE = 'svc.forms.read svc.forms.write';

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
  idp.defaults.client_id = clientId;
});
afterAll(() => tables.drop());

const exchange = async (sub: string, scope = READ_WRITE) =>
  token(oauth, { grant_type: JWT_BEARER, assertion: await idp.idJag({ sub, scope }), client_id: clientId });

const allowing = (allowed_scopes: Scope[], over: Partial<WorkspacePolicy> = {}): WorkspacePolicy => ({
  mcp_access: 'enabled',
  allowed_scopes,
  max_expiry_days: null,
  ...over,
});

/** A person who is `role` in workspaces named in sorted order, each with `policy` (none: the default). */
async function person(workspaces: { role?: Role; policy?: WorkspacePolicy }[]) {
  const userId = `person-${randomUUID()}`;
  const ids = workspaces.map((_, i) => `${i}-${randomUUID()}`);
  for (const [i, w] of workspaces.entries()) {
    const id = ids[i] as string;
    // An owner sets the policy; the person's role there is `role` from then on.
    await tables.setRole(userId, id, 'owner');
    if (w.policy) await putPolicy(rt.governance, { userId, workspaceId: id, policy: w.policy });
    if (w.role) await tables.setRole(userId, id, w.role);
  }
  return { userId, ids };
}

const grantOf = async (userId: string) => {
  const listed = (await listKeys(rt.service, { userId, limit: 10 })).data.find(
    (k) => k.kind === 'enterprise_grant',
  );
  return (await rt.service.keys.get(listed?.id as string)) as KeyRecord;
};

describe('an exchange admits each workspace as its policy allows', () => {
  it('a workspace allowing only read keeps it, narrowed, with its tools and caps; one allowing none of its scopes is left out', async () => {
    const p = await person([
      {},
      {
        policy: allowing(['svc.forms.read'], {
          allowed_tools: ['list_forms', 'create_form'],
          max_calls_per_day: 9,
        }),
      },
      { policy: allowing(['svc.forms.generate']) },
    ]);
    const [open, readOnly, generateOnly] = p.ids as [string, string, string];
    const answer = await exchange(p.userId);
    expect(answer.scope).toBe(READ_WRITE);
    const grant = await grantOf(p.userId);
    expect(grant.workspace_ids).toEqual([open, readOnly]);
    expect(grant.workspace_ids).not.toContain(generateOnly);
    expect(grant.workspace_rules).toEqual({
      [readOnly]: { tools: ['list_forms', 'create_form'], scopes: ['svc.forms.read'], per_day: 9 },
    });
    const verified = await rt.verify(answer.access_token);
    expect(verified).toMatchObject({
      outcome: 'valid',
      workspaces: [
        { id: open, scopes: ['svc.forms.read', 'svc.forms.write'] },
        { id: readOnly, scopes: ['svc.forms.read'], tools: ['list_forms'] },
      ],
    });
  });

  it('a workspace whose policy leaves only scopes the person’s role does not allow there is left out', async () => {
    const p = await person([{}, { role: 'viewer', policy: allowing(['svc.forms.write']) }]);
    await exchange(p.userId);
    const grant = await grantOf(p.userId);
    expect(grant.workspace_ids).toEqual([p.ids[0]]);
    expect(grant).not.toHaveProperty('workspace_rules');
  });

  it('a person whose every workspace allows none of its scopes gets no grant', async () => {
    const p = await person([{ policy: allowing(['svc.forms.generate']) }]);
    await expect(exchange(p.userId)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await listKeys(rt.service, { userId: p.userId, limit: 10 })).data).toEqual([]);
  });

  it('a later exchange renews the rules as the policies are now', async () => {
    const p = await person([{}, { policy: allowing(['svc.forms.read']) }]);
    const [open, readOnly] = p.ids as [string, string];
    await exchange(p.userId);
    expect((await grantOf(p.userId)).workspace_rules).toEqual({ [readOnly]: { scopes: ['svc.forms.read'] } });
    await putPolicy(rt.governance, {
      userId: p.userId,
      workspaceId: readOnly,
      policy: allowing(['svc.forms.read', 'svc.forms.write']),
    });
    await putPolicy(rt.governance, {
      userId: p.userId,
      workspaceId: open,
      policy: allowing(['svc.forms.write']),
    });
    clock.advance(60_000);
    const answer = await exchange(p.userId);
    expect((await grantOf(p.userId)).workspace_rules).toEqual({ [open]: { scopes: ['svc.forms.write'] } });
    expect(await rt.verify(answer.access_token)).toMatchObject({
      workspaces: [
        { id: open, scopes: ['svc.forms.write'] },
        { id: readOnly, scopes: ['svc.forms.read', 'svc.forms.write'] },
      ],
    });
  });
});

describe('the policy fan-out', () => {
  it('narrows an enterprise grant where it cuts a key off, and widens it again', async () => {
    const p = await person([{}]);
    const [ws] = p.ids as [string];
    const answer = await exchange(p.userId);
    const key = await createKey(rt.service, {
      userId: p.userId,
      name: 'writer',
      workspaceIds: [ws],
      scopes: ['svc.forms.write'],
    });
    const narrowed = await putPolicy(rt.governance, {
      userId: p.userId,
      workspaceId: ws,
      policy: allowing(['svc.forms.read']),
    });
    expect(narrowed.affected_keys).toBe(1);
    expect(await applyWorkspacePolicy(rt.governance, ws)).toBe(1);
    expect((await rt.verify(key.apiKey)).outcome).toBe('revoked');
    expect(await rt.verify(answer.access_token)).toMatchObject({
      outcome: 'valid',
      workspaces: [{ id: ws, scopes: ['svc.forms.read'] }],
    });
    expect((await grantOf(p.userId)).workspace_rules).toEqual({ [ws]: { scopes: ['svc.forms.read'] } });

    await putPolicy(rt.governance, {
      userId: p.userId,
      workspaceId: ws,
      policy: allowing(['svc.forms.read', 'svc.forms.write']),
    });
    expect(await applyWorkspacePolicy(rt.governance, ws)).toBe(0);
    expect((await grantOf(p.userId)).workspace_rules).toEqual({});
    expect(await rt.verify(answer.access_token)).toMatchObject({
      workspaces: [{ id: ws, scopes: ['svc.forms.read', 'svc.forms.write'] }],
    });
  });

  it('cuts an enterprise grant off where the policy allows none of its scopes', async () => {
    const p = await person([{}, {}]);
    const [first, second] = p.ids as [string, string];
    const answer = await exchange(p.userId);
    await putPolicy(rt.governance, {
      userId: p.userId,
      workspaceId: second,
      policy: allowing(['svc.forms.generate']),
    });
    expect(await applyWorkspacePolicy(rt.governance, second)).toBe(1);
    expect(await rt.verify(answer.access_token)).toMatchObject({ workspaces: [{ id: first }] });
  });
});
