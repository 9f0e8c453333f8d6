import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import type { KeyEvent } from '#lib/events/model';
import { listKeyEvents } from '#lib/keys/history';
import { createKey, revokeKey, rotateKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { fromEventItem } from '#lib/store/items';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { tamperedCursor } from '#test/support/fixtures';

/**
 * Audit events against DynamoDB Local: each change writes exactly its events in its own
 * transaction, a change that fails writes none, and a lineage's history is one query.
 */
const DAY = 86_400_000;
let tables: TestTables;
const clock = manualClock();
let rt: Runtime;
const FAULT = 'events-fault';

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime({ now: clock.now });
});
afterEach(() => {
  tables.doc.middlewareStack.remove(FAULT);
});
afterAll(() => tables.drop());

async function member() {
  const userId = `user-${randomUUID()}`;
  const workspaceId = randomUUID();
  await tables.setRole(userId, workspaceId, 'editor');
  return { userId, workspaceId };
}

const create = (userId: string, workspaceId: string, expiresInDays?: number) =>
  createKey(rt.service, {
    userId,
    name: 'laptop',
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.read'],
    expiresInDays,
  });

/** Every event item in the table, as stored. */
async function storedEvents(): Promise<Record<string, unknown>[]> {
  return (await tables.scanKeys()).filter((i) => String(i.pk).startsWith('LINEAGE#'));
}

/** The events a step added to the table, as the API shows them. */
async function eventsOf(step: () => Promise<unknown>): Promise<KeyEvent[]> {
  const before = new Set((await storedEvents()).map((i) => i.id));
  await step();
  return (await storedEvents()).filter((i) => !before.has(i.id)).map((i) => fromEventItem(i) as KeyEvent);
}

/** Fails every TransactWriteItems as DynamoDB does when it cancels a transaction. */
function failTransactions(code = 'ThrottlingError') {
  tables.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        throw new TransactionCanceledException({
          message: 'Transaction cancelled (injected)',
          $metadata: {},
          CancellationReasons: [{ Code: code }, { Code: 'None' }, { Code: 'None' }],
        });
      }
      return next(args);
    },
    { step: 'initialize', name: FAULT },
  );
}

const errorCode = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.code : 'error'),
  );

describe('events written with each change', () => {
  it('create writes exactly key.created, with the key’s public fields and the user as actor', async () => {
    const { userId, workspaceId } = await member();
    let issued: Awaited<ReturnType<typeof create>> | undefined;
    const events = await eventsOf(async () => {
      issued = await create(userId, workspaceId);
    });
    const id = issued?.metadata.id;
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'key.created',
        occurred_at: clock.now().toISOString(),
        key_id: id,
        lineage_id: id,
        user_id: userId,
        actor: { type: 'user', id: userId },
        details: {
          name: 'laptop',
          scopes: ['svc.forms.read'],
          workspace_ids: [workspaceId],
          expires_at: issued?.metadata.expires_at,
          rotated_from: null,
        },
      },
    ]);
    const stored = await rt.service.keys.get(id ?? '');
    const text = JSON.stringify(events);
    expect(text).not.toContain(stored?.digest);
    expect(text).not.toContain(issued?.apiKey.slice(11));
    expect(text).not.toContain('key_hint');
  });

  it('rotate writes key.rotated for the old key and key.created for the new one, at the same time', async () => {
    const { userId, workspaceId } = await member();
    const old = await create(userId, workspaceId);
    clock.advance(60_000);
    let rotated: Awaited<ReturnType<typeof rotateKey>> | undefined;
    const events = await eventsOf(async () => {
      rotated = await rotateKey(rt.service, userId, old.metadata.id);
    });
    const newId = rotated?.metadata.id;
    expect(events.map((e) => e.type).sort()).toEqual(['key.created', 'key.rotated']);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(byType['key.rotated']).toMatchObject({
      key_id: old.metadata.id,
      lineage_id: old.metadata.id,
      details: { replaced_by: newId },
    });
    expect(byType['key.created']).toMatchObject({
      key_id: newId,
      lineage_id: old.metadata.id,
      details: { rotated_from: old.metadata.id, expires_at: rotated?.metadata.expires_at },
    });
    expect(new Set(events.map((e) => e.occurred_at))).toEqual(new Set([clock.now().toISOString()]));
  });

  it('revoke writes key.revoked the first time only; the idempotent repeat writes nothing', async () => {
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId);
    const first = await eventsOf(() => revokeKey(rt.service, userId, key.metadata.id));
    expect(first).toEqual([
      expect.objectContaining({ type: 'key.revoked', key_id: key.metadata.id, details: {} }),
    ]);
    clock.advance(1000);
    expect(await eventsOf(() => revokeKey(rt.service, userId, key.metadata.id))).toEqual([]);
  });

  it('keeps events as long as the key: TTL is the retention after the later of the event and the expiry', async () => {
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId, 10);
    const revoked = await eventsOf(() => revokeKey(rt.service, userId, key.metadata.id));
    const items = (await storedEvents()).filter((i) => i.key_id === key.metadata.id);
    const ttl = (iso: string) => Math.floor((Date.parse(iso) + 90 * DAY) / 1000);
    expect(items.map((i) => i.ttl)).toEqual([ttl(key.metadata.expires_at), ttl(key.metadata.expires_at)]);
    expect(revoked).toHaveLength(1);
  });
});

