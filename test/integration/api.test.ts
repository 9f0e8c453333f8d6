import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '#lib/errors';
import { createKey } from '#lib/keys/lifecycle';
import { type CallOptions, freshCaller, loadApi, type Reply } from '#test/support/api';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';
import { captureOutput } from '#test/support/logs';
import { SecretLedger } from '#test/support/secrets';

let tables: TestTables;
let api: Awaited<ReturnType<typeof loadApi>>;
const output = captureOutput();
const secrets = new SecretLedger();
const replies: Reply[] = [];

beforeAll(async () => {
  tables = await createTestTables();
  api = loadApi(tables.runtime());
});
afterAll(async () => {
  output.restore();
  await tables.drop();
});

const record = (reply: Reply): Reply => {
  replies.push(reply);
  return reply;
};

async function member(role: 'viewer' | 'editor' | 'owner' = 'editor') {
  const { userId, workspaceId, caller } = await newMember(tables, role);
  return { sub: userId, workspaceId, caller };
}

async function createVia(sub: string, workspaceId: string, body: Record<string, unknown> = {}) {
  const reply = record(
    await api.create({
      caller: freshCaller(sub),
      body: { name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'], ...body },
    }),
  );
  secrets.add(reply.body.api_key as string | undefined);
  const stored = await api.runtime.service.keys.get(
    (reply.body.metadata as { id: string } | undefined)?.id ?? randomUUID(),
  );
  secrets.add(stored?.digest);
  return reply;
}

const problem = (reply: Reply, status: number, code: string) => {
  expect(reply.status, reply.raw).toBe(status);
  expect(reply.headers['content-type']).toBe('application/problem+json');
  expect(reply.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  expect(reply.body.request_id).toBe(reply.headers['x-request-id']);
};

describe('create', () => {
  it('answers 201 with Location, no-store, the key once and its metadata', async () => {
    const { sub, workspaceId } = await member();
    const reply = await createVia(sub, workspaceId, {
      name: '  Claude Desktop (laptop) ',
      expires_in_days: 7,
    });
    expect(reply.status).toBe(201);
    const metadata = reply.body.metadata as Record<string, unknown>;
    expect(reply.headers.location).toBe(`/v1/mcp/api-keys/${metadata.id}`);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['x-request-id']).toMatch(/.+/);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(Object.values(reply.headers).every((v) => v !== 'undefined' && v !== '')).toBe(true);
    expect(reply.body.api_key).toMatch(/^svc_mcp_v1_[0-9A-Za-z]{71}$/);
    expect(metadata).toMatchObject({
      name: 'Claude Desktop (laptop)',
      status: 'active',
      scopes: ['svc.forms.read'],
    });
    expect(Object.keys(metadata).sort()).toEqual(
      [
        'id',
        'name',
        'key_hint',
        'scopes',
        'workspace_ids',
        'status',
        'created_at',
        'expires_at',
        'last_used_at',
        'revoked_at',
        'rotated_from',
        'replaced_by',
        'removed_workspace_ids',
        'tools',
        'workspace_rules',
        'limits',
        'effective_limits',
        'kind',
      ].sort(),
    );
  });

  it('lists every validation problem, not just the first', async () => {
    const { caller } = await member();
    const reply = record(
      await api.create({
        caller,
        body: {
          name: '',
          workspace_ids: ['nope', 'nope'],
          scopes: ['svc.forms.delete'],
          expires_in_days: 0,
          colour: 'red',
        },
      }),
    );
    problem(reply, 400, 'validation_failed');
    const paths = (reply.body.errors as { path: string }[]).map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'name',
        'workspace_ids.0',
        'workspace_ids.1',
        'scopes.0',
        'expires_in_days',
        'body',
      ]),
    );
  });

  it.each([
    ['duplicate workspace ids', (w: string) => ({ workspace_ids: [w, w] }), 'workspace_ids.1'],
    ['duplicate scopes', () => ({ scopes: ['svc.forms.read', 'svc.forms.read'] }), 'scopes.1'],
    [
      '51 workspaces',
      () => ({ workspace_ids: Array.from({ length: 51 }, () => randomUUID()) }),
      'workspace_ids',
    ],
    ['no workspaces', () => ({ workspace_ids: [] }), 'workspace_ids'],
    ['a name of 101 characters', () => ({ name: 'x'.repeat(101) }), 'name'],
    ['a control character in the name', () => ({ name: 'a\u0007b' }), 'name'],
    // Format characters (Unicode Cf) make a name display as something else.
    ['a right-to-left override (U+202E) in the name', () => ({ name: 'laptop\u202Etxt.exe' }), 'name'],
    ['a right-to-left isolate (U+2067) in the name', () => ({ name: 'a\u2067b\u2069' }), 'name'],
    ['a zero-width space (U+200B) in the name', () => ({ name: 'lap\u200Btop' }), 'name'],
    ['a soft hyphen (U+00AD) in the name', () => ({ name: 'lap\u00ADtop' }), 'name'],
    ['an Arabic letter mark (U+061C) in the name', () => ({ name: 'a\u061Cb' }), 'name'],
    ['a tag character (U+E0041) in the name', () => ({ name: 'a\u{E0041}b' }), 'name'],
    ['a fractional expiry', () => ({ expires_in_days: 1.5 }), 'expires_in_days'],
    ['an expiry above the maximum', () => ({ expires_in_days: 91 }), 'expires_in_days'],
    ['a string expiry', () => ({ expires_in_days: '30' }), 'expires_in_days'],
  ])('refuses %s with validation_failed naming the field', async (_label, patch, path) => {
    const { caller, workspaceId } = await member();
    const reply = record(
      await api.create({
        caller,
        body: { name: 'k', workspace_ids: [workspaceId], scopes: ['svc.forms.read'], ...patch(workspaceId) },
      }),
    );
    problem(reply, 400, 'validation_failed');
    expect((reply.body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
  });

  it('names the maximum when the expiry is above it', async () => {
    const { caller, workspaceId } = await member();
    const reply = await api.create({
      caller,
      body: { name: 'k', workspace_ids: [workspaceId], scopes: ['svc.forms.read'], expires_in_days: 365 },
    });
    expect(reply.body.errors).toEqual([
      { path: 'expires_in_days', message: 'must be at most 90 (the deployment maximum)' },
    ]);
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const { caller } = await member();
    problem(record(await api.create({ caller, rawBody: '{"name": ' })), 400, 'invalid_json');
  });

  it('answers 415 for a body without a JSON content type', async () => {
    const { caller, workspaceId } = await member();
    const body = JSON.stringify({ name: 'k', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] });
    problem(
      record(await api.create({ caller, rawBody: body, contentType: 'text/plain' })),
      415,
      'unsupported_media_type',
    );
    problem(
      record(await api.create({ caller, rawBody: body, contentType: null })),
      415,
      'unsupported_media_type',
    );
    const ok = await api.create({ caller, rawBody: body, contentType: 'application/json; charset=utf-8' });
    expect(ok.status).toBe(201);
    secrets.add(ok.body.api_key as string);
  });

  it('answers 413 for a body over 16 KiB', async () => {
    const { caller } = await member();
    problem(
      record(await api.create({ caller, rawBody: JSON.stringify({ name: 'x'.repeat(17_000) }) })),
      413,
      'payload_too_large',
    );
  });

  it('answers 403 workspace_access_denied naming each workspace and why', async () => {
    const { sub, caller, workspaceId } = await member('viewer');
    const other = randomUUID();
    const reply = record(
      await api.create({
        caller,
        body: { name: 'k', workspace_ids: [workspaceId, other], scopes: ['svc.forms.write'] },
      }),
    );
    problem(reply, 403, 'workspace_access_denied');
    expect(reply.body.errors).toEqual([
      {
        path: 'workspace_ids.0',
        message: `role viewer in workspace ${workspaceId} does not allow svc.forms.write`,
      },
      { path: 'workspace_ids.1', message: `not a member of workspace ${other}` },
    ]);
    const listed = await api.list({ caller: { sub } });
    expect(listed.body.data).toEqual([]);
  });

  it('answers 409 key_limit_reached past the active-key cap', async () => {
    const { sub, workspaceId } = await member();
    // A deployment with a cap of 3 (not the default), through the handler.
    const capped = loadApi(tables.runtime({ settings: { maxActiveKeys: 3 } }));
    for (let i = 0; i < 3; i++) {
      const reply = await capped.create({
        caller: freshCaller(sub),
        body: { name: `k${i}`, workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
      });
      expect(reply.status).toBe(201);
      secrets.add(reply.body.api_key as string);
    }
    const refused = record(
      await capped.create({
        caller: freshCaller(sub),
        body: { name: 'one too many', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
      }),
    );
    problem(refused, 409, 'key_limit_reached');
    expect(refused.body.detail).toContain('At most 3');
  });

  it('answers 403 account_disabled to create and rotate once the person’s identity provider disabled them', async () => {
    const { sub, workspaceId } = await member();
    const id = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.keysTable,
        Key: { pk: `USER#${sub}`, sk: 'ACTIVE_KEYS' },
        UpdateExpression: 'SET disabled_by = :by',
        ExpressionAttributeValues: {
          ':by': { 'https://idp.example.org': { event: 'account-disabled', at: '2026-12-06T09:00:00.000Z' } },
        },
      }),
    );
    const sentence =
      'Your identity provider (idp.example.org) disabled your account at 2026-12-06 09:00 UTC: no key or app can be created for it until the identity provider enables it again.';
    const created = record(await createVia(sub, workspaceId));
    problem(created, 403, 'account_disabled');
    expect(created.body.detail).toBe(sentence);
    const rotated = record(await api.rotate(id, { caller: freshCaller(sub) }));
    problem(rotated, 403, 'account_disabled');
    expect(rotated.body.detail).toBe(sentence);
  });
});

