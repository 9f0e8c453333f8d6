import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '#lib/keys/lifecycle';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthDeps } from '#lib/oauth/deps';
import { register } from '#lib/oauth/registration';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { freshCaller, loadApi, type Reply } from '#test/support/api';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { routeCaller } from '#test/support/route-call';
import { loadWorkspaceApi } from '#test/support/workspace-api';

/**
 * A credential's own tools and limits where it is made and where it is used (contract §19), on
 * DynamoDB Local: create and consent refuse a tool it may not name with a 400 naming `tools.<i>`,
 * and a verification's refusals are counted in usage, `tool_not_allowed` with its tool and
 * `rate_limited`, beside the allowed calls and those whose tool is unknown.
 */
const RESOURCE = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1:7777/callback';

let tables: TestTables;
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
    { doc: tables.doc },
  );
  oauth = rt.oauth as OAuthDeps;
  clientId = (await register(oauth, { client_name: 'Assistant', redirect_uris: [REDIRECT] })).client_id;
});
afterAll(() => tables.drop());

function problem(reply: Reply, status: number, code: string) {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.body).toMatchObject({ status, code });
}

describe('create', () => {
  it('refuses each tool the catalogue lacks, its scopes do not reach or it lists twice, naming tools.<i>; nothing written', async () => {
    const { caller, workspaceId } = await newMember(tables);
    const before = await tables.scanKeys();
    const reply = await loadApi(rt).create({
      caller,
      body: {
        name: 'k',
        workspace_ids: [workspaceId],
        scopes: ['svc.forms.read'],
        tools: ['list_forms', 'replace_draft', 'format_disk'],
      },
    });
    problem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([
      { path: 'tools.1', message: 'replace_draft needs svc.forms.write, which the credential does not hold' },
      { path: 'tools.2', message: 'format_disk is not a tool of this MCP server' },
    ]);
    const twice = await loadApi(rt).create({
      caller,
      body: {
        name: 'k',
        workspace_ids: [workspaceId],
        scopes: ['svc.forms.read'],
        tools: ['list_forms', 'list_forms'],
      },
    });
    problem(twice, 400, 'validation_failed');
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('keeps its tools in catalogue order and its limits, both in its metadata', async () => {
    const { caller, workspaceId } = await newMember(tables);
    const reply = await loadApi(rt).create({
      caller,
      body: {
        name: 'k',
        workspace_ids: [workspaceId],
        scopes: ['svc.forms.read'],
        tools: ['read_draft', 'list_forms'],
        limits: { per_minute: 5 },
      },
    });
    expect(reply.status, reply.raw).toBe(201);
    expect(reply.body.metadata).toMatchObject({
      tools: ['list_forms', 'read_draft'],
      limits: { per_minute: 5, per_day: null },
      effective_limits: [{ window: 'minute', limit: 5, by: 'credential', calls: 0 }],
    });
  });
});

describe('consent', () => {
  async function requested() {
    const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');
    const outcome = await authorize(oauth, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: RESOURCE,
      scope: 'svc.forms.read',
      state: 'st',
    });
    if (outcome.kind !== 'redirect') throw new Error(outcome.message);
    return new URL(outcome.location).searchParams.get('request') as string;
  }

  it('an approval naming a tool it may not have is 400 naming tools.<i>; the tools left ticked are the grant’s', async () => {
    const { userId, workspaceId } = await newMember(tables);
    const id = await requested();
    const approve = (body: unknown) =>
      routeCaller(rt)(
        'approve-oauth-request',
        'POST',
        '/v1/mcp/oauth/requests/{request_id}/approve',
        { request_id: id },
        { caller: freshCaller(userId), body },
      );
    const base = { workspace_ids: [workspaceId], scopes: ['svc.forms.read'] };
    const refused = await approve({ ...base, tools: ['read_draft', 'create_form'] });
    problem(refused, 400, 'validation_failed');
    expect(refused.body.errors).toEqual([
      { path: 'tools.1', message: 'create_form needs svc.forms.write, which the credential does not hold' },
    ]);
    const approved = await approve({ ...base, tools: ['read_draft'], limits: { per_day: 100 } });
    expect(approved.status, approved.raw).toBe(200);
    const [grant] = (await loadApi(rt).list({ caller: freshCaller(userId) })).body.data as Record<
      string,
      unknown
    >[];
    expect(grant).toMatchObject({
      kind: 'oauth_grant',
      tools: ['read_draft'],
      limits: { per_day: 100, per_minute: null },
    });
  });
});

describe('usage of a credential with tools and limits', () => {
  it('counts refused tools by name, calls over a limit, and calls whose tool is unknown', async () => {
    const member = await newMember(tables);
    const key = await createKey(rt.service, {
      userId: member.userId,
      name: 'narrow',
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
      tools: ['list_forms'],
      limits: { per_minute: 2 },
    });
    // One function instance: its usage and its limits counted in its memory.
    const instance = tables.runtime();
    const call = (name: string) => ({ method: 'tools/call', name });
    const outcomes = [
      await instance.verify(key.apiKey),
      await instance.verify(key.apiKey, call('list_forms')),
      await instance.verify(key.apiKey, call('read_draft')),
      await instance.verify(key.apiKey, call('read_draft')),
      await instance.verify(key.apiKey, call('list_forms')),
    ].map((r) => r.outcome);
    expect(outcomes).toEqual(['valid', 'valid', 'tool_not_allowed', 'tool_not_allowed', 'rate_limited']);
    await instance.endUsage();

    const usage = await loadWorkspaceApi(rt).keyUsage(key.metadata.id, { caller: member.caller });
    expect(usage.status, usage.raw).toBe(200);
    expect(usage.body.total).toEqual({
      calls: 5,
      refused: { tool_not_allowed: 2, rate_limited: 1 },
      tools: { list_forms: 1 },
      refused_tools: { read_draft: 2 },
      unnamed: 1,
    });
    expect(usage.body).toMatchObject({
      tools: ['list_forms'],
      tools_used_30d: ['list_forms'],
      calls_tool_unknown_30d: 1,
    });
  });

  it('the workspace’s administrators see the refusals too', async () => {
    const owner = `owner-${randomUUID()}`;
    const member = await newMember(tables);
    await tables.setRole(owner, member.workspaceId, 'owner');
    const key = await createKey(rt.service, {
      userId: member.userId,
      name: 'k',
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
      limits: { per_day: 1 },
    });
    const instance = tables.runtime();
    await instance.verify(key.apiKey, { method: 'tools/call', name: 'list_forms' });
    expect((await instance.verify(key.apiKey, { method: 'tools/list' })).outcome).toBe('rate_limited');
    await instance.endUsage();
    const view = await loadWorkspaceApi(rt).usage(member.workspaceId, { caller: freshCaller(owner) });
    expect(view.status, view.raw).toBe(200);
    expect(view.body.groups).toEqual([
      expect.objectContaining({ key: key.metadata.id, calls: 2, refused: { rate_limited: 1 } }),
    ]);
  });
});
