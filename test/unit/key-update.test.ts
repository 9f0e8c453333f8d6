import { describe, expect, it } from 'vitest';
import type { ToolCatalogue } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import { admittedTools } from '#lib/keys/admission';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import type { Limits } from '#lib/keys/limits';
import { updateKey } from '#lib/keys/update';
import { DAY_MS } from '#lib/limits';
import { memoryCreator } from '#test/support/lifecycle';

/**
 * PATCH of a key or grant (contract §19; lib/keys/update.ts) over the store in memory: it narrows
 * the tools and lowers or adds limits, refuses anything wider naming it, answers 409 for a revoked
 * or expired credential, writes nothing when nothing changes, writes `key.updated` with before and
 * after, and reads again when a concurrent change wins.
 */

const refusal = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

async function keyOf(options: { tools?: string[]; limits?: Limits; write?: boolean } = {}) {
  const world = memoryCreator();
  world.memberships.set(world.userId, world.workspaceId, 'editor');
  const issued = await createKey(world.service, {
    userId: world.userId,
    name: 'k',
    workspaceIds: [world.workspaceId],
    scopes: options.write ? ['svc.forms.write'] : ['svc.forms.read'],
    tools: options.tools,
    limits: options.limits,
  });
  const id = issued.metadata.id;
  const patch = (input: Parameters<typeof updateKey>[3]) => updateKey(world.service, world.userId, id, input);
  const updates = () => world.keys.events.filter((e) => e.type === 'key.updated');
  return { ...world, id, patch, updates };
}

describe('narrowing a credential’s tools', () => {
  it('to a subset of what its scopes allow, in catalogue order, with key.updated before and after', async () => {
    const k = await keyOf();
    const { tools } = await k.patch({ tools: ['read_draft', 'list_forms'] });
    expect(tools).toEqual(['list_forms', 'read_draft']);
    expect(k.keys.keys.get(k.id)?.tools).toEqual(['list_forms', 'read_draft']);
    expect(k.updates()).toEqual([
      expect.objectContaining({
        type: 'key.updated',
        key_id: k.id,
        actor: { type: 'user', id: k.userId },
        details: { tools_before: null, tools_after: ['list_forms', 'read_draft'] },
      }),
    ]);
    // Narrowed again, within its own list now; and to no tool at all.
    expect((await k.patch({ tools: ['read_draft'] })).tools).toEqual(['read_draft']);
    expect(k.updates()[1]?.details).toEqual({
      tools_before: ['list_forms', 'read_draft'],
      tools_after: ['read_draft'],
    });
    expect((await k.patch({ tools: [] })).tools).toEqual([]);
  });

  it('a tool outside its own list is 400 naming it and what it has; nothing written', async () => {
    const k = await keyOf({ tools: ['list_forms', 'compile_dsl'] });
    const err = await refusal(k.patch({ tools: ['list_forms', 'read_draft'] }));
    expect([err.code, err.status, err.detail]).toEqual([
      'validation_failed',
      400,
      'The request failed validation.',
    ]);
    expect(err.errors).toEqual([
      {
        input: 'tools',
        index: 1,
        message: 'read_draft is not among its tools (list_forms, compile_dsl): a PATCH only narrows',
      },
    ]);
    expect(k.updates()).toEqual([]);
    expect(k.keys.calls).not.toContain('narrow');
  });

  it('a tool the catalogue lacks or its scopes do not reach is refused as create refuses it', async () => {
    const k = await keyOf();
    const err = await refusal(k.patch({ tools: ['list_forms', 'create_form', 'erase'] }));
    expect(err.errors).toEqual([
      {
        input: 'tools',
        index: 1,
        message: 'create_form needs svc.forms.write, which the credential does not hold',
      },
      { input: 'tools', index: 2, message: 'erase is not a tool of this MCP server' },
    ]);
    // Of every tool its scopes allow, the first wider one is named.
    const own = await refusal((await keyOf({ tools: ['list_forms'] })).patch({ tools: ['read_draft'] }));
    expect(own.errors).toEqual([expect.objectContaining({ index: 0 })]);
  });

  it('the same tools again, in another order, write nothing and answer its metadata', async () => {
    const k = await keyOf({ tools: ['list_forms', 'read_draft'] });
    const events = k.keys.events.length;
    k.keys.calls.length = 0;
    const metadata = await k.patch({ tools: ['read_draft', 'list_forms'] });
    expect(metadata).toMatchObject({ id: k.id, tools: ['list_forms', 'read_draft'], status: 'active' });
    expect(k.keys.calls).toEqual(['get']);
    expect(k.keys.events).toHaveLength(events);
    expect(await k.patch({})).toMatchObject({ id: k.id });
    expect(k.keys.calls).toEqual(['get', 'get']);
  });
});