describe('a change that fails writes no event', () => {
  it.each([
    ['create', async (userId: string, keyId: string, ws: string) => create(userId, ws).then(() => keyId)],
    ['rotate', (userId: string, keyId: string) => rotateKey(rt.service, userId, keyId)],
    ['revoke', (userId: string, keyId: string) => revokeKey(rt.service, userId, keyId)],
  ])('%s cancelled by DynamoDB writes nothing at all', async (_label, change) => {
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId);
    const before = await tables.scanKeys();
    failTransactions();
    expect(await errorCode(change(userId, key.metadata.id, workspaceId))).toBe('error');
    tables.doc.middlewareStack.remove(FAULT);
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('a rotation that loses a race inside its transaction writes neither of its events', async () => {
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId);
    const keys = Object.create(rt.service.keys) as typeof rt.service.keys;
    keys.rotate = async (old, next, now, events) => {
      await rt.service.keys.revoke(old, now, []);
      return rt.service.keys.rotate(old, next, now, events);
    };
    const events = await eventsOf(async () =>
      expect(await errorCode(rotateKey({ ...rt.service, keys }, userId, key.metadata.id))).toBe('conflict'),
    );
    expect(events).toEqual([]);
  });

  it('refusals before the write (cap reached, expired key, another user’s key) write nothing', async () => {
    const capped = tables.runtime({ now: clock.now, settings: { maxActiveKeys: 1 } });
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId, 1);
    const refused = await eventsOf(async () => {
      const make = createKey(capped.service, {
        userId,
        name: 'x',
        workspaceIds: [workspaceId],
        scopes: ['svc.forms.read'],
      });
      expect(await errorCode(make)).toBe('key_limit_reached');
      expect(await errorCode(revokeKey(rt.service, 'intruder', key.metadata.id))).toBe('not_found');
      clock.advance(2 * DAY);
      expect(await errorCode(rotateKey(rt.service, userId, key.metadata.id))).toBe('key_expired');
    });
    expect(refused).toEqual([]);
  });
});

