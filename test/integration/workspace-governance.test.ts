import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#lib/access/scopes';
import { createKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { type CallOptions, freshCaller, loadApi, type Reply } from '#test/support/api';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { loadWorkspaceApi } from '#test/support/workspace-api';

/**
 * Workspace governance through the handlers (contract §12): an administrator lists the keys that
 * reach the workspace and cuts one off; the key's next verification lacks the workspace.
 */
let tables: TestTables;
let rt: Runtime;
let ws: ReturnType<typeof loadWorkspaceApi>;
let keysApi: ReturnType<typeof loadApi>;
const FAULT = 'governance-fault';

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  ws = loadWorkspaceApi(rt);
  keysApi = loadApi(rt);
});
afterEach(() => tables.doc.middlewareStack.remove(FAULT));
afterAll(() => tables.drop());

const user = () => `user-${randomUUID()}`;

/** A workspace with an owner, an admin, a plain member, and a creator who also belongs elsewhere. */
async function workspace() {
  const id = randomUUID();
  const elsewhere = randomUUID();
  const [owner, admin, member, creator] = [user(), user(), user(), user()];
  const roles: [string, string, Role][] = [
    [owner, id, 'owner'],
    [admin, id, 'admin'],
    [member, id, 'editor'],
    [creator, id, 'editor'],
    [creator, elsewhere, 'editor'],
  ];
  await Promise.all(roles.map(([u, w, r]) => tables.setRole(u, w, r)));
  return { id, elsewhere, owner, admin, member, creator };
}

async function keyOf(userId: string, workspaceIds: string[], name = 'laptop') {
  return createKey(rt.service, { userId, name, workspaceIds, scopes: ['svc.forms.read'] });
}

const as = (sub: string): CallOptions => ({ caller: freshCaller(sub) });

function problem(reply: Reply, status: number, code: string) {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.headers['content-type']).toBe('application/problem+json');
  expect(reply.body).toMatchObject({ status, code });
}

describe('keys that reach a workspace', () => {
  it('an admin sees every creator’s key with creator, status and last use, never its other workspaces', async () => {
    const w = await workspace();
    const issued = await keyOf(w.creator, [w.id, w.elsewhere]);
    await rt.verify(issued.apiKey);
    const reply = await ws.listKeys(w.id, as(w.admin));
    expect(reply.status, reply.raw).toBe(200);
    expect(reply.body.data).toEqual([
      expect.objectContaining({
        id: issued.metadata.id,
        user_id: w.creator,
        status: 'active',
        workspace_access: 'active',
        last_used_at: expect.any(String),
      }),
    ]);
    expect(reply.raw).not.toContain(w.elsewhere);
    expect(reply.raw).not.toContain(issued.apiKey);
    expect(Object.keys((reply.body.data as object[])[0] as object)).not.toContain('workspace_ids');
  });

  it('pages newest first with a cursor bound to caller and workspace', async () => {
    const w = await workspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await keyOf(w.creator, [w.id], `k${i}`)).metadata.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const reply = await ws.listKeys(w.id, {
        ...as(w.owner),
        query: { limit: '2', ...(cursor && { cursor }) },
      });
      expect(reply.status, reply.raw).toBe(200);
      seen.push(...(reply.body.data as { id: string }[]).map((k) => k.id));
      cursor = (reply.body.next_cursor as string | null) ?? undefined;
    } while (cursor);
    expect(seen).toEqual(ids);

    const first = await ws.listKeys(w.id, { ...as(w.owner), query: { limit: '2' } });
    const stolen = first.body.next_cursor as string;
    problem(await ws.listKeys(w.id, { ...as(w.admin), query: { cursor: stolen } }), 400, 'invalid_cursor');
    const other = await workspace();
    await tables.setRole(w.owner, other.id, 'owner');
    problem(
      await ws.listKeys(other.id, { ...as(w.owner), query: { cursor: stolen } }),
      400,
      'invalid_cursor',
    );
  });
});