describe('limits', () => {
  it('a limit added where there was none, and one lowered; the other kept', async () => {
    const k = await keyOf({ limits: { per_day: 1000 } });
    const added = await k.patch({ limits: { per_minute: 10 } });
    expect(added.limits).toEqual({ per_minute: 10, per_day: 1000 });
    expect(k.updates()[0]?.details).toEqual({
      limits_before: { per_day: 1000 },
      limits_after: { per_minute: 10, per_day: 1000 },
    });
    const lowered = await k.patch({ limits: { per_day: 500 } });
    expect(lowered.limits).toEqual({ per_minute: 10, per_day: 500 });
  });

  it('a credential without limits: limits_before is null', async () => {
    const k = await keyOf();
    await k.patch({ limits: { per_day: 5 } });
    expect(k.updates()[0]?.details).toEqual({ limits_before: null, limits_after: { per_day: 5 } });
  });

  it('raising a limit is 400 naming each, at its limit now; the same limit writes nothing', async () => {
    const k = await keyOf({ limits: { per_minute: 10, per_day: 1000 } });
    const err = await refusal(k.patch({ limits: { per_minute: 11, per_day: 1001 } }));
    expect([err.code, err.status, err.detail]).toEqual([
      'validation_failed',
      400,
      'The request failed validation.',
    ]);
    expect(err.errors).toEqual([
      { input: 'limits.per_minute', message: 'must be at most 10, its limit now: a PATCH only lowers one' },
      { input: 'limits.per_day', message: 'must be at most 1000, its limit now: a PATCH only lowers one' },
    ]);
    const one = await refusal(k.patch({ limits: { per_minute: 9, per_day: 1001 } }));
    expect(one.errors).toEqual([expect.objectContaining({ input: 'limits.per_day' })]);
    expect(await k.patch({ limits: { per_minute: 10 } })).toMatchObject({
      limits: { per_minute: 10, per_day: 1000 },
    });
    expect(await k.patch({ limits: {} })).toMatchObject({ limits: { per_minute: 10, per_day: 1000 } });
    expect(k.updates()).toEqual([]);
  });

  it('tools and limits in one PATCH: one event with both', async () => {
    const k = await keyOf();
    await k.patch({ tools: ['list_forms'], limits: { per_minute: 3 } });
    expect(k.updates().map((e) => e.details)).toEqual([
      {
        tools_before: null,
        tools_after: ['list_forms'],
        limits_before: null,
        limits_after: { per_minute: 3 },
      },
    ]);
  });
});

describe('what cannot be narrowed', () => {
  it('a revoked credential is 409 key_revoked, an expired one 409 key_expired, another’s 404', async () => {
    const revoked = await keyOf();
    await revokeKey(revoked.service, revoked.userId, revoked.id);
    const r = await refusal(revoked.patch({ tools: [] }));
    expect([r.code, r.status, r.detail]).toEqual([
      'key_revoked',
      409,
      'The key is revoked: there is nothing to narrow.',
    ]);
    const expired = await keyOf();
    expired.clock.advance(91 * DAY_MS);
    const e = await refusal(expired.patch({ tools: [] }));
    expect([e.code, e.status, e.detail]).toEqual([
      'key_expired',
      409,
      'The key has expired: there is nothing to narrow.',
    ]);
    const other = await refusal(updateKey(expired.service, 'someone-else', expired.id, { tools: [] }));
    expect([other.code, other.status]).toEqual(['not_found', 404]);
  });
});

describe('a concurrent change', () => {
  it('is read again: a narrowing that loses twice lands on its third attempt', async () => {
    const k = await keyOf({ write: true });
    const narrow = k.keys.narrow.bind(k.keys);
    let losses = 2;
    k.keys.narrow = async (...args) => (losses-- > 0 ? { kind: 'changed' } : narrow(...args));
    expect((await k.patch({ tools: ['create_form'] })).tools).toEqual(['create_form']);
    expect(k.keys.calls.filter((c) => c === 'get').length).toBeGreaterThanOrEqual(3);
  });

  it('that keeps winning is 409 conflict after three attempts; one that deleted it is 404', async () => {
    const k = await keyOf();
    k.keys.narrow = async () => ({ kind: 'changed' });
    k.keys.calls.length = 0;
    const err = await refusal(k.patch({ tools: ['list_forms'] }));
    expect([err.code, err.status]).toEqual(['conflict', 409]);
    expect(err.detail).toMatch(/concurrent.*retry/);
    expect(k.keys.calls).toEqual(['get', 'get', 'get']);
    k.keys.narrow = async () => ({ kind: 'not_found' });
    const gone = await refusal(k.patch({ tools: ['list_forms'] }));
    expect([gone.code, gone.status]).toEqual(['not_found', 404]);
  });
});

describe('a credential’s own tools at create', () => {
  const catalogue: ToolCatalogue = [
    { name: 'b_tool', scope: 'svc.forms.read' },
    { name: 'a_tool', scope: 'svc.forms.read' },
  ];

  it('none given is every tool its scopes allow; a list is kept in the catalogue’s order', () => {
    expect(admittedTools({ tools: catalogue }, undefined, ['svc.forms.read'])).toBeUndefined();
    expect(admittedTools({ tools: catalogue }, null, ['svc.forms.read'])).toBeUndefined();
    expect(admittedTools({ tools: catalogue }, ['a_tool', 'b_tool'], ['svc.forms.read'])).toEqual([
      'b_tool',
      'a_tool',
    ]);
    expect(admittedTools({}, [], ['svc.forms.read'])).toEqual([]);
  });

  it('each tool refused is named with its index, against the deployment’s catalogue', () => {
    const err = (() => {
      try {
        admittedTools({ tools: catalogue }, ['a_tool', 'list_forms'], ['svc.forms.read']);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect([err?.code, err?.status, err?.detail]).toEqual([
      'validation_failed',
      400,
      'The request failed validation.',
    ]);
    expect(err?.errors).toEqual([
      { input: 'tools', index: 1, message: 'list_forms is not a tool of this MCP server' },
    ]);
  });
});

describe('create’s refusal of access the creator lacks', () => {
  it('says what the key would grant', async () => {
    const world = memoryCreator();
    const err = await refusal(
      createKey(world.service, {
        userId: world.userId,
        name: 'k',
        workspaceIds: ['not-theirs'],
        scopes: ['svc.forms.read'],
      }),
    );
    expect([err.code, err.detail]).toEqual([
      'workspace_access_denied',
      'You lack the access this key would grant in some workspaces.',
    ]);
  });
});