describe('step-up on create and rotate', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it.each([
    ['a login 899 s old', { auth_time: () => String(now() - 899), email_verified: 'true' }, 201],
    ['a login 901 s old', { auth_time: () => String(now() - 901), email_verified: 'true' }, 401],
    ['a native numeric auth_time', { auth_time: () => now() - 10, email_verified: true }, 201],
    ['a missing auth_time', { auth_time: () => undefined, email_verified: 'true' }, 401],
    [
      'an auth_time 30 s in the future (clock skew)',
      { auth_time: () => String(now() + 30), email_verified: 'true' },
      201,
    ],
    [
      'an auth_time 120 s in the future',
      { auth_time: () => String(now() + 120), email_verified: 'true' },
      401,
    ],
    ['a non-numeric auth_time', { auth_time: () => 'yesterday', email_verified: 'true' }, 401],
    ['email_verified "false"', { auth_time: () => String(now()), email_verified: 'false' }, 403],
    ['email_verified missing', { auth_time: () => String(now()), email_verified: undefined }, 403],
    ['email_verified "TRUE"', { auth_time: () => String(now()), email_verified: 'TRUE' }, 403],
  ])('%s answers %i', async (_label, claims, status) => {
    const { sub, workspaceId } = await member();
    const caller = { sub, auth_time: claims.auth_time(), email_verified: claims.email_verified };
    const reply = record(
      await api.create({
        caller,
        body: { name: 'k', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
      }),
    );
    secrets.add(reply.body.api_key as string | undefined);
    expect(reply.status).toBe(status);
    if (status === 401) {
      problem(reply, 401, 'reauthentication_required');
      expect(reply.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_user_authentication", max_age="900"',
      );
    }
    if (status === 403) problem(reply, 403, 'email_not_verified');
  });

  it('applies to rotate but not to list or revoke', async () => {
    const { sub, workspaceId } = await member();
    const created = await createVia(sub, workspaceId);
    const id = (created.body.metadata as { id: string }).id;
    const stale = { sub, email_verified: 'true', auth_time: String(now() - 3600) };
    problem(record(await api.rotate(id, { caller: stale })), 401, 'reauthentication_required');
    expect((await api.list({ caller: stale })).status).toBe(200);
    expect((await api.revoke(id, { caller: { sub } })).status).toBe(200);
  });
});