describe('the shared matrix on the governance endpoints', () => {
  type Call = (w: Awaited<ReturnType<typeof workspace>>, keyId: string, opts: CallOptions) => Promise<Reply>;
  const endpoints: [string, Call][] = [
    ['list keys', (w, _k, o) => ws.listKeys(w.id, o)],
    ['cut off', (w, k, o) => ws.cutOff(w.id, k, o)],
    ['events', (w, _k, o) => ws.events(w.id, o)],
  ];

  it.each(endpoints)(
    '%s: no token, a member who is not an admin, a non-member: refused, nothing changes',
    async (_n, call) => {
      const w = await workspace();
      const { metadata } = await keyOf(w.creator, [w.id]);
      const before = await tables.scanKeys();
      const { sub: _drop, ...anonymous } = freshCaller(w.admin);
      problem(await call(w, metadata.id, { caller: anonymous }), 401, 'unauthorized');
      problem(await call(w, metadata.id, as(w.member)), 403, 'workspace_admin_required');
      problem(await call(w, metadata.id, as(user())), 403, 'workspace_admin_required');
      // The creator of the key is no admin either.
      problem(await call(w, metadata.id, as(w.creator)), 403, 'workspace_admin_required');
      expect(await tables.scanKeys()).toEqual(before);
    },
  );

  it('an admin who is demoted is refused on the very next call', async () => {
    const w = await workspace();
    expect((await ws.listKeys(w.id, as(w.admin))).status).toBe(200);
    await tables.setRole(w.admin, w.id, 'viewer');
    problem(await ws.listKeys(w.id, as(w.admin)), 403, 'workspace_admin_required');
  });

  it('events: another workspace’s cursor is 400 invalid_cursor', async () => {
    const w = await workspace();
    const other = await workspace();
    await tables.setRole(w.owner, other.id, 'owner');
    for (let i = 0; i < 3; i++) {
      const { metadata } = await keyOf(other.creator, [other.id, other.elsewhere]);
      expect((await ws.cutOff(other.id, metadata.id, as(w.owner))).status).toBe(200);
    }
    const page = await ws.events(other.id, { ...as(w.owner), query: { limit: '1' } });
    const cursor = page.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    problem(await ws.events(w.id, { ...as(w.owner), query: { cursor } }), 400, 'invalid_cursor');
  });
});

