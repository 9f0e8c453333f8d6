import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role, Scope } from '#lib/access/scopes';
import { AppError } from '#lib/errors';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve, consentView } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import { OAuthError } from '#lib/oauth/errors';
import { token } from '#lib/oauth/token';
import type { Runtime } from '#lib/runtime';
import { entrySk, workspacePk } from '#lib/store/workspace-items';
import { applyWorkspacePolicy, putPolicy } from '#lib/workspaces/policy';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { oauthOver } from '#test/support/oauth-deps';

/**
 * Scope step-up (contract §15 revised in turn 5, SEP-2350) on DynamoDB Local: an app that asks
 * again, for the same person and MCP server, while its grant is live, has that grant widened when
 * the person approves (the consent shows only what it adds; `grant.updated`), never a second
 * grant; create's rules apply to what is added; anything refused changes nothing. The real SDK
 * client stepping up is test/browser/oauth-step-up.test.ts.
 */
let tables: TestTables;
let rt: Runtime;
let oauth: OAuthDeps;
const RESOURCE = 'https://mcp.example.com/mcp';
const OTHER_RESOURCE = 'https://mcp.example.com/other';

const app: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Example app',
  redirect_uris: ['https://app.example.com/callback', 'https://app.example.com/again'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};
const otherApp: OAuthClient = {
  ...app,
  client_id: 'https://other.example.com/c.json',
  client_name: 'Other app',
};

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  oauth = oauthOver(tables, [RESOURCE, OTHER_RESOURCE], [app, otherApp]);
});
afterAll(() => tables.drop());

const verifier = 'w'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function workspace(role: Role = 'editor') {
  const id = randomUUID();
  const [owner, person] = [`owner-${randomUUID()}`, `person-${randomUUID()}`];
  await tables.setRole(owner, id, 'owner');
  await tables.setRole(person, id, role);
  return { id, owner, person };
}

