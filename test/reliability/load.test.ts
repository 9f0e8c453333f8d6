import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '#test/support/local-service';
import { SecretLedger } from '#test/support/secrets';
import { scale } from '#test/support/soak';

/**
 * A bounded mixed load on loopback (stops by itself): MCP calls through the key authorizer and
 * management calls, then: no 5xx, and every key ever created is still listed.
 */
const SECONDS = scale(10, 60);
let service: RunningService;
const secrets = new SecretLedger();

beforeAll(async () => {
  service = await startService(
    { DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-load-')), MAX_ACTIVE_KEYS: '10000' },
    ['--in-memory'],
  );
});
afterAll(() => service?.stop());

async function call(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; key?: string } = {},
) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(opts.token && { authorization: `Bearer ${opts.token}` }),
      ...(opts.key && { authorization: `Bearer ${opts.key}`, accept: 'application/json, text/event-stream' }),
      ...(opts.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(opts.body !== undefined && { body: JSON.stringify(opts.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

describe(`mixed load for ${SECONDS} s`, () => {
  it(
    'answers no 5xx and loses no key',
    async () => {
      const users = await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const sub = `load-${i}-${randomUUID().slice(0, 6)}`;
          const ws = randomUUID();
          await call('PUT', `/_dev/memberships/${sub}/${ws}`, { body: { role: 'editor' } });
          const token = (await call('POST', '/_dev/token', { body: { sub, email_verified: true } })).json
            .token as string;
          secrets.add(token);
          return {
            sub,
            ws,
            token,
            created: new Set<string>(),
            revoked: new Set<string>(),
            live: new Map<string, string>(),
          };
        }),
      );
      const statuses = new Map<number, number>();
      const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
      const end = Date.now() + SECONDS * 1000;
      const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)] as T;

      const management = async (user: (typeof users)[number]) => {
        while (Date.now() < end) {
          const roll = Math.random();
          const liveIds = [...user.live.keys()];
          if (roll < 0.35 || liveIds.length === 0) {
            const r = await call('POST', '/v1/mcp/api-keys', {
              token: user.token,
              body: { name: 'load', workspace_ids: [user.ws], scopes: ['svc.forms.read'] },
            });
            count(r.status);
            if (r.status === 201) {
              user.created.add(r.json.metadata.id);
              user.live.set(r.json.metadata.id, r.json.api_key);
              secrets.add(r.json.api_key);
            }
          } else if (roll < 0.6) {
            const id = pick(liveIds);
            const r = await call('POST', `/v1/mcp/api-keys/${id}/rotate`, { token: user.token });
            count(r.status);
            if (r.status === 201) {
              user.live.delete(id);
              user.created.add(r.json.metadata.id);
              user.live.set(r.json.metadata.id, r.json.api_key);
              secrets.add(r.json.api_key);
            }
          } else if (roll < 0.75) {
            const id = pick(liveIds);
            const r = await call('DELETE', `/v1/mcp/api-keys/${id}`, { token: user.token });
            count(r.status);
            if (r.status === 200) {
              user.live.delete(id);
              user.revoked.add(id);
            }
          } else {
            count((await call('GET', '/v1/mcp/api-keys?limit=20', { token: user.token })).status);
          }
        }
      };
      const mcp = async () => {
        const rpc = {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_workspaces', arguments: {} },
        };
        while (Date.now() < end) {
          const user = pick(users);
          const keys = [...user.live.values()];
          if (keys.length === 0) {
            await new Promise((r) => setTimeout(r, 10));
            continue;
          }
          const r = await call('POST', '/mcp', { key: pick(keys), body: rpc });
          // 401 is expected when a key was rotated or revoked between picking it and the call.
          count(r.status);
          if (r.status === 200)
            expect(r.json.result.structuredContent.workspaces[0].workspace_id).toBe(user.ws);
        }
      };
      await Promise.all([...users.map(management), ...Array.from({ length: 6 }, mcp)]);

      const fiveXx = [...statuses.entries()].filter(([s]) => s >= 500);
      expect(fiveXx, JSON.stringify(Object.fromEntries(statuses))).toEqual([]);
      for (const s of statuses.keys()) expect([200, 201, 401, 409]).toContain(s);
      expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(50);

      for (const user of users) {
        const listed = new Map<string, string>();
        let cursor: string | null = null;
        do {
          const page = await call(
            'GET',
            `/v1/mcp/api-keys?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            {
              token: user.token,
            },
          );
          for (const m of page.json.data) listed.set(m.id, m.status);
          cursor = page.json.next_cursor;
        } while (cursor);
        expect(user.created.size).toBeGreaterThan(0);
        for (const id of user.created) expect(listed.has(id), `created key ${id} is listed`).toBe(true);
        for (const id of user.revoked) expect(listed.get(id)).toBe('revoked');
        for (const id of user.live.keys()) expect(listed.get(id)).toBe('active');
      }
      expect(secrets.leaksIn(service.output())).toEqual([]);
    },
    (SECONDS + 60) * 1000,
  );
});
