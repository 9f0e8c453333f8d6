import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '#infra/local/lock';
import type { KeyEvent } from '#lib/events/model';
import { OWN_DYNAMODB_LOCAL, type RunningService, startService } from '#test/support/local-service';
import { SecretLedger } from '#test/support/secrets';

/**
 * Events through `npm start`: the seed's lifecycle (create, rotate, revoke) shows every event in
 * GET …/events and, published from DynamoDB Local's stream, in /_dev/events and
 * DATA_DIR/events.ndjson; POST /_dev/sweep writes the expiry notices once.
 */
const DAY = 86_400_000;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-events-'));
let service: RunningService;
const secrets = new SecretLedger();
const bodies: string[] = [];

beforeAll(async () => {
  service = await startService({ DATA_DIR: dataDir, ...OWN_DYNAMODB_LOCAL });
});
afterAll(async () => {
  await service?.stop();
});

async function http(method: string, path: string, init: { token?: string; body?: unknown } = {}) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(init.token && { authorization: `Bearer ${init.token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  // What events and sweeps answer: it must never carry a key or a token.
  if (/events|sweep/.test(path)) bodies.push(text);
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

async function userWithWorkspace(sub: string) {
  const token = (await http('POST', '/_dev/token', { body: { sub, email_verified: true } })).json.token;
  secrets.add(token);
  const workspaceId = randomUUID();
  await http('PUT', `/_dev/memberships/${sub}/${workspaceId}`, { body: { role: 'editor' } });
  return { token: token as string, workspaceId };
}

async function createKey(token: string, workspaceId: string) {
  const reply = await http('POST', '/v1/mcp/api-keys', {
    token,
    body: { name: 'laptop', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
  });
  expect(reply.status).toBe(201);
  secrets.add(reply.json.api_key);
  return reply.json.metadata as { id: string; expires_at: string };
}

/** Waits until /_dev/events holds what `done` wants (the poller publishes within moments). */
async function publishedUntil(done: (events: KeyEvent[]) => boolean): Promise<KeyEvent[]> {
  const deadline = Date.now() + 15_000;
  let events: KeyEvent[] = [];
  while (Date.now() < deadline) {
    const reply = await http('GET', '/_dev/events');
    expect(reply.status).toBe(200);
    events = reply.json.data;
    if (done(events)) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`events not published in time; got ${JSON.stringify(events.map((e) => e.type))}`);
}

describe('the seed’s lifecycle', () => {
  it('create → rotate → revoke: every event in GET …/events and, published, in /_dev/events', async () => {
    const sub = `alice-${randomUUID()}`;
    const { token, workspaceId } = await userWithWorkspace(sub);
    const created = await createKey(token, workspaceId);
    const rotated = await http('POST', `/v1/mcp/api-keys/${created.id}/rotate`, { token });
    expect(rotated.status).toBe(201);
    secrets.add(rotated.json.api_key);
    const next = rotated.json.metadata.id as string;
    expect((await http('DELETE', `/v1/mcp/api-keys/${next}`, { token })).status).toBe(200);
    expect((await http('DELETE', `/v1/mcp/api-keys/${next}`, { token })).status).toBe(200); // writes nothing

    const history = await http('GET', `/v1/mcp/api-keys/${created.id}/events`, { token });
    expect(history.status).toBe(200);
    const events = history.json.data as KeyEvent[];
    expect(events.map((e) => e.type)).toHaveLength(4);
    expect(events[0]).toMatchObject({ type: 'key.revoked', key_id: next, lineage_id: created.id });
    expect(events[3]).toMatchObject({
      type: 'key.created',
      key_id: created.id,
      details: { rotated_from: null },
    });
    expect(
      events
        .slice(1, 3)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['key.created', 'key.rotated']);
    expect(history.json.next_cursor).toBeNull();

    const other = await userWithWorkspace(`mallory-${randomUUID()}`);
    expect((await http('GET', `/v1/mcp/api-keys/${created.id}/events`, { token: other.token })).status).toBe(
      404,
    );

    const published = await publishedUntil(
      (all) => all.filter((e) => e.lineage_id === created.id).length >= 4,
    );
    const lineage = published.filter((e) => e.lineage_id === created.id);
    expect(lineage.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
    expect(new Set(lineage.map((e) => e.id)).size).toBe(lineage.length);
    // Published in the order they were written.
    expect(lineage[0]?.type).toBe('key.created');
    expect(lineage.at(-1)?.type).toBe('key.revoked');
    const file = readFileSync(join(dataDir, 'events.ndjson'), 'utf8').trim().split('\n');
    expect(file.map((line) => JSON.parse(line).id)).toEqual(published.map((e) => e.id));
  });
});

describe('the expiry sweep on demand', () => {
  it('POST /_dev/sweep writes key.expiring and key.expired once each, published like the rest', async () => {
    const { token, workspaceId } = await userWithWorkspace(`bob-${randomUUID()}`);
    const key = await createKey(token, workspaceId);
    const expires = Date.parse(key.expires_at);
    const sweep = async (at: number) => {
      const reply = await http('POST', '/_dev/sweep', { body: { now: new Date(at).toISOString() } });
      expect(reply.status).toBe(200);
      return reply.json;
    };
    const first = await sweep(expires - 7 * DAY + 60_000);
    expect(first.written.expiring_7).toBeGreaterThanOrEqual(1);
    expect((await sweep(expires - 7 * DAY + 120_000)).written).toEqual({
      expiring_7: 0,
      expiring_1: 0,
      expired: 0,
    });
    await sweep(expires + 3_600_000);

    const history = await http('GET', `/v1/mcp/api-keys/${key.id}/events`, { token });
    expect((history.json.data as KeyEvent[]).map((e) => e.type)).toEqual([
      'key.expired',
      'key.expiring',
      'key.created',
    ]);
    expect(history.json.data[1]).toMatchObject({
      actor: { type: 'system', id: null },
      details: { days_left: 7 },
    });
    const published = await publishedUntil((all) =>
      all.some((e) => e.key_id === key.id && e.type === 'key.expired'),
    );
    expect(published.filter((e) => e.key_id === key.id).map((e) => e.type)).toEqual([
      'key.created',
      'key.expiring',
      'key.expired',
    ]);
  });

  it('refuses a sweep time that is not a date-time, and runs at the service clock without one', async () => {
    expect((await http('POST', '/_dev/sweep', { body: { now: 'yesterday' } })).status).toBe(400);
    expect((await http('POST', '/_dev/sweep', { body: { when: 'now' } })).status).toBe(400);
    const reply = await http('POST', '/_dev/sweep', { body: {} });
    expect(reply.status).toBe(200);
    expect(Math.abs(Date.parse(reply.json.now) - Date.now())).toBeLessThan(60_000);
  });
});

describe('shutdown', () => {
  it('no event carried a key or token, and the service stops cleanly with its poller and DynamoDB Local', async () => {
    expect(bodies.length).toBeGreaterThan(5);
    expect(secrets.size).toBeGreaterThan(3);
    expect(secrets.leaksIn(bodies.join('\n'))).toEqual([]);
    expect(secrets.leaksIn(readFileSync(join(dataDir, 'events.ndjson'), 'utf8'))).toEqual([]);
    const jvms = service.dynamoDbLocal();
    expect(jvms.length).toBeGreaterThan(0);
    expect(await service.stop('SIGINT')).toBe(0);
    const deadline = Date.now() + 10_000;
    while (jvms.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const pid of jvms) expect(isAlive(pid)).toBe(false);
    const failures = service
      .output()
      .split('\n')
      .filter((l) => /stream poll failed|expiry sweep failed/.test(l));
    expect(failures).toEqual([]);
  });

  it('a restart on the same data directory publishes new events and none twice', async () => {
    const before = readFileSync(join(dataDir, 'events.ndjson'), 'utf8').trim().split('\n');
    service = await startService({ DATA_DIR: dataDir, ...OWN_DYNAMODB_LOCAL });
    const { token, workspaceId } = await userWithWorkspace(`carol-${randomUUID()}`);
    const key = await createKey(token, workspaceId);
    const published = await publishedUntil((all) => all.some((e) => e.key_id === key.id));
    expect(published).toHaveLength(before.length + 1);
    expect(new Set(published.map((e) => e.id)).size).toBe(published.length);
  }, 180_000);
});
