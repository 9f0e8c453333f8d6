import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyCreated, keyRevoked, keyRotated, userActor } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { KeyStore } from '#lib/keys/port';
import { DynamoKeyStore } from '#lib/store/keys-store';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { MemoryKeyStore } from '#test/support/memory-store';

/**
 * The storage port's contract: the in-memory store the lifecycle unit tests use and the DynamoDB
 * adapter must answer every call alike, or the unit tests prove nothing about the deployment.
 */
const NOW = new Date('2026-11-20T10:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

function record(userId: string, overrides: Partial<KeyRecord> = {}): KeyRecord {
  const id = randomUUID();
  return {
    id,
    user_id: userId,
    lineage_id: id,
    name: 'contract',
    workspace_ids: [randomUUID()],
    scopes: ['svc.forms.read'],
    digest: randomBytes(32).toString('hex'),
    pepper_version: 1,
    key_hint: 'svc_mcp_v1_…abcd',
    created_at: NOW.toISOString(),
    expires_at: at(60 * 24).toISOString(),
    ...overrides,
  };
}

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

const adapters: [string, () => KeyStore][] = [
  ['MemoryKeyStore', () => new MemoryKeyStore()],
  ['DynamoKeyStore', () => new DynamoKeyStore(tables.doc, tables.keysTable, 90)],
];

describe.each(adapters)('%s keeps the storage port contract', (_name, make) => {
  const insert = async (store: KeyStore, r: KeyRecord, maxSlots = 5) =>
    store.insert(r, maxSlots, [keyCreated(r, userActor(r.user_id), NOW)]);

  it('reads back what it inserted, and nothing for an unknown id', async () => {
    const store = make();
    const r = record(randomUUID());
    expect(await insert(store, r)).toEqual({ kind: 'inserted' });
    expect(await store.get(r.id)).toMatchObject({ id: r.id, digest: r.digest, user_id: r.user_id });
    expect(await store.get(randomUUID())).toBeUndefined();
  });

  it('refuses a lineage a slot beyond the cap, naming the slots held, and frees released ones', async () => {
    const store = make();
    const user = randomUUID();
    const first = record(user);
    await insert(store, first, 1);
    const refused = await insert(store, record(user), 1);
    expect(refused.kind).toBe('no_free_slot');
    if (refused.kind !== 'no_free_slot') throw new Error('unreachable');
    expect(Object.keys(refused.slots)).toEqual([first.lineage_id]);
    await store.releaseSlots(user, refused.slots);
    expect(await insert(store, record(user), 1)).toEqual({ kind: 'inserted' });
  });

  it('revokes once: then already_revoked with the stored record; an unknown key is not_found', async () => {
    const store = make();
    const r = record(randomUUID());
    await insert(store, r);
    const first = await store.revoke(r, at(1), [keyRevoked(r, userActor(r.user_id), at(1))]);
    expect(first.kind).toBe('revoked');
    const again = await store.revoke(r, at(2), [keyRevoked(r, userActor(r.user_id), at(2))]);
    expect(again).toMatchObject({ kind: 'already_revoked', current: { revoked_at: at(1).toISOString() } });
    expect((await store.revoke(record(r.user_id), at(3), [])).kind).toBe('not_found');
  });

  it('rotates an active key into its successor, and refuses a revoked or expired one', async () => {
    const store = make();
    const user = randomUUID();
    const old = record(user);
    await insert(store, old);
    const next = record(user, { lineage_id: old.lineage_id, rotated_from: old.id });
    const events = [
      keyRotated(old, next.id, userActor(user), at(1)),
      keyCreated(next, userActor(user), at(1)),
    ];
    const rotated = await store.rotate(old, next, at(1), events);
    expect(rotated).toMatchObject({ kind: 'rotated', revoked: { id: old.id, replaced_by: next.id } });
    expect(await store.get(next.id)).toMatchObject({ id: next.id, rotated_from: old.id });
    const late = record(user, { lineage_id: old.lineage_id });
    expect((await store.rotate(old, late, at(2), [])).kind).toBe('already_revoked');

    const expiring = record(user, { expires_at: at(5).toISOString() });
    await insert(store, expiring);
    const successor = record(user, { lineage_id: expiring.lineage_id });
    expect((await store.rotate(expiring, successor, at(10), [])).kind).toBe('expired');
  });

  it('records a use at most once per interval', async () => {
    const store = make();
    const r = record(randomUUID());
    await insert(store, r);
    expect(await store.recordUse(r.id, at(1))).toBe(true);
    expect(await store.recordUse(r.id, at(1.5))).toBe(false);
    expect(await store.recordUse(r.id, at(3))).toBe(true);
  });

  it('lists a user’s keys newest first, page by page, and by status', async () => {
    const store = make();
    const user = randomUUID();
    const made = [0, 1, 2].map((i) => record(user, { created_at: at(i).toISOString() }));
    for (const r of made) await insert(store, r);
    const revoked = made[1] as KeyRecord;
    await store.revoke(revoked, at(5), []);
    const first = await store.listByUser(user, { limit: 2, now: at(6) });
    expect(first.items.map((r) => r.id)).toEqual([made[2]?.id, made[1]?.id]);
    expect(first.hasMore).toBe(true);
    const last = first.items.at(-1) as KeyRecord;
    const second = await store.listByUser(user, { limit: 2, now: at(6), after: last });
    expect(second.items.map((r) => r.id)).toEqual([made[0]?.id]);
    expect(second.hasMore).toBe(false);
    const onlyRevoked = await store.listByUser(user, { limit: 10, now: at(6), status: 'revoked' });
    expect(onlyRevoked.items.map((r) => r.id)).toEqual([revoked.id]);
  });

  it('lists a lineage’s events newest first, across a rotation', async () => {
    const store = make();
    const user = randomUUID();
    const old = record(user);
    await insert(store, old);
    const next = record(user, { lineage_id: old.lineage_id, rotated_from: old.id });
    await store.rotate(old, next, at(1), [
      keyRotated(old, next.id, userActor(user), at(1)),
      keyCreated(next, userActor(user), at(1)),
    ]);
    const page = await store.listLineageEvents(old.lineage_id, { limit: 10 });
    expect(page.items.map((e) => e.type).sort()).toEqual(['key.created', 'key.created', 'key.rotated']);
    expect(page.items.at(-1)?.occurred_at).toBe(NOW.toISOString());
    expect(page.hasMore).toBe(false);
  });
});
