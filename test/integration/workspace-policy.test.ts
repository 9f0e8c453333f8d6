import { randomUUID } from 'node:crypto';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import type { Role } from '#lib/access/scopes';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import { DAY_MS } from '#lib/limits';
import type { Runtime } from '#lib/runtime';
import { streamItems } from '#lib/store/stream';
import { type CallOptions, freshCaller, loadApi, type Reply } from '#test/support/api';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { streamReader } from '#test/support/stream';
import { loadWorkspaceApi } from '#test/support/workspace-api';

/**
 * Workspace policy (contract §12): read by members, set by administrators with a recent login,
 * obeyed by create and rotate, and applied to existing keys by the fan-out that the
 * `workspace.policy_changed` event starts on the table's stream.
 */
let tables: TestTables;
let rt: Runtime;
let ws: ReturnType<typeof loadWorkspaceApi>;
let stream: ReturnType<typeof streamReader>;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  ws = loadWorkspaceApi(rt);
  stream = streamReader(tables.endpoint, tables.keysTable);
});
afterAll(() => tables.drop());

const user = () => `user-${randomUUID()}`;
const as = (sub: string): CallOptions => ({ caller: freshCaller(sub) });

async function workspace() {
  const id = randomUUID();
  const elsewhere = randomUUID();
  const [owner, member, creator] = [user(), user(), user()];
  const roles: [string, string, Role][] = [
    [owner, id, 'owner'],
    [member, id, 'editor'],
    [creator, id, 'editor'],
    [creator, elsewhere, 'editor'],
  ];
  await Promise.all(roles.map(([u, w, r]) => tables.setRole(u, w, r)));
  return { id, elsewhere, owner, member, creator };
}

function problem(reply: Reply, status: number, code: string) {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.body).toMatchObject({ status, code });
}

const policy = (over: Record<string, unknown> = {}) => ({
  mcp_access: 'enabled',
  allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
  max_expiry_days: null,
  oauth_clients: 'any',
  credential_kinds: ['api_key', 'oauth_grant', 'enterprise_grant'],
  allowed_tools: null,
  max_calls_per_minute: null,
  max_calls_per_day: null,
  ...over,
});

/** Delivers the stream's new records to the fan-out function as Lambda would. */
async function deliverStream() {
  const Records = (await stream.next()) as DynamoDBStreamEvent['Records'];
  const out = await ws.applyPolicy({ Records }, lambdaContext('fan-out'));
  expect(out).toEqual({ batchItemFailures: [] });
  return Records;
}

describe('reading and setting the policy', () => {
  it('members read the default; non-members and missing tokens are refused', async () => {
    const w = await workspace();
    const reply = await ws.getPolicy(w.id, as(w.member));
    expect(reply.body).toEqual({ ...policy(), updated_at: null, updated_by: null });
    problem(await ws.getPolicy(w.id, as(user())), 403, 'workspace_access_denied');
    const { sub: _s, ...anonymous } = freshCaller(w.member);
    problem(await ws.getPolicy(w.id, { caller: anonymous }), 401, 'unauthorized');
  });

  it('only an administrator with a recent login sets it; bad bodies change nothing', async () => {
    const w = await workspace();
    const before = await tables.scanKeys();
    problem(await ws.putPolicy(w.id, { ...as(w.member), body: policy() }), 403, 'workspace_admin_required');
    problem(await ws.putPolicy(w.id, { ...as(user()), body: policy() }), 403, 'workspace_admin_required');
    const stale = {
      sub: w.owner,
      email_verified: 'true',
      auth_time: String(Math.floor(Date.now() / 1000) - 3600),
    };
    problem(await ws.putPolicy(w.id, { caller: stale, body: policy() }), 401, 'reauthentication_required');
    problem(
      await ws.putPolicy(w.id, { ...as(w.owner), body: { ...policy(), extra: 1 } }),
      400,
      'validation_failed',
    );
    const tooLong = await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ max_expiry_days: 91 }) });
    problem(tooLong, 400, 'validation_failed');
    expect(tooLong.raw).toContain('at most 90');
    const { mcp_access: _m, ...missing } = policy();
    problem(await ws.putPolicy(w.id, { ...as(w.owner), body: missing }), 400, 'validation_failed');
    for (const [kinds, said] of [
      [[], 'must admit at least one kind (to admit none, set mcp_access to disabled)'],
      [['api_key', 'api_key'], 'must not repeat a kind'],
      [['password'], undefined],
    ] as const) {
      const refused = await ws.putPolicy(w.id, {
        ...as(w.owner),
        body: policy({ credential_kinds: kinds }),
      });
      problem(refused, 400, 'validation_failed');
      const [error] = (refused.body as { errors: { path: string; message: string }[] }).errors;
      expect(error?.path).toMatch(/^credential_kinds/);
      if (said) expect(error?.message).toBe(said);
    }
    expect(await tables.scanKeys()).toEqual(before);
  });
});

