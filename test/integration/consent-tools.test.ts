import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import type { KeyRecord } from '#lib/keys/model';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve, deny } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { Runtime } from '#lib/runtime';
import type { WorkspacePolicy } from '#lib/workspace-policy/rules';
import { putPolicy } from '#lib/workspaces/policy';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { oauthOver } from '#test/support/oauth-deps';

/**
 * An app's tools and limits where the person decides them (contract §19; lib/oauth/consent.ts and
 * widening.ts) on DynamoDB Local: an approval's ticked tools and limits kept on the grant with
 * what its workspaces' policies leave it, nothing of either when none is given, and a sign-in
 * again that widens the grant taking the tools then approved (none named: every tool); and a
 * decision that lost its write to another finding the request gone when it reads it back.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const app: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Example app',
  redirect_uris: ['https://app.example.com/callback'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};
const challenge = createHash('sha256').update('t'.repeat(43)).digest('base64url');

let tables: TestTables;
let rt: Runtime;
let oauth: OAuthDeps;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  oauth = oauthOver(tables, [RESOURCE], [app]);
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

/** A person who owns a new workspace, with `policy` set there when given. */
async function person(policy?: Partial<WorkspacePolicy>) {
  const userId = `person-${randomUUID()}`;
  const workspaceId = randomUUID();
  await tables.setRole(userId, workspaceId, 'owner');
  if (policy)
    await putPolicy(rt.governance, {
      userId,
      workspaceId,
      policy: {
        mcp_access: 'enabled',
        allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
        max_expiry_days: null,
        ...policy,
      },
    });
  return { userId, workspaceId };
}

const grantOf = async (userId: string) => {
  const { items } = await rt.service.keys.listByUser(userId, { limit: 10, now: new Date() });
  return items.find((k) => k.kind === 'oauth_grant') as KeyRecord;
};

describe('a first approval', () => {
  it('keeps the ticked tools in catalogue order, the limits and what the policy leaves the grant', async () => {
    const p = await person({
      allowed_tools: ['list_forms', 'read_draft', 'compile_dsl'],
      max_calls_per_minute: 5,
    });
    await approve(oauth, p.userId, await ask('svc.forms.read'), {
      workspaceIds: [p.workspaceId],
      scopes: ['svc.forms.read'],
      tools: ['read_draft', 'list_forms'],
      limits: { per_day: 50 },
    });
    expect(await grantOf(p.userId)).toMatchObject({
      tools: ['list_forms', 'read_draft'],
      limits: { per_day: 50 },
      workspace_rules: {
        [p.workspaceId]: { tools: ['list_forms', 'read_draft', 'compile_dsl'], per_minute: 5 },
      },
    });
  });

  it('without tools, limits or a restricting policy holds none of them', async () => {
    const p = await person();
    await approve(oauth, p.userId, await ask('svc.forms.read'), {
      workspaceIds: [p.workspaceId],
      scopes: ['svc.forms.read'],
      tools: null,
      limits: {},
    });
    const grant = await grantOf(p.userId);
    for (const field of ['tools', 'limits', 'workspace_rules']) expect(grant).not.toHaveProperty(field);
  });
});

describe('a sign-in again that widens the grant', () => {
  async function readGrant(tools?: string[], policy?: Partial<WorkspacePolicy>) {
    const p = await person(policy);
    await approve(oauth, p.userId, await ask('svc.forms.read'), {
      workspaceIds: [p.workspaceId],
      scopes: ['svc.forms.read'],
      tools,
    });
    return p;
  }

  it('takes the tools then approved, in catalogue order, with the policy’s rules', async () => {
    const p = await readGrant(['list_forms'], { allowed_tools: ['list_forms', 'create_form'] });
    await approve(oauth, p.userId, await ask('svc.forms.write'), {
      workspaceIds: [p.workspaceId],
      scopes: ['svc.forms.write'],
      tools: ['create_form', 'list_forms'],
    });
    expect(await grantOf(p.userId)).toMatchObject({
      scopes: ['svc.forms.read', 'svc.forms.write'],
      tools: ['list_forms', 'create_form'],
      workspace_rules: { [p.workspaceId]: { tools: ['list_forms', 'create_form'] } },
    });
  });

  it('approved without tools: every tool its scopes allow', async () => {
    const p = await readGrant(['list_forms']);
    await approve(oauth, p.userId, await ask('svc.forms.write'), {
      workspaceIds: [p.workspaceId],
      scopes: ['svc.forms.write'],
    });
    const grant = await grantOf(p.userId);
    expect(grant.scopes).toEqual(['svc.forms.read', 'svc.forms.write']);
    expect(grant).not.toHaveProperty('tools');
  });

  it('a tool the widened grant cannot reach is refused, naming it; the grant is unchanged', async () => {
    const p = await readGrant(['list_forms']);
    const err = await approve(oauth, p.userId, await ask('svc.forms.write'), {
      workspaceIds: [p.workspaceId],
      scopes: ['svc.forms.write'],
      tools: ['create_form', 'generate_form_preview'],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).errors).toEqual([
      {
        input: 'tools',
        index: 1,
        message: 'generate_form_preview needs svc.forms.generate, which the credential does not hold',
      },
    ]);
    expect(await grantOf(p.userId)).toMatchObject({ scopes: ['svc.forms.read'], tools: ['list_forms'] });
  });
});

describe('a decision that lost its write, reading the request back', () => {
  /** Deps whose store answers `method` as lost and then finds the request gone (its ten minutes over). */
  function gone(method: 'approve' | 'deny', answer: unknown): OAuthDeps {
    const store = oauth.store;
    return {
      ...oauth,
      store: new Proxy(store, {
        get: (target, name, receiver) => {
          if (name === method) return async () => answer;
          if (name === 'getRequest') return async () => undefined;
          return Reflect.get(target, name, receiver);
        },
      }),
    };
  }

  it('is told the request is not found, whichever decision it was', async () => {
    const p = await person();
    const input = { workspaceIds: [p.workspaceId], scopes: ['svc.forms.read' as const] };
    const approving = approve(
      gone('approve', { kind: 'already_decided' }),
      p.userId,
      await ask('svc.forms.read'),
      input,
    );
    await expect(approving).rejects.toMatchObject({ code: 'request_not_found' });
    const denying = deny(gone('deny', false), p.userId, await ask('svc.forms.read'));
    await expect(denying).rejects.toMatchObject({ code: 'request_not_found' });
  });
});