describe('list', () => {
  it('pages with limit and cursor, filters by status, and never shows a key or digest', async () => {
    const { sub, workspaceId } = await member();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await createVia(sub, workspaceId)).body.metadata as { id: string }).id);
    const revokedId = ids[0] as string;
    await api.revoke(revokedId, { caller: { sub } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor && { cursor }) };
      const page = record(await api.list({ caller: { sub }, query }));
      expect(page.status).toBe(200);
      expect(page.headers['cache-control']).toBe('no-store');
      seen.push(...(page.body.data as { id: string }[]).map((m) => m.id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const revoked = await api.list({ caller: { sub }, query: { status: 'revoked' } });
    expect((revoked.body.data as { id: string }[]).map((m) => m.id)).toEqual([revokedId]);
    const active = await api.list({ caller: { sub }, query: { status: 'active', limit: '100' } });
    expect(active.body.data).toHaveLength(4);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ status: 'deleted' }, 'status'],
    [{ sort: 'asc' }, 'query'],
  ])('refuses query %j with validation_failed', async (query, path) => {
    const { sub } = await member();
    const reply = record(await api.list({ caller: { sub }, query }));
    problem(reply, 400, 'validation_failed');
    expect((reply.body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
  });

  it('refuses a tampered cursor and another user’s cursor with invalid_cursor', async () => {
    const a = await member();
    const b = await member();
    for (let i = 0; i < 3; i++) await createVia(a.sub, a.workspaceId);
    const page = await api.list({ caller: { sub: a.sub }, query: { limit: '1' } });
    const cursor = page.body.next_cursor as string;
    problem(record(await api.list({ caller: { sub: b.sub }, query: { cursor } })), 400, 'invalid_cursor');
    problem(
      record(await api.list({ caller: { sub: a.sub }, query: { cursor: `x${cursor.slice(1)}` } })),
      400,
      'invalid_cursor',
    );
  });
});