describe('cutting a key off', () => {
  it('the next verification lacks the workspace; events, history and the creator’s metadata say so', async () => {
    const w = await workspace();
    const issued = await keyOf(w.creator, [w.id, w.elsewhere]);
    expect((await rt.verify(issued.apiKey)).outcome).toBe('valid');
    const reply = await ws.cutOff(w.id, issued.metadata.id, as(w.admin));
    expect(reply.status, reply.raw).toBe(200);
    expect(reply.body.metadata).toMatchObject({ status: 'removed', workspace_access: 'removed' });
    expect(reply.raw).not.toContain(w.elsewhere);

    const verified = await rt.verify(issued.apiKey);
    expect(verified.outcome === 'valid' && verified.workspaces.map((x) => x.id)).toEqual([w.elsewhere]);

    const mine = await keysApi.list(as(w.creator));
    expect((mine.body.data as object[])[0]).toMatchObject({
      workspace_ids: [w.elsewhere],
      removed_workspace_ids: [w.id],
      status: 'active',
    });
    const history = await keysApi.events(issued.metadata.id, as(w.creator));
    expect((history.body.data as object[])[0]).toMatchObject({
      type: 'key.workspace_removed',
      actor: { type: 'workspace_admin', id: w.admin },
      details: { workspace_id: w.id, reason: 'admin' },
    });
    const governance = await ws.events(w.id, as(w.owner));
    expect(governance.body.data).toEqual([
      expect.objectContaining({
        type: 'key.workspace_removed',
        key_id: issued.metadata.id,
        user_id: w.creator,
      }),
    ]);
    expect(governance.raw).not.toContain(w.elsewhere);

    // Idempotent: the repeat answers the same and writes nothing.
    const before = await tables.scanKeys();
    const again = await ws.cutOff(w.id, issued.metadata.id, as(w.owner));
    expect(again.status).toBe(200);
    expect(again.body.metadata).toMatchObject({ status: 'removed' });
    expect(await tables.scanKeys()).toEqual(before);

    const filtered = await ws.listKeys(w.id, { ...as(w.admin), query: { status: 'removed' } });
    expect((filtered.body.data as { id: string }[]).map((k) => k.id)).toEqual([issued.metadata.id]);
    const active = await ws.listKeys(w.id, { ...as(w.admin), query: { status: 'active' } });
    expect(active.body.data).toEqual([]);
  });

  it('the last workspace: the key is revoked in the same transaction and its slot freed', async () => {
    const w = await workspace();
    const limited = tables.runtime({ settings: { maxActiveKeys: 1 } });
    const issued = await createKey(limited.service, {
      userId: w.creator,
      name: 'only',
      workspaceIds: [w.id],
      scopes: ['svc.forms.read'],
    });
    const reply = await ws.cutOff(w.id, issued.metadata.id, as(w.owner));
    expect(reply.body.metadata).toMatchObject({ status: 'removed', revoked_at: expect.any(String) });
    expect(await rt.verify(issued.apiKey)).toEqual({ outcome: 'revoked', key_id: issued.metadata.id });
    const history = await keysApi.events(issued.metadata.id, as(w.creator));
    expect((history.body.data as { type: string }[]).map((e) => e.type).sort()).toEqual(
      ['key.created', 'key.revoked', 'key.workspace_removed'].sort(),
    );
    // The cap counts active keys: the creator may create again.
    await createKey(limited.service, {
      userId: w.creator,
      name: 'next',
      workspaceIds: [w.elsewhere],
      scopes: ['svc.forms.read'],
    });
  });

  it('a key that never reached the workspace, or no key at all, is 404', async () => {
    const w = await workspace();
    const other = await keyOf(w.creator, [w.elsewhere]);
    problem(await ws.cutOff(w.id, other.metadata.id, as(w.owner)), 404, 'not_found');
    problem(await ws.cutOff(w.id, randomUUID(), as(w.owner)), 404, 'not_found');
  });

  it('carried into rotations: a key rotated after the cut-off never regains the workspace', async () => {
    const w = await workspace();
    const issued = await keyOf(w.creator, [w.id, w.elsewhere]);
    await ws.cutOff(w.id, issued.metadata.id, as(w.admin));
    const rotated = await rotateKey(rt.service, w.creator, issued.metadata.id);
    expect(rotated.metadata).toMatchObject({ workspace_ids: [w.elsewhere], removed_workspace_ids: [w.id] });
    const verified = await rt.verify(rotated.apiKey);
    expect(verified.outcome === 'valid' && verified.workspaces.map((x) => x.id)).toEqual([w.elsewhere]);
  });

  it('a cut-off racing a rotation: whichever lands first, the newest key never has the workspace', async () => {
    for (let round = 0; round < 8; round++) {
      const w = await workspace();
      const issued = await keyOf(w.creator, [w.id, w.elsewhere]);
      const [cut, rotation] = await Promise.allSettled([
        ws.cutOff(w.id, issued.metadata.id, as(w.admin)),
        rotateKey(rt.service, w.creator, issued.metadata.id),
      ]);
      expect(cut.status === 'fulfilled' && cut.value.status).toBe(200);
      expect(rotation.status).toBe('fulfilled');
      const newest = rotation.status === 'fulfilled' ? rotation.value : undefined;
      const stored = await rt.service.keys.get(newest?.metadata.id as string);
      expect(stored?.workspace_ids).toEqual([w.elsewhere]);
      const verified = await rt.verify(newest?.apiKey);
      expect(verified.outcome === 'valid' && verified.workspaces.map((x) => x.id)).toEqual([w.elsewhere]);
    }
  });

  it('a cut-off or a policy change that keeps losing to concurrent writes is 409 conflict and writes nothing', async () => {
    const w = await workspace();
    const issued = await keyOf(w.creator, [w.id]);
    const before = await tables.scanKeys();
    let cancelled = 0;
    // Every transaction is cancelled as DynamoDB cancels one whose condition a concurrent write broke.
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') {
          cancelled++;
          throw new TransactionCanceledException({
            message: 'Transaction cancelled (injected)',
            $metadata: {},
            CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
          });
        }
        return next(args);
      },
      { step: 'initialize', name: FAULT },
    );
    problem(await ws.cutOff(w.id, issued.metadata.id, as(w.owner)), 409, 'conflict');
    const cutOffAttempts = cancelled;
    expect(cutOffAttempts).toBeGreaterThan(1);
    const body = { mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null };
    problem(await ws.putPolicy(w.id, { ...as(w.owner), body }), 409, 'conflict');
    expect(cancelled).toBeGreaterThan(cutOffAttempts + 1);
    expect(await tables.scanKeys()).toEqual(before);
    tables.doc.middlewareStack.remove(FAULT);
    expect((await ws.cutOff(w.id, issued.metadata.id, as(w.owner))).status).toBe(200);
  });

  it('DynamoDB failing mid-change: 503, nothing half-written, and the retry succeeds', async () => {
    const w = await workspace();
    const issued = await keyOf(w.creator, [w.id]);
    const before = await tables.scanKeys();
    tables.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (
          context.commandName === 'TransactWriteItemsCommand' ||
          context.commandName === 'TransactWriteCommand'
        )
          throw Object.assign(new Error('InternalServerError (injected)'), {
            name: 'InternalServerError',
            $fault: 'server',
            $metadata: { httpStatusCode: 500 },
          });
        return next(args);
      },
      { step: 'initialize', name: FAULT },
    );
    const failed = await ws.cutOff(w.id, issued.metadata.id, as(w.owner));
    problem(failed, 503, 'dependency_unavailable');
    expect(await tables.scanKeys()).toEqual(before);
    expect((await rt.verify(issued.apiKey)).outcome).toBe('valid');
    tables.doc.middlewareStack.remove(FAULT);
    expect((await ws.cutOff(w.id, issued.metadata.id, as(w.owner))).status).toBe(200);
  });
});