describe('create and rotate obey the policy', () => {
  it('a disabled workspace or a scope not allowed is 403 workspace_policy_denied naming each workspace', async () => {
    const w = await workspace();
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ allowed_scopes: ['svc.forms.read'] }) });
    const denied = createKey(rt.service, {
      userId: w.creator,
      name: 'k',
      workspaceIds: [w.elsewhere, w.id],
      scopes: ['svc.forms.write'],
    });
    await expect(denied).rejects.toMatchObject({
      code: 'workspace_policy_denied',
      errors: [{ input: 'workspaceIds', index: 1, message: expect.stringContaining('svc.forms.write') }],
    });
    const ok = await createKey(rt.service, {
      userId: w.creator,
      name: 'ok',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    });
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ mcp_access: 'disabled' }) });
    const before = await tables.scanKeys();
    // Before the fan-out reaches it, the key still lists the workspace: its rotation is refused.
    const rotation = await loadApi(rt).rotate(ok.metadata.id, as(w.creator));
    problem(rotation, 403, 'workspace_policy_denied');
    expect(rotation.body.errors).toEqual([
      { path: 'workspace_ids.0', message: expect.stringContaining('does not allow MCP access') },
    ]);
    expect(await tables.scanKeys()).toEqual(before);
    const http = await loadApi(rt).create({
      ...as(w.creator),
      body: { name: 'k', workspace_ids: [w.id], scopes: ['svc.forms.read'] },
    });
    problem(http, 403, 'workspace_policy_denied');
    expect(http.body.errors).toEqual([
      { path: 'workspace_ids.0', message: expect.stringContaining('does not allow MCP access') },
    ]);
    expect(await tables.scanKeys()).toEqual(before);
    await expect(
      createKey(rt.service, {
        userId: w.creator,
        name: 'k',
        workspaceIds: [w.id],
        scopes: ['svc.forms.read'],
      }),
    ).rejects.toMatchObject({ code: 'workspace_policy_denied' });
  });

  it('max_expiry_days: above it is 400 naming it; the default is lowered to it; a rotation is capped by it', async () => {
    const w = await workspace();
    const before = await createKey(rt.service, {
      userId: w.creator,
      name: 'long',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
      expiresInDays: 60,
    });
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ max_expiry_days: 14 }) });
    await expect(
      createKey(rt.service, {
        userId: w.creator,
        name: 'k',
        workspaceIds: [w.id],
        scopes: ['svc.forms.read'],
        expiresInDays: 30,
      }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [{ input: 'expiresInDays', message: expect.stringContaining('14') }],
    });
    const byDefault = await createKey(rt.service, {
      userId: w.creator,
      name: 'd',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    });
    const days = (iso: string) => Math.round((Date.parse(iso) - Date.now()) / DAY_MS);
    expect(days(byDefault.metadata.expires_at)).toBe(14);
    const rotated = await rotateKey(rt.service, w.creator, before.metadata.id);
    expect(days(rotated.metadata.expires_at)).toBe(14);
  });
});