describe('rotate', () => {
  it('answers 201 with the new key, Location of the new key, and the old key revoked', async () => {
    const { sub, workspaceId } = await member();
    const created = await createVia(sub, workspaceId);
    const oldId = (created.body.metadata as { id: string }).id;
    const reply = record(await api.rotate(oldId, { caller: freshCaller(sub) }));
    secrets.add(reply.body.api_key as string);
    expect(reply.status).toBe(201);
    expect(reply.headers['cache-control']).toBe('no-store');
    const metadata = reply.body.metadata as { id: string; rotated_from: string };
    expect(reply.headers.location).toBe(`/v1/mcp/api-keys/${metadata.id}`);
    expect(metadata.rotated_from).toBe(oldId);
    expect(reply.body.revoked_key).toMatchObject({ id: oldId, status: 'revoked', replaced_by: metadata.id });
    expect(reply.body.api_key).not.toBe(created.body.api_key);
  });

  it('accepts an empty body or {} and refuses anything else', async () => {
    const { sub, workspaceId } = await member();
    const id = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    problem(
      record(await api.rotate(id, { caller: freshCaller(sub), body: { name: 'new' } })),
      400,
      'validation_failed',
    );
    const ok = await api.rotate(id, { caller: freshCaller(sub), body: {} });
    secrets.add(ok.body.api_key as string);
    expect(ok.status).toBe(201);
  });

  it('answers 409 key_revoked, key_expired and conflict', async () => {
    const { sub, workspaceId } = await member();
    const revokedId = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    await api.revoke(revokedId, { caller: { sub } });
    problem(record(await api.rotate(revokedId, { caller: freshCaller(sub) })), 409, 'key_revoked');

    const past = manualClock(new Date(Date.now() - 3 * 86_400_000));
    const rt = api.runtime;
    const expired = await createKey(
      { ...rt.service, now: past.now },
      { userId: sub, name: 'old', workspaceIds: [workspaceId], scopes: ['svc.forms.read'], expiresInDays: 1 },
    );
    secrets.add(expired.apiKey);
    problem(record(await api.rotate(expired.metadata.id, { caller: freshCaller(sub) })), 409, 'key_expired');

    const rotatedTwice = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    const first = record(await api.rotate(rotatedTwice, { caller: freshCaller(sub) }));
    secrets.add(first.body.api_key as string | undefined);
    const second = record(await api.rotate(rotatedTwice, { caller: freshCaller(sub) }));
    problem(second, 409, 'key_revoked');
    expect(second.body.replaced_by).toBe((first.body.metadata as { id: string }).id);
  });

  it('answers 409 conflict when another request revokes the key inside the rotation', async () => {
    const { sub, workspaceId } = await member();
    const raced = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    const rt = api.runtime;
    // A store whose rotation loses to a revocation that lands between its read and its write.
    const keys = Object.create(rt.service.keys) as typeof rt.service.keys;
    keys.rotate = async (old, next, now, events) => {
      await rt.service.keys.revoke(old, now, []);
      return rt.service.keys.rotate(old, next, now, events);
    };
    const racing = loadApi({ ...rt, service: { ...rt.service, keys } });
    problem(record(await racing.rotate(raced, { caller: freshCaller(sub) })), 409, 'conflict');
    problem(record(await api.rotate(raced, { caller: freshCaller(sub) })), 409, 'key_revoked');
  });
});

