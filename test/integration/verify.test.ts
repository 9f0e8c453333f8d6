import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFERENCE_TOOLS, toolsOfScopes } from '#lib/access/tools';
import { assembleKey, generateKey, secretField } from '#lib/keys/format';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { countCommands } from '#test/support/count';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { issueKey } from '#test/support/fixtures';

const READ_TOOLS = toolsOfScopes(REFERENCE_TOOLS, ['svc.forms.read']);

let tables: TestTables;
let rt: Runtime;
let calls: ReturnType<typeof countCommands>;
const clock = manualClock();
const DAY = 86_400_000;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
  calls = countCommands(tables.doc);
});
afterAll(() => tables.drop());
// A runtime per test: the usage one test counted is never written during another's count of calls.
beforeEach(() => {
  rt = tables.runtime({ now: clock.now });
  calls.reset();
});

async function issue(
  role: 'viewer' | 'editor' = 'editor',
  scopes: ('svc.forms.read' | 'svc.forms.write' | 'svc.forms.generate')[] = [
    'svc.forms.read',
    'svc.forms.write',
    'svc.forms.generate',
  ],
  expiresInDays = 30,
) {
  const issued = await issueKey(tables, rt.service, { role, scopes, expiresInDays });
  calls.reset();
  return issued;
}

describe('verifyMcpKey outcomes', () => {
  it('valid: the creator, the key and the effective workspaces with role and scopes', async () => {
    const { apiKey, id, userId, workspaceId, metadata } = await issue();
    expect(await rt.verify(apiKey)).toEqual({
      outcome: 'valid',
      kind: 'api_key',
      user_id: userId,
      key_id: id,
      expires_at: metadata.expires_at,
      scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
      workspaces: [
        {
          id: workspaceId,
          role: 'editor',
          scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
          // The tools it may call there (contract §19): every tool its scopes allow.
          tools: REFERENCE_TOOLS.map((t) => t.name),
        },
      ],
      tools: REFERENCE_TOOLS.map((t) => t.name),
    });
  });

  it('malformed: 1,000 random and mutated strings cost zero DynamoDB calls', async () => {
    const { apiKey } = await issue();
    const garbage: unknown[] = [
      undefined,
      null,
      42,
      '',
      'Bearer',
      apiKey.slice(0, -1),
      `${apiKey}x`,
      apiKey.toUpperCase(),
    ];
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    while (garbage.length < 1000) {
      const body = Array.from({ length: 71 }, () => alphabet[Math.floor(Math.random() * 62)]).join('');
      garbage.push(`svc_mcp_v1_${body}`);
    }
    for (const raw of garbage) expect(await rt.verify(raw)).toEqual({ outcome: 'malformed' });
    expect(calls.total()).toBe(0);
  });

  it('not_found: an unknown id costs one read', async () => {
    expect(await rt.verify(generateKey().apiKey)).toEqual({ outcome: 'not_found' });
    expect(calls.snapshot()).toEqual({ GetItem: 1 });
  });

  it('not_found: a known id with another key’s secret answers exactly like an unknown id', async () => {
    const a = await issue();
    const b = await issue();
    const forged = assembleKey(a.id, secretField(b.apiKey));
    expect(await rt.verify(forged)).toEqual({ outcome: 'not_found' });
    expect(calls.snapshot()).toEqual({ GetItem: 1 });
  });

  it('revoked: refused on the very next call, with one read', async () => {
    const { apiKey, id, userId } = await issue();
    expect((await rt.verify(apiKey)).outcome).toBe('valid');
    await revokeKey(rt.service, userId, id);
    calls.reset();
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'revoked', key_id: id });
    // Warm: the key's state and the memberships in one request; beside the answer, the refusal's
    // usage is written at once (contract §18).
    await vi.waitFor(() => expect(calls.snapshot()).toEqual({ BatchGetItem: 1, PutItem: 1, UpdateItem: 1 }));
    calls.reset();
    // A revoked key is forgotten: it is read by id again, once.
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'revoked', key_id: id });
    expect(calls.snapshot()).toEqual({ GetItem: 1 });
  });

  it('revoked: a rotated key’s old value fails at once and the new one works', async () => {
    const { apiKey, id, userId } = await issue();
    const rotated = await rotateKey(rt.service, userId, id);
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'revoked', key_id: id });
    expect((await rt.verify(rotated.apiKey)).outcome).toBe('valid');
  });

  it('expired: refused once the expiry passes', async () => {
    const { apiKey, id, metadata } = await issue('editor', ['svc.forms.read'], 1);
    expect((await rt.verify(apiKey)).outcome).toBe('valid');
    clock.advance(DAY);
    expect(await rt.verify(apiKey)).toEqual({
      outcome: 'expired',
      key_id: id,
      expires_at: metadata.expires_at,
    });
  });

  it('no_access: removing the creator from the workspace drops it on the very next call', async () => {
    const { apiKey, id, userId, workspaceId } = await issue();
    expect((await rt.verify(apiKey)).outcome).toBe('valid');
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.membershipsTable, Key: { pk: userId, sk: workspaceId } }),
    );
    expect(await rt.verify(apiKey)).toEqual({ outcome: 'no_access', key_id: id });
  });

  it('drops only the workspace the creator left, keeping the others', async () => {
    const userId = `user-${randomUUID()}`;
    const [w1, w2] = [randomUUID(), randomUUID()];
    await tables.setRole(userId, w1, 'viewer');
    await tables.setRole(userId, w2, 'owner');
    const { apiKey } = await createKey(rt.service, {
      userId,
      name: 'k',
      workspaceIds: [w1, w2],
      scopes: ['svc.forms.read'],
    });
    await tables.doc.send(
      new DeleteCommand({ TableName: tables.membershipsTable, Key: { pk: userId, sk: w1 } }),
    );
    const result = await rt.verify(apiKey);
    expect(result.outcome === 'valid' && result.workspaces).toEqual([
      { id: w2, role: 'owner', scopes: ['svc.forms.read'], tools: READ_TOOLS },
    ]);
  });

  it('a downgrade from editor to viewer removes write and generate on the next call', async () => {
    const { apiKey, userId, workspaceId } = await issue('editor');
    await tables.setRole(userId, workspaceId, 'viewer');
    const result = await rt.verify(apiKey);
    expect(result).toMatchObject({ outcome: 'valid', scopes: ['svc.forms.read'] });
    expect(result.outcome === 'valid' && result.workspaces).toEqual([
      { id: workspaceId, role: 'viewer', scopes: ['svc.forms.read'], tools: READ_TOOLS },
    ]);
  });
});