describe('a new policy applied to existing keys', () => {
  it('PUT answers the count at once; the fan-out from the stream cuts each key off with its event', async () => {
    const w = await workspace();
    const both = await createKey(rt.service, {
      userId: w.creator,
      name: 'both',
      workspaceIds: [w.id, w.elsewhere],
      scopes: ['svc.forms.read'],
    });
    const only = await createKey(rt.service, {
      userId: w.creator,
      name: 'only',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    });
    const writer = await createKey(rt.service, {
      userId: w.creator,
      name: 'w',
      workspaceIds: [w.id],
      scopes: ['svc.forms.write'],
    });
    const revoked = await createKey(rt.service, {
      userId: w.creator,
      name: 'r',
      workspaceIds: [w.id],
      scopes: ['svc.forms.write'],
    });
    await revokeKey(rt.service, w.creator, revoked.metadata.id);
    await stream.next(); // what came before is not this test's

    const scoped = await ws.putPolicy(w.id, {
      ...as(w.owner),
      body: policy({ allowed_scopes: ['svc.forms.read'] }),
    });
    expect(scoped.body).toMatchObject({
      affected_keys: 1,
      updated_by: w.owner,
      allowed_scopes: ['svc.forms.read'],
    });
    const records = await deliverStream();
    const published = streamItems(records).flatMap((i) => (i.event ? [i.event] : []));
    expect(published.map((e) => e.type)).toEqual(['workspace.policy_changed']);
    expect((await rt.verify(writer.apiKey)).outcome).toBe('revoked');
    expect((await rt.verify(only.apiKey)).outcome).toBe('valid');

    const disabled = await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ mcp_access: 'disabled' }) });
    expect(disabled.body).toMatchObject({ affected_keys: 2, mcp_access: 'disabled' });
    const after = await deliverStream();
    const verified = await rt.verify(both.apiKey);
    expect(verified.outcome === 'valid' && verified.workspaces.map((x) => x.id)).toEqual([w.elsewhere]);
    expect((await rt.verify(only.apiKey)).outcome).toBe('revoked');

    // Every cut-off is published once (from its lineage), never again from the workspace's history.
    const events = streamItems(await stream.next()).flatMap((i) => (i.event ? [i.event] : []));
    const removed = events.filter((e) => e.type === 'key.workspace_removed');
    expect(removed).toHaveLength(2);
    expect(removed.every((e) => e.actor.type === 'system' && e.details.reason === 'policy')).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

    const history = await ws.events(w.id, as(w.owner));
    expect((history.body.data as { type: string }[]).map((e) => e.type)).toEqual([
      'key.workspace_removed',
      'key.workspace_removed',
      'workspace.policy_changed',
      'key.workspace_removed',
      'workspace.policy_changed',
    ]);
    const change = (history.body.data as Record<string, unknown>[])[2];
    expect(change).toMatchObject({
      actor: { type: 'workspace_admin', id: w.owner },
      details: {
        workspace_id: w.id,
        before: { allowed_scopes: ['svc.forms.read'] },
        after: { mcp_access: 'disabled' },
      },
    });

    // Delivered again (at least once), it finds nothing left to do.
    const scan = await tables.scanKeys();
    await ws.applyPolicy({ Records: after as DynamoDBStreamEvent['Records'] }, lambdaContext('again'));
    expect(await tables.scanKeys()).toEqual(scan);
  });

  it('DynamoDB failing mid-change: 503, neither the policy nor its event is written', async () => {
    const w = await workspace();
    const before = await tables.scanKeys();
    const name = 'policy-fault';
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (String(context.commandName).startsWith('TransactWrite'))
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
      problem(
        await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ mcp_access: 'disabled' }) }),
        503,
        'dependency_unavailable',
      );
    } finally {
      tables.doc.middlewareStack.remove(name);
    }
    expect(await tables.scanKeys()).toEqual(before);
    expect((await ws.getPolicy(w.id, as(w.member))).body).toMatchObject({
      mcp_access: 'enabled',
      updated_at: null,
    });
  });

  it('the same policy again writes nothing', async () => {
    const w = await workspace();
    await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ max_expiry_days: 30 }) });
    const scan = await tables.scanKeys();
    const again = await ws.putPolicy(w.id, { ...as(w.owner), body: policy({ max_expiry_days: 30 }) });
    expect(again.status).toBe(200);
    expect(await tables.scanKeys()).toEqual(scan);
  });
});