describe('revoke', () => {
  it('answers 200 with revoked metadata, idempotently', async () => {
    const { sub, workspaceId } = await member();
    const id = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    const first = record(await api.revoke(id, { caller: { sub } }));
    expect(first.status).toBe(200);
    expect(first.headers['x-request-id']).toMatch(/.+/);
    expect(first.body.metadata).toMatchObject({ id, status: 'revoked', revoked_at: expect.any(String) });
    const second = record(await api.revoke(id, { caller: { sub } }));
    expect(second.status).toBe(200);
    expect((second.body.metadata as { revoked_at: string }).revoked_at).toBe(
      (first.body.metadata as { revoked_at: string }).revoked_at,
    );
  });
});

describe('the shared matrix, on every endpoint', () => {
  type Endpoint = (keyId: string, opts: CallOptions) => Promise<Reply>;
  const endpoints: [string, Endpoint][] = [
    [
      'create',
      (_id, o) =>
        api.create({ ...o, body: { name: 'k', workspace_ids: [randomUUID()], scopes: ['svc.forms.read'] } }),
    ],
    ['list', (_id, o) => api.list(o)],
    ['rotate', (id, o) => api.rotate(id, o)],
    ['revoke', (id, o) => api.revoke(id, o)],
    ['events', (id, o) => api.events(id, o)],
  ];

  it.each(endpoints)('%s: no sub claim answers 401 and changes nothing', async (_name, call) => {
    const { sub, workspaceId } = await member();
    const id = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    const before = await tables.scanKeys();
    const { sub: _drop, ...anonymous } = freshCaller(sub);
    problem(record(await call(id, { caller: anonymous })), 401, 'unauthorized');
    expect(await tables.scanKeys()).toEqual(before);
  });

  it.each(endpoints.filter(([n]) => ['rotate', 'revoke', 'events'].includes(n)))(
    '%s: another user’s key answers 404, never 403, and changes nothing',
    async (_name, call) => {
      const owner = await member();
      const id = ((await createVia(owner.sub, owner.workspaceId)).body.metadata as { id: string }).id;
      const intruder = await member();
      const before = await tables.scanKeys();
      problem(record(await call(id, { caller: intruder.caller })), 404, 'not_found');
      problem(record(await call(randomUUID(), { caller: intruder.caller })), 404, 'not_found');
      expect(await tables.scanKeys()).toEqual(before);
    },
  );

  it('list: another user’s keys never appear', async () => {
    const owner = await member();
    await createVia(owner.sub, owner.workspaceId);
    const intruder = await member();
    const reply = await api.list({ caller: intruder.caller });
    expect(reply.body.data).toEqual([]);
  });

  it.each(endpoints.filter(([n]) => ['rotate', 'revoke', 'events'].includes(n)))(
    '%s: a malformed key id answers 400 validation_failed',
    async (_name, call) => {
      const { caller } = await member();
      for (const bad of ['not-a-uuid', '123', `${randomUUID()}x`]) {
        const reply = record(await call(bad, { caller }));
        problem(reply, 400, 'validation_failed');
        expect(reply.body.errors).toEqual([{ path: 'key_id', message: 'must be a UUID' }]);
      }
    },
  );
});