/** An authorization request of `client` asking `scope`, its redirect the n-th: the request id. */
async function ask(client: OAuthClient, scope: string, redirect = 0, resource = RESOURCE) {
  const outcome = await authorize(oauth, {
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[redirect] as string,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    resource,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

/** The code of an approved request, redeemed at the token endpoint. */
async function redeem(client: OAuthClient, redirectTo: string, redirect = 0) {
  return token(oauth, {
    grant_type: 'authorization_code',
    code: new URL(redirectTo).searchParams.get('code') as string,
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[redirect] as string,
    code_verifier: verifier,
  });
}

/** A person's read grant to `app` in a new workspace. */
async function readGrant(role: Role = 'editor') {
  const w = await workspace(role);
  const { redirect_to } = await approve(oauth, w.person, await ask(app, 'svc.forms.read'), {
    workspaceIds: [w.id],
    scopes: ['svc.forms.read'],
  });
  const tokens = await redeem(app, redirect_to);
  return { ...w, tokens, grantId: await onlyGrantOf(w.person) };
}

async function grantsOf(person: string) {
  const { items } = await rt.service.keys.listByUser(person, { limit: 50, now: new Date() });
  return items.filter((k) => k.kind === 'oauth_grant');
}

async function onlyGrantOf(person: string): Promise<string> {
  const grants = await grantsOf(person);
  expect(grants).toHaveLength(1);
  return (grants[0] as { id: string }).id;
}

const scopesOf = async (accessToken: string) => {
  const verified = await rt.verify(accessToken);
  return verified.outcome === 'valid' ? verified.scopes : verified.outcome;
};

describe('scope step-up widens the live grant', () => {
  it('shows only the added scope, widens the grant on approval (grant.updated), and its code gives tokens with both', async () => {
    const g = await readGrant();
    const requestId = await ask(app, 'svc.forms.read svc.forms.write', 1);
    const view = await consentView(oauth, g.person, requestId);
    expect(view.requested_scopes).toEqual(['svc.forms.write']);
    expect(view.grant).toMatchObject({ id: g.grantId, scopes: ['svc.forms.read'], workspace_ids: [g.id] });

    const { redirect_to } = await approve(oauth, g.person, requestId, {
      workspaceIds: [g.id],
      scopes: ['svc.forms.write'],
    });
    expect(new URL(redirect_to).origin + new URL(redirect_to).pathname).toBe(app.redirect_uris[1]);
    // A repeated approve (a double submit) answers the same code.
    expect(
      (await approve(oauth, g.person, requestId, { workspaceIds: [g.id], scopes: ['svc.forms.write'] }))
        .redirect_to,
    ).toBe(redirect_to);
    const widened = await redeem(app, redirect_to, 1);
    expect(widened.scope).toBe('svc.forms.read svc.forms.write');
    expect(await scopesOf(widened.access_token)).toEqual(['svc.forms.read', 'svc.forms.write']);
    expect(await onlyGrantOf(g.person)).toBe(g.grantId);
    // The tokens it replaced keep the refresh grace, as after a refresh.
    expect(await scopesOf(g.tokens.access_token)).toEqual(['svc.forms.read', 'svc.forms.write']);

    const { items } = await rt.service.keys.listLineageEvents(g.grantId, { limit: 10 });
    expect(items.map((e) => [e.type, e.details])).toContainEqual([
      'grant.updated',
      { scopes_added: ['svc.forms.write'], workspace_ids_added: [] },
    ]);
    expect(items.filter((e) => e.type === 'grant.created')).toHaveLength(1);
  });

  it('keeps the widened scope in the workspace index; a policy withdrawing it cuts the grant off', async () => {
    const g = await readGrant();
    const entry = async () => {
      const grant = (await rt.service.keys.get(g.grantId)) as { created_at: string };
      const { Item } = await tables.doc.send(
        new GetCommand({
          TableName: tables.config().keysTableName,
          Key: { pk: workspacePk(g.id), sk: entrySk(grant.created_at, g.grantId) },
        }),
      );
      return Item?.scopes;
    };
    expect(await entry()).toEqual(['svc.forms.read']);
    const requestId = await ask(app, 'svc.forms.write');
    await redeem(
      app,
      (await approve(oauth, g.person, requestId, { workspaceIds: [g.id], scopes: ['svc.forms.write'] }))
        .redirect_to,
    );
    expect(await entry()).toEqual(['svc.forms.read', 'svc.forms.write']);
    const put = await putPolicy(rt.governance, {
      userId: g.owner,
      workspaceId: g.id,
      policy: { mcp_access: 'enabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
    });
    expect(put.affected_keys).toBe(1);
    expect(await applyWorkspacePolicy(rt.governance, g.id)).toBe(1);
  });

  it('refuses what create would refuse (a role too low for the added scope), and changes nothing', async () => {
    const g = await readGrant('viewer');
    const requestId = await ask(app, 'svc.forms.write');
    await expect(
      approve(oauth, g.person, requestId, { workspaceIds: [g.id], scopes: ['svc.forms.write'] }),
    ).rejects.toMatchObject({ code: 'workspace_access_denied' });
    expect(await scopesOf(g.tokens.access_token)).toEqual(['svc.forms.read']);
    expect(await consentView(oauth, g.person, requestId)).toMatchObject({
      requested_scopes: ['svc.forms.write'],
    });
  });

  it('keeps the grant’s workspaces: leaving one out is validation_failed and changes nothing', async () => {
    const g = await readGrant();
    const requestId = await ask(app, 'svc.forms.write');
    const other = await workspace();
    await tables.setRole(g.person, other.id, 'editor');
    const refused = await approve(oauth, g.person, requestId, {
      workspaceIds: [other.id],
      scopes: ['svc.forms.write' as Scope],
    }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'validation_failed' });
    expect(await scopesOf(g.tokens.access_token)).toEqual(['svc.forms.read']);
  });

  it('signs the app in again without an event when it asks nothing new, still one grant', async () => {
    const g = await readGrant();
    const requestId = await ask(app, 'svc.forms.read');
    const view = await consentView(oauth, g.person, requestId);
    expect(view.requested_scopes).toEqual([]);
    const tokens = await redeem(
      app,
      (await approve(oauth, g.person, requestId, { workspaceIds: [g.id], scopes: ['svc.forms.read'] }))
        .redirect_to,
    );
    expect(await scopesOf(tokens.access_token)).toEqual(['svc.forms.read']);
    expect(await onlyGrantOf(g.person)).toBe(g.grantId);
    const { items } = await rt.service.keys.listLineageEvents(g.grantId, { limit: 10 });
    expect(items.map((e) => e.type)).not.toContain('grant.updated');
  });

  it('makes a second grant only for another app, another MCP server, or once the first is revoked', async () => {
    const g = await readGrant();
    for (const request of [
      await ask(otherApp, 'svc.forms.write'),
      await ask(app, 'svc.forms.write', 0, OTHER_RESOURCE),
    ])
      expect((await consentView(oauth, g.person, request)).grant).toBeNull();
    await rt.service.keys.revoke((await rt.service.keys.get(g.grantId)) as never, new Date(), []);
    const afterRevocation = await ask(app, 'svc.forms.write');
    expect(await consentView(oauth, g.person, afterRevocation)).toMatchObject({
      grant: null,
      requested_scopes: ['svc.forms.write'],
    });
  });

  it('adds a scope once, however often the approval names it', async () => {
    const g = await readGrant();
    const requestId = await ask(app, 'svc.forms.write');
    await approve(oauth, g.person, requestId, {
      workspaceIds: [g.id],
      scopes: ['svc.forms.write', 'svc.forms.write', 'svc.forms.read'],
    });
    expect((await rt.service.keys.get(g.grantId))?.scopes).toEqual(['svc.forms.read', 'svc.forms.write']);
  });

  it('lets a refresh keep at most the widened scopes, never more', async () => {
    const g = await readGrant();
    const widened = await redeem(
      app,
      (
        await approve(oauth, g.person, await ask(app, 'svc.forms.write'), {
          workspaceIds: [g.id],
          scopes: ['svc.forms.write'],
        })
      ).redirect_to,
    );
    const refreshed = await token(oauth, {
      grant_type: 'refresh_token',
      refresh_token: widened.refresh_token,
      client_id: app.client_id,
      scope: 'svc.forms.write',
    });
    expect(refreshed.scope).toBe('svc.forms.read svc.forms.write');
    await expect(
      token(oauth, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.refresh_token,
        client_id: app.client_id,
        scope: 'svc.forms.generate',
      }),
    ).rejects.toBeInstanceOf(OAuthError);
  });
});
