import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import { createKey } from '#lib/keys/lifecycle';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve, consentView } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { Runtime } from '#lib/runtime';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { oauthOver } from '#test/support/oauth-deps';

/**
 * What a scope step-up keeps and what it adds (lib/oauth/widening.ts), on DynamoDB Local: the
 * grant's workspaces as they are now (those cut off aside), in any order; the person's refusal
 * sentences; the scopes added once; the live grant found among many credentials. The flow of a
 * step-up is test/integration/oauth-step-up.test.ts.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const app: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Example app',
  redirect_uris: ['https://app.example.com/callback'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};
const challenge = createHash('sha256').update('x'.repeat(43)).digest('base64url');

let tables: TestTables;
let rt: Runtime;
let oauth: OAuthDeps;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ settings: { maxActiveKeys: 150 } });
  const base = oauthOver(tables, [RESOURCE], [app]);
  oauth = { ...base, settings: { ...base.settings, maxActiveKeys: 150 } } as OAuthDeps;
});
afterAll(() => tables.drop());

async function ask(scope: string) {
  const outcome = await authorize(oauth, {
    client_id: app.client_id,
    redirect_uri: app.redirect_uris[0],
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    resource: RESOURCE,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

/** A person who is an editor of `count` new workspaces and holds a read grant to the app in all of them. */
async function grantIn(count: number) {
  const person = `person-${randomUUID()}`;
  const workspaces = Array.from({ length: count }, () => randomUUID());
  for (const w of workspaces) await tables.setRole(person, w, 'editor');
  await approve(oauth, person, await ask('svc.forms.read'), {
    workspaceIds: workspaces,
    scopes: ['svc.forms.read'],
  });
  const { items } = await rt.service.keys.listByUser(person, { limit: 10, now: new Date() });
  const grant = items.find((k) => k.kind === 'oauth_grant');
  if (!grant) throw new Error('no grant');
  return { person, workspaces, grantId: grant.id };
}

async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).detail).toBe('The request failed validation.');
  return { code: (err as AppError).code, errors: (err as AppError).errors };
}