describe('events', () => {
  it('shows the lineage’s history newest first, pages it, and never shows a key or digest', async () => {
    const { sub, workspaceId } = await member();
    const first = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    const rotated = record(await api.rotate(first, { caller: freshCaller(sub) }));
    secrets.add(rotated.body.api_key as string | undefined);
    const second = (rotated.body.metadata as { id: string }).id;
    record(await api.revoke(second, { caller: { sub } }));

    const all = record(await api.events(first, { caller: { sub } }));
    expect(all.status).toBe(200);
    expect(all.headers['cache-control']).toBe('no-store');
    expect(all.body.next_cursor).toBeNull();
    const data = all.body.data as { type: string; key_id: string; occurred_at: string; actor: unknown }[];
    expect(data.map((e) => `${e.type} ${e.key_id === first ? 'first' : 'second'}`)).toEqual(
      expect.arrayContaining([
        'key.revoked second',
        'key.created second',
        'key.rotated first',
        'key.created first',
      ]),
    );
    expect(data).toHaveLength(4);
    expect(data[0]?.type).toBe('key.revoked');
    expect(data.at(-1)?.type).toBe('key.created');
    const times = data.map((e) => e.occurred_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(data.every((e) => JSON.stringify(e.actor) === JSON.stringify({ type: 'user', id: sub }))).toBe(
      true,
    );
    // The same history from the other key of the lineage.
    expect((await api.events(second, { caller: { sub } })).body.data).toEqual(data);

    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '3', ...(cursor && { cursor }) };
      const page = record(await api.events(first, { caller: { sub }, query }));
      expect(page.status).toBe(200);
      seen.push(...(page.body.data as unknown[]));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(data);
  });

  it('refuses a tampered cursor, another user’s and another lineage’s with invalid_cursor', async () => {
    const a = await member();
    const one = ((await createVia(a.sub, a.workspaceId)).body.metadata as { id: string }).id;
    await api.revoke(one, { caller: { sub: a.sub } });
    const other = ((await createVia(a.sub, a.workspaceId)).body.metadata as { id: string }).id;
    const page = await api.events(one, { caller: { sub: a.sub }, query: { limit: '1' } });
    const cursor = page.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    problem(
      record(await api.events(other, { caller: { sub: a.sub }, query: { cursor } })),
      400,
      'invalid_cursor',
    );
    problem(
      record(await api.events(one, { caller: { sub: a.sub }, query: { cursor: `x${cursor.slice(1)}` } })),
      400,
      'invalid_cursor',
    );
    const list = await api.list({ caller: { sub: a.sub }, query: { limit: '1' } });
    const listCursor = list.body.next_cursor as string;
    problem(
      record(await api.events(one, { caller: { sub: a.sub }, query: { cursor: listCursor } })),
      400,
      'invalid_cursor',
    );
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ status: 'active' }, 'query'],
  ])('refuses query %j with validation_failed', async (query, path) => {
    const { sub, workspaceId } = await member();
    const id = ((await createVia(sub, workspaceId)).body.metadata as { id: string }).id;
    const reply = record(await api.events(id, { caller: { sub }, query }));
    problem(reply, 400, 'validation_failed');
    expect((reply.body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
  });
});

describe('dependency failures and unexpected errors', () => {
  const inject = (error: Error) => {
    const { doc } = tables;
    doc.middlewareStack.add(
      () => async () => {
        throw error;
      },
      { step: 'initialize', name: 'faultInjection' },
    );
    return () => doc.middlewareStack.remove('faultInjection');
  };

  it('answers 503 dependency_unavailable with Retry-After when DynamoDB throttles', async () => {
    const { sub } = await member();
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ProvisionedThroughputExceededException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    const remove = inject(throttled);
    try {
      const reply = record(await api.list({ caller: { sub } }));
      problem(reply, 503, 'dependency_unavailable');
      expect(reply.headers['retry-after']).toBe('2');
    } finally {
      remove();
    }
  });

  it('answers 500 internal_error without the cause in the body', async () => {
    const { sub } = await member();
    const remove = inject(new Error('secret internal detail'));
    try {
      const reply = record(await api.list({ caller: { sub } }));
      problem(reply, 500, 'internal_error');
      expect(reply.raw).not.toContain('secret internal detail');
    } finally {
      remove();
    }
  });
});

// Properties of the whole file's run, checked once every test above has run, in any order.
afterAll(() => {
  const seen = new Set(replies.map((r) => r.body.code).filter(Boolean));
  // invalid_signature belongs to the GitHub secret scanning route (test/integration/leaks.test.ts),
  // the workspace codes to governance (test/integration/workspace-governance.test.ts and
  // workspace-policy.test.ts), the OAuth codes to the OAuth tests (test/e2e/oauth.test.ts).
  const elsewhere = [
    'invalid_signature',
    'workspace_admin_required',
    'workspace_policy_denied',
    'request_not_found',
    'not_rotatable',
  ];
  expect([...seen].sort(), 'every code of the error table was produced').toEqual(
    Object.keys(ERROR_CATALOG)
      .filter((code) => !elsewhere.includes(code))
      .sort(),
  );
  const bodies = replies.filter((r) => !('api_key' in r.body)).map((r) => r.raw);
  expect(secrets.size).toBeGreaterThan(10);
  expect(
    secrets.leaksIn(bodies.join('\n')),
    'no response outside create and rotate carries a key or digest',
  ).toEqual([]);
  const logs = output.text();
  expect(logs).toContain('request completed');
  expect(secrets.leaksIn(logs), 'no log line carries a key or digest').toEqual([]);
  expect(logs, 'no log line carries a body').not.toContain('Claude Desktop');
});