describe('a lineage’s history', () => {
  /** create A, rotate to B, rotate to C, revoke C: six events in one lineage. */
  async function chain() {
    const { userId, workspaceId } = await member();
    const a = await create(userId, workspaceId);
    clock.advance(1000);
    const b = await rotateKey(rt.service, userId, a.metadata.id);
    clock.advance(1000);
    const c = await rotateKey(rt.service, userId, b.metadata.id);
    clock.advance(1000);
    await revokeKey(rt.service, userId, c.metadata.id);
    return { userId, workspaceId, ids: [a.metadata.id, b.metadata.id, c.metadata.id] };
  }

  it('is the same from every key of the lineage, newest first, and holds nothing of other lineages', async () => {
    const { userId, workspaceId, ids } = await chain();
    await create(userId, workspaceId); // another lineage of the same user
    const [a, b, c] = ids;
    const pages = await Promise.all(
      ids.map((keyId) => listKeyEvents(rt.service, { userId, keyId, limit: 50 })),
    );
    for (const page of pages) {
      expect(page.next_cursor).toBeNull();
      expect(page.data).toEqual(pages[0]?.data);
    }
    const data = pages[0]?.data ?? [];
    expect(data.every((e) => e.lineage_id === a)).toBe(true);
    const times = data.map((e) => e.occurred_at);
    expect(times).toEqual([...times].sort().reverse());
    // Events of one transaction share a time; compare them as sets.
    const byTime = [...new Set(times)].map((t) =>
      data
        .filter((e) => e.occurred_at === t)
        .map((e) => `${e.type} ${e.key_id}`)
        .sort(),
    );
    expect(byTime).toEqual([
      [`key.revoked ${c}`],
      [`key.created ${c}`, `key.rotated ${b}`],
      [`key.created ${b}`, `key.rotated ${a}`],
      [`key.created ${a}`],
    ]);
  });

  it('pages with a cursor bound to the caller and the lineage', async () => {
    const { userId, ids } = await chain();
    const keyId = ids[0] as string;
    const all = (await listKeyEvents(rt.service, { userId, keyId, limit: 100 })).data;
    const seen: KeyEvent[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listKeyEvents(rt.service, { userId, keyId, limit: 4, cursor });
      seen.push(...page.data);
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual(all);

    const first = await listKeyEvents(rt.service, { userId, keyId, limit: 2 });
    const next = first.next_cursor ?? '';
    expect(next).not.toBe('');
    // Another user, another lineage, a tampered cursor: all refused.
    const other = await chain();
    const refused = [
      () =>
        listKeyEvents(rt.service, {
          userId: other.userId,
          keyId: other.ids[0] as string,
          limit: 2,
          cursor: next,
        }),
      () => listKeyEvents(rt.service, { userId, keyId, limit: 2, cursor: tamperedCursor(next) }),
      () => listKeyEvents(rt.service, { userId, keyId, limit: 2, cursor: 'not-a-cursor' }),
    ];
    for (const p of refused) expect(await errorCode(p())).toBe('invalid_cursor');
  });

  it('is not found for another user’s key or an unknown key', async () => {
    const { ids } = await chain();
    const keyId = ids[0] as string;
    expect(await errorCode(listKeyEvents(rt.service, { userId: 'intruder', keyId, limit: 10 }))).toBe(
      'not_found',
    );
    expect(
      await errorCode(listKeyEvents(rt.service, { userId: 'intruder', keyId: randomUUID(), limit: 10 })),
    ).toBe('not_found');
  });
});

describe('the expiry index', () => {
  it('holds an active key under its first notice and drops it on revoke and on rotation', async () => {
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId, 30);
    const item = async (id: string) => (await tables.scanKeys()).find((i) => i.pk === `KEY#${id}`);
    expect(await item(key.metadata.id)).toMatchObject({
      gsi2pk: expect.stringMatching(/^EXPIRY#[0-3]$/),
      gsi2sk: new Date(Date.parse(key.metadata.expires_at) - 7 * DAY).toISOString(),
    });
    const rotated = await rotateKey(rt.service, userId, key.metadata.id);
    expect(await item(key.metadata.id)).not.toHaveProperty('gsi2pk');
    expect(await item(rotated.metadata.id)).toHaveProperty('gsi2sk');
    await revokeKey(rt.service, userId, rotated.metadata.id);
    expect(await item(rotated.metadata.id)).not.toHaveProperty('gsi2sk');
  });

  it('starts a key with under 7 days to live at its 1-day notice', async () => {
    const { userId, workspaceId } = await member();
    const key = await create(userId, workspaceId, 5);
    const stored = (await tables.scanKeys()).find((i) => i.pk === `KEY#${key.metadata.id}`);
    expect(stored?.gsi2sk).toBe(new Date(Date.parse(key.metadata.expires_at) - DAY).toISOString());
  });
});