describe('a widening', () => {
  it('keeps the grant’s workspaces: an approval leaving one out is refused, naming it', async () => {
    const g = await grantIn(2);
    const [a, b] = g.workspaces as [string, string];
    const request = await ask('svc.forms.write');
    const write: Scope[] = ['svc.forms.write'];
    const leftOut = (ids: string) => ({
      code: 'validation_failed',
      errors: [
        {
          input: 'workspaceIds',
          message: `must keep the grant's workspaces (${ids} left out): signing in again only adds; revoke the app on the key page to remove one`,
        },
      ],
    });
    expect(await refusal(approve(oauth, g.person, request, { workspaceIds: [a], scopes: write }))).toEqual(
      leftOut(b),
    );
    expect(await refusal(approve(oauth, g.person, request, { workspaceIds: [], scopes: write }))).toEqual(
      leftOut(`${a}, ${b}`),
    );
    expect((await rt.service.keys.get(g.grantId))?.scopes).toEqual(['svc.forms.read']);
  });

  it('adds a workspace the person chooses, under create’s rules, with grant.updated; a lifetime sent is ignored', async () => {
    const g = await grantIn(1);
    const [a] = g.workspaces as [string];
    const before = await rt.service.keys.get(g.grantId);
    const c = randomUUID();
    const notMember = randomUUID();
    // Create's rules for what is added: a workspace the person is not a member of is refused.
    const request = await ask('svc.forms.read');
    const refused = await approve(oauth, g.person, request, {
      workspaceIds: [a, notMember],
      scopes: ['svc.forms.read'],
    }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'workspace_access_denied' });
    expect((await rt.service.keys.get(g.grantId))?.workspace_ids).toEqual([a]);
    await tables.setRole(g.person, c, 'viewer');
    await approve(oauth, g.person, request, {
      workspaceIds: [a, c, c],
      scopes: ['svc.forms.read'],
      expiresInDays: 3,
    });
    const after = await rt.service.keys.get(g.grantId);
    expect(after).toMatchObject({ workspace_ids: [a, c], scopes: ['svc.forms.read'] });
    expect(after?.expires_at).toBe(before?.expires_at);
    const { items } = await rt.service.keys.listLineageEvents(g.grantId, { limit: 5 });
    expect(items.filter((e) => e.type === 'grant.updated')).toMatchObject([
      { details: { scopes_added: [], workspace_ids_added: [c] }, actor: { type: 'user', id: g.person } },
    ]);
    // One grant still, and the person's role where it was added is checked for what it may do.
    const { items: all } = await rt.service.keys.listByUser(g.person, { limit: 10, now: new Date() });
    expect(all.filter((k) => k.kind === 'oauth_grant')).toHaveLength(1);
    const write = await ask('svc.forms.write');
    const roleRefused = await approve(oauth, g.person, write, {
      workspaceIds: [a, c],
      scopes: ['svc.forms.write'],
    }).catch((err: unknown) => err);
    expect(roleRefused).toMatchObject({ code: 'workspace_access_denied' });
  });

  it('takes the grant’s workspaces in any order, and adds only the scopes it lacks', async () => {
    const g = await grantIn(2);
    const [a, b] = g.workspaces as [string, string];
    const before = await rt.service.keys.get(g.grantId);
    await approve(oauth, g.person, await ask('svc.forms.read svc.forms.write'), {
      workspaceIds: [b, a],
      scopes: ['svc.forms.read', 'svc.forms.write'],
    });
    const after = await rt.service.keys.get(g.grantId);
    expect(after?.scopes).toEqual(['svc.forms.read', 'svc.forms.write']);
    expect(after?.workspace_ids).toEqual([a, b]);
    expect(after?.expires_at).toBe(before?.expires_at);
    const { items } = await rt.service.keys.listLineageEvents(g.grantId, { limit: 5 });
    expect(items.filter((e) => e.type === 'grant.updated')).toMatchObject([
      {
        details: { scopes_added: ['svc.forms.write'], workspace_ids_added: [] },
        actor: { type: 'user', id: g.person },
      },
    ]);
  });

  it('of a grant cut off from a workspace keeps the workspaces it still reaches', async () => {
    const g = await grantIn(2);
    const [a, b] = g.workspaces as [string, string];
    await tables.setKeyField(g.grantId, 'removed_workspace_ids', [a]);
    const request = await ask('svc.forms.write');
    expect((await consentView(oauth, g.person, request)).grant).toMatchObject({
      id: g.grantId,
      scopes: ['svc.forms.read'],
      workspace_ids: [b],
    });
    expect(
      await refusal(approve(oauth, g.person, request, { workspaceIds: [a, b], scopes: ['svc.forms.write'] })),
    ).toEqual({
      code: 'validation_failed',
      errors: [
        {
          input: 'workspaceIds',
          index: 0,
          message: `the app was cut off from workspace ${a} by its administrator or policy; it stays cut off`,
        },
      ],
    });
    await approve(oauth, g.person, request, { workspaceIds: [b], scopes: ['svc.forms.write'] });
    expect((await rt.service.keys.get(g.grantId))?.scopes).toEqual(['svc.forms.read', 'svc.forms.write']);
  });

  it('finds the live grant behind more than a page of the person’s other credentials', async () => {
    const g = await grantIn(1);
    const workspaceId = g.workspaces[0] as string;
    for (let i = 0; i < 101; i++)
      await createKey(rt.service, {
        userId: g.person,
        name: `k${i}`,
        workspaceIds: [workspaceId],
        scopes: ['svc.forms.read'],
      });
    const view = await consentView(oauth, g.person, await ask('svc.forms.write'));
    expect(view.grant?.id).toBe(g.grantId);
    expect(view.requested_scopes).toEqual(['svc.forms.write']);
  });
});
