import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { createKey, listKeys, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import { keyStatus } from '#lib/keys/model';
import type { Runtime } from '#lib/runtime';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { scale } from '#test/support/soak';

/** Interleaved create/rotate/revoke on one user, then the invariants that must hold. */
const OPERATIONS = scale(200, 2000);
const CONCURRENCY = 16;
const CAP = 8;
let tables: TestTables;
let rt: Runtime;

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ settings: { maxActiveKeys: CAP } });
});
afterAll(() => tables.drop());

describe(`a storm of ${OPERATIONS} operations, ${CONCURRENCY} at a time, on one user`, () => {
  it('keeps every invariant', async () => {
    const userId = `storm-${randomUUID()}`;
    const ws = randomUUID();
    await tables.setRole(userId, ws, 'editor');
    const issued = new Map<string, string>(); // key id -> full key
    const outcomes = new Map<string, number>();
    let maxActiveSeen = 0;
    let done = false;

    // Watches the active count while the storm runs.
    const watcher = (async () => {
      while (!done) {
        const items = await tables.scanKeys();
        const active = items.filter(
          (i) => i.sk === 'KEY' && i.user_id === userId && keyStatus(i as never, new Date()) === 'active',
        );
        maxActiveSeen = Math.max(maxActiveSeen, active.length);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    let next = 0;
    const known = () => [...issued.keys()];
    const pick = () => known()[Math.floor(Math.random() * known().length)];
    const one = async () => {
      const roll = Math.random();
      try {
        if (roll < 0.4 || issued.size === 0) {
          const k = await createKey(rt.service, {
            userId,
            name: 'storm',
            workspaceIds: [ws],
            scopes: ['svc.forms.read'],
          });
          issued.set(k.metadata.id, k.apiKey);
          return 'create';
        }
        const id = pick() as string;
        if (roll < 0.75) {
          const r = await rotateKey(rt.service, userId, id);
          issued.set(r.metadata.id, r.apiKey);
          return 'rotate';
        }
        await revokeKey(rt.service, userId, id);
        return 'revoke';
      } catch (err) {
        if (err instanceof AppError) return err.code;
        throw err;
      }
    };
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < OPERATIONS) {
          const outcome = await one();
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }
      }),
    );
    done = true;
    await watcher;

    // Only expected outcomes: successes and the documented refusals.
    for (const outcome of outcomes.keys()) {
      expect(['create', 'rotate', 'revoke', 'key_limit_reached', 'conflict', 'key_revoked']).toContain(
        outcome,
      );
    }
    expect(outcomes.get('create') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('rotate') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('revoke') ?? 0).toBeGreaterThan(0);

    const items = (await tables.scanKeys()).filter((i) => i.sk === 'KEY' && i.user_id === userId);
    // Every issued key was stored, with its digest.
    expect(items.length).toBe(issued.size);
    for (const item of items) expect(item.digest).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    // The cap was never exceeded, during or after.
    const now = new Date();
    const active = items.filter((i) => keyStatus(i as never, now) === 'active');
    expect(active.length).toBeLessThanOrEqual(CAP);
    expect(maxActiveSeen).toBeLessThanOrEqual(CAP);
    // Every lineage has at most one active key.
    const byLineage = new Map<string, number>();
    for (const item of active)
      byLineage.set(item.lineage_id as string, (byLineage.get(item.lineage_id as string) ?? 0) + 1);
    for (const count of byLineage.values()) expect(count).toBe(1);
    // Every revoked key fails verification; every active one verifies.
    for (const item of items) {
      const result = await rt.verify(issued.get(item.id as string));
      expect(result.outcome, `${item.id} ${item.revoked_at ? 'revoked' : 'active'}`).toBe(
        item.revoked_at ? 'revoked' : 'valid',
      );
    }
    // The list agrees with the table.
    const listed = await listKeys(rt.service, { userId, limit: 100, status: 'active' });
    expect(listed.data.map((m) => m.id).sort()).toEqual(active.map((i) => i.id as string).sort());
  }, 120_000);
});