describe('DynamoDB calls per verification', () => {
  it('valid: cold, a read by id then memberships; warm, one request; a last-use write and a usage write at most once a minute', async () => {
    const { apiKey, id } = await issue();
    const { verify } = rt;
    await verify(apiKey);
    expect(calls.snapshot()).toEqual({ GetItem: 1, BatchGetItem: 1, UpdateItem: 1 });
    calls.reset();
    clock.advance(30_000);
    await verify(apiKey);
    await verify(apiKey);
    expect(calls.snapshot()).toEqual({ BatchGetItem: 2 });
    const firstUse = (await rt.service.keys.get(id))?.last_used_at;
    calls.reset();
    clock.advance(30_000);
    await verify(apiKey);
    // The three calls counted so far are written a minute after the first, alongside the read: the
    // day's item, and its calls added to the key's item beside the last-use update.
    expect(calls.snapshot()).toEqual({ BatchGetItem: 1, UpdateItem: 2, PutItem: 1 });
    expect((await rt.service.keys.get(id))?.last_used_at).not.toBe(firstUse);
  });

  it('a failing last-use write never denies a valid key', async () => {
    const errors: unknown[] = [];
    const flaky = tables.runtime({ now: clock.now, onUseRecordError: (e) => errors.push(e) });
    const { apiKey } = await issue();
    const original = flaky.service.keys.recordUse.bind(flaky.service.keys);
    flaky.service.keys.recordUse = async () => {
      throw new Error('throttled');
    };
    try {
      expect((await flaky.verify(apiKey)).outcome).toBe('valid');
      expect(errors).toHaveLength(1);
    } finally {
      flaky.service.keys.recordUse = original;
    }
  });
});
