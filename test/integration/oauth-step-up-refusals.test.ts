import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve, consentView } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { Runtime } from '#lib/runtime';
import { putPolicy } from '#lib/workspaces/policy';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { oauthOver } from '#test/support/oauth-deps';

/**
 * What a scope step-up may not do (contract §15 revised in turn 5), on DynamoDB Local: add a scope
 * the workspace's policy refuses, found at the approval (the page was shown before the policy
 * changed, or the body names what the page did not offer), and be approved by anyone but the
 * person whose request it is. Each refusal leaves the grant as it was and the request undecided.
 * The step-up's flow is test/integration/oauth-step-up.test.ts.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const app: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Example app',
  redirect_uris: ['https://app.example.com/callback'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};
const challenge = createHash('sha256').update('s'.repeat(43)).digest('base64url');

let tables: TestTables;
let rt: Runtime;
let oauth: OAuthDeps;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  oauth = oauthOver(tables, [RESOURCE], [app]);
});
afterAll(() => tables.drop());

/** An authorization request of the app asking `scope`: its id. */
async function ask(scope: string) {
  const outcome = await authorize(oauth, {
    client_id: app.client_id,
    redirect_uri: app.redirect_uris[0] as string,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    resource: RESOURCE,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

/** An editor's read grant to the app in a new workspace whose owner is someone else. */
async function readGrant() {
  const [workspace, owner, person] = [randomUUID(), `owner-${randomUUID()}`, `person-${randomUUID()}`];
  await tables.setRole(owner, workspace, 'owner');
  await tables.setRole(person, workspace, 'editor');
  await approve(oauth, person, await ask('svc.forms.read'), {
    workspaceIds: [workspace],
    scopes: ['svc.forms.read'],
  });
  const { items } = await rt.service.keys.listByUser(person, { limit: 10, now: new Date() });
  const grant = items.find((k) => k.kind === 'oauth_grant');
  if (!grant) throw new Error('no grant');
  return { workspace, owner, person, grantId: grant.id };
}

/** The grant as the refusal must leave it: its scopes, workspaces and events. */
async function state(grantId: string) {
  const grant = await rt.service.keys.get(grantId);
  const { items } = await rt.service.keys.listLineageEvents(grantId, { limit: 10 });
  return {
    scopes: grant?.scopes,
    workspaces: grant?.workspace_ids,
    events: items.map((e) => e.type).sort(),
  };
}

const refusalOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'approved',
    (err: unknown) => err,
  );

describe('a scope step-up', () => {
  it('whose added scope the workspace’s policy refuses is refused at the approval, changing nothing', async () => {
    const g = await readGrant();
    const requestId = await ask('svc.forms.read svc.forms.write');
    expect((await consentView(oauth, g.person, requestId)).requested_scopes).toEqual(['svc.forms.write']);
    // The administrator narrows the workspace while the person looks at the page.
    await putPolicy(rt.governance, {
      userId: g.owner,
      workspaceId: g.workspace,
      policy: { mcp_access: 'enabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
    });
    const before = await state(g.grantId);
    expect(
      await refusalOf(
        approve(oauth, g.person, requestId, { workspaceIds: [g.workspace], scopes: ['svc.forms.write'] }),
      ),
    ).toMatchObject({ code: 'workspace_policy_denied' });
    expect(await state(g.grantId)).toEqual(before);
    expect(before.scopes).toEqual(['svc.forms.read']);
    // Still the person's to decide: the page shows it again.
    expect((await consentView(oauth, g.person, requestId)).requested_scopes).toEqual(['svc.forms.write']);
  });

  it('is not anyone else’s to see or approve, not even the workspace’s owner', async () => {
    const g = await readGrant();
    const requestId = await ask('svc.forms.write');
    expect((await consentView(oauth, g.person, requestId)).grant).toMatchObject({ id: g.grantId });
    const before = await state(g.grantId);
    for (const someoneElse of [g.owner, `stranger-${randomUUID()}`]) {
      expect(await refusalOf(consentView(oauth, someoneElse, requestId))).toMatchObject({
        code: 'request_not_found',
      });
      expect(
        await refusalOf(
          approve(oauth, someoneElse, requestId, {
            workspaceIds: [g.workspace],
            scopes: ['svc.forms.write'],
          }),
        ),
      ).toMatchObject({ code: 'request_not_found' });
    }
    expect(await state(g.grantId)).toEqual(before);
    const { items } = await rt.service.keys.listByUser(g.owner, { limit: 10, now: new Date() });
    expect(items).toEqual([]);
    // The person still can.
    await approve(oauth, g.person, requestId, { workspaceIds: [g.workspace], scopes: ['svc.forms.write'] });
    expect((await state(g.grantId)).scopes).toEqual(['svc.forms.read', 'svc.forms.write']);
  });
});
