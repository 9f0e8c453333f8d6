/** 4: the management path over HTTP through the local service (autocannon, loopback, bounded). */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startService } from '#test/support/local-service';
import { record, scaled } from './harness.ts';

export async function management(log: (line: string) => void) {
  log('4. management path through the local service (autocannon, loopback, bounded)');
  const service = await startService(
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-svc-')),
      MAX_ACTIVE_KEYS: '10000',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    ['--in-memory'],
  );
  try {
    const post = async (path: string, body: unknown, token?: string) => {
      const r = await fetch(`${service.url}${path}`, {
        method: path.startsWith('/_dev/memberships') ? 'PUT' : 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
      return r.status === 204 ? {} : ((await r.json()) as Record<string, unknown>);
    };
    const tokenFor = async (sub: string) =>
      (await post('/_dev/token', { sub, email_verified: true })).token as string;
    const users = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const sub = `bench-${i}`;
        const ws = randomUUID();
        await post(`/_dev/memberships/${sub}/${ws}`, { role: 'editor' });
        return { token: await tokenFor(sub), ws };
      }),
    );
    const lister = users[0] as { token: string; ws: string };
    const ids: string[] = [];
    const seeded = scaled(1000);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (ids.length < seeded) {
          const created = await post(
            '/v1/mcp/api-keys',
            { name: 'seed', workspace_ids: [lister.ws], scopes: ['svc.forms.read'] },
            lister.token,
          );
          const id = (created.metadata as { id?: string } | undefined)?.id;
          if (id) ids.push(id);
        }
      }),
    );
    const run = (opts: autocannon.Options) =>
      new Promise<autocannon.Result>((done, fail) => {
        // Bounded: by a request count when given, else by 5 seconds (1 in a smoke run).
        const bound = opts.amount ? {} : { duration: scaled(5000, 1000) / 1000 };
        autocannon({ connections: 16, ...bound, ...opts }, (err, res) => (err ? fail(err) : done(res)));
      });
    const summary = (name: string, res: autocannon.Result, health: autocannon.Result) => {
      const errors = res.non2xx + res.errors;
      record(
        `${name} req/s (c=16)`,
        res.requests.average,
        'req/s',
        { name: 'GET /health req/s', value: health.requests.average },
        {
          text: 'no errors',
          met: () => errors === 0,
        },
      );
      record(`${name} p99`, res.latency.p99, 'ms', { name: 'GET /health p99 ms', value: health.latency.p99 });
    };
    const health = await run({ url: `${service.url}/health` });
    let u = 0;
    const create = await run({
      url: `${service.url}/v1/mcp/api-keys`,
      method: 'POST',
      requests: [
        {
          setupRequest: (req) => {
            const user = users[u++ % users.length] as { token: string; ws: string };
            return {
              ...req,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
              body: JSON.stringify({ name: 'bench', workspace_ids: [user.ws], scopes: ['svc.forms.read'] }),
            };
          },
        },
      ],
    });
    summary('POST create', create, health);
    const list = await run({
      url: `${service.url}/v1/mcp/api-keys?limit=50`,
      headers: { authorization: `Bearer ${lister.token}` },
    });
    summary('GET list (1,000 keys, page of 50)', list, health);
    let r = 0;
    const revoke = await run({
      url: `${service.url}/v1/mcp/api-keys/x`,
      method: 'DELETE',
      amount: ids.length,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            path: `/v1/mcp/api-keys/${ids[r++ % ids.length]}`,
            headers: { authorization: `Bearer ${lister.token}` },
          }),
        },
      ],
    } as autocannon.Options);
    summary('DELETE revoke (1,000 distinct keys)', revoke, health);
  } finally {
    await service.stop('SIGTERM');
  }
}
