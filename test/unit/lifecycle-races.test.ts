import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { createKey, listKeys, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import type { KeyStore } from '#lib/keys/port';
import { DAY_MS } from '#lib/limits';
import { DEFAULT_POLICY, type WorkspacePolicy } from '#lib/workspace-policy/rules';
import { memoryService } from '#test/support/lifecycle';

/**
 * The lifecycle against the storage port in memory: workspace policies at create and rotate, and
 * what a rotation or a revocation answers when the key changes under it (a cut-off, an expiry, a
 * deletion between the read and the write).
 */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const error = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

function setup(workspaceCount = 1) {
  const world = memoryService({ maxExpiryDays: 90 });
  const policies = new Map<string, WorkspacePolicy>();
  world.service.policies = { policiesFor: async () => policies };
  const userId = `user-${randomUUID()}`;
  const workspaceIds = Array.from({ length: workspaceCount }, () => randomUUID());
  for (const id of workspaceIds) world.memberships.set(userId, id, 'editor');
  const create = (expiresInDays?: number) =>
    createKey(world.service, {
      userId,
      name: 'laptop',
      workspaceIds,
      scopes: ['svc.forms.read'],
      expiresInDays,
    });
  /** Changes the stored key as a concurrent request would. */
  const change = (id: string, edit: (record: KeyRecord) => KeyRecord | undefined) => {
    const record = world.keys.keys.get(id);
    if (!record) throw new Error(`no key ${id}`);
    const next = edit(record);
    if (next) world.keys.keys.set(id, next);
    else world.keys.keys.delete(id);
  };
  /** The store, with `before` run ahead of each rotate or revoke it carries out. */
  const racing = (before: (record: KeyRecord) => void) => {
    const keys = world.keys;
    const store: KeyStore = Object.create(keys);
    store.rotate = async (old, ...rest) => {
      before(old);
      return keys.rotate(old, ...rest);
    };
    store.revoke = async (record, ...rest) => {
      before(record);
      return keys.revoke(record, ...rest);
    };
    world.service.keys = store;
  };
  return { ...world, policies, userId, workspaceIds, create, change, racing };
}

const cutOff = (record: KeyRecord): KeyRecord => ({
  ...record,
  workspace_ids: record.workspace_ids.slice(1),
  removed_workspace_ids: [...(record.removed_workspace_ids ?? []), ...record.workspace_ids.slice(0, 1)],
});

describe('creating under the deployment’s rules', () => {
  it('accepts an expiry of exactly the deployment maximum', async () => {
    const { create } = setup();
    const { metadata } = await create(90);
    expect(Date.parse(metadata.expires_at) - Date.parse(metadata.created_at)).toBe(90 * DAY_MS);
  });

  it('names the scopes a role does not allow', async () => {
    const world = memoryService();
    const workspaceId = randomUUID();
    world.memberships.set('alice', workspaceId, 'viewer');
    const error = await refusal(
      createKey(world.service, {
        userId: 'alice',
        name: 'k',
        workspaceIds: [workspaceId],
        scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
      }),
    );
    expect(error.code).toBe('workspace_access_denied');
    expect(error.errors).toEqual([
      {
        input: 'workspaceIds',
        index: 0,
        message: `role viewer in workspace ${workspaceId} does not allow svc.forms.write, svc.forms.generate`,
      },
    ]);
  });
});

describe('workspace policies', () => {
  it('refuse to create a key with scopes a workspace does not allow', async () => {
    const { create, policies, workspaceIds } = setup();
    policies.set(workspaceIds[0] ?? '', { ...DEFAULT_POLICY, allowed_scopes: ['svc.forms.write'] });
    expect((await refusal(create())).code).toBe('workspace_policy_denied');
  });

  it('refuse to rotate a key whose scopes a workspace no longer allows', async () => {
    const { create, policies, workspaceIds, service, userId } = setup();
    const { metadata } = await create();
    policies.set(workspaceIds[0] ?? '', { ...DEFAULT_POLICY, mcp_access: 'disabled' });
    expect((await refusal(rotateKey(service, userId, metadata.id))).code).toBe('workspace_policy_denied');
  });

  it('cap a rotated key’s lifetime at the workspace maximum', async () => {
    const { create, policies, workspaceIds, service, userId, clock } = setup();
    const { metadata } = await create(60);
    policies.set(workspaceIds[0] ?? '', { ...DEFAULT_POLICY, max_expiry_days: 10 });
    const rotated = await rotateKey(service, userId, metadata.id);
    expect(rotated.metadata.expires_at).toBe(new Date(clock.now().getTime() + 10 * DAY_MS).toISOString());
  });
});

describe('a rotation', () => {
  it('keeps the workspaces the key was cut off from', async () => {
    const { create, change, service, userId } = setup(2);
    const { metadata } = await create();
    change(metadata.id, cutOff);
    const rotated = await rotateKey(service, userId, metadata.id);
    expect(rotated.metadata.workspace_ids).toHaveLength(1);
    expect(rotated.metadata.removed_workspace_ids).toEqual(metadata.workspace_ids.slice(0, 1));
  });

  it('racing a cut-off rotates the key as it is now, so the new key never regains the workspace', async () => {
    const { create, change, racing, service, userId, workspaceIds } = setup(2);
    const { metadata } = await create();
    let raced = false;
    racing((old) => {
      if (raced) return;
      raced = true;
      change(old.id, cutOff);
    });
    const rotated = await rotateKey(service, userId, metadata.id);
    expect(rotated.metadata.workspace_ids).toEqual(workspaceIds.slice(1));
    expect(rotated.revokedKey.id).toBe(metadata.id);
  });

  it('gives up with a conflict after three attempts if the key keeps changing', async () => {
    const { create, change, racing, service, userId, keys } = setup(5);
    const { metadata } = await create();
    racing((old) => change(old.id, cutOff));
    const error = await refusal(rotateKey(service, userId, metadata.id));
    expect(error.code).toBe('conflict');
    expect(error.detail).toBe('The key changed during the rotation; retry the request.');
    expect(keys.calls.filter((c) => c === 'rotate')).toHaveLength(3);
  });

  it('of a key that expires meanwhile answers key_expired', async () => {
    const { create, change, racing, service, userId } = setup();
    const { metadata } = await create();
    racing((old) => change(old.id, (r) => ({ ...r, expires_at: '2000-01-01T00:00:00.000Z' })));
    const error = await refusal(rotateKey(service, userId, metadata.id));
    expect(error.code).toBe('key_expired');
    expect(error.detail).toMatch(/expired/);
  });

  it('of a key deleted meanwhile answers not_found', async () => {
    const { create, change, racing, service, userId } = setup();
    const { metadata } = await create();
    racing((old) => change(old.id, () => undefined));
    expect((await refusal(rotateKey(service, userId, metadata.id))).code).toBe('not_found');
  });
});

describe('a revocation', () => {
  it('of a key deleted meanwhile answers not_found', async () => {
    const { create, change, racing, service, userId } = setup();
    const { metadata } = await create();
    racing((record) => change(record.id, () => undefined));
    expect((await refusal(revokeKey(service, userId, metadata.id))).code).toBe('not_found');
  });
});

describe('the key list', () => {
  it('has no next cursor when every key fits on the page', async () => {
    const { create, service, userId } = setup();
    await create();
    const page = await listKeys(service, { userId, limit: 10 });
    expect(page.data).toHaveLength(1);
    expect(page.next_cursor).toBeNull();
    expect((await listKeys(service, { userId: 'nobody', limit: 10 })).next_cursor).toBeNull();
  });
});
