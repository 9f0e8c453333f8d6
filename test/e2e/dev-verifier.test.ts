import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpKeyVerifier, type McpKeyVerifierOptions } from '#lib/verifier';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';

/**
 * Local development for other teams (contract §16): `npm start` prints, and `GET /_dev/verifier`
 * returns, the options another process passes as they are to `createMcpKeyVerifier` to verify
 * against the local service; the banner leaves the pepper's bytes out.
 */
let service: RunningService;
const call = jsonClient(() => service.url);

beforeAll(async () => {
  service = await startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-dev-verifier-')) });
});
afterAll(async () => {
  await service?.stop();
});

describe('GET /_dev/verifier', () => {
  it('returns options that verify the local service’s keys as they are', async () => {
    const reply = await call('GET', '/_dev/verifier');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const options = reply.json as McpKeyVerifierOptions & {
      pepper: { version: number; base64: string };
      credentials: { accessKeyId: string };
    };
    expect(Object.keys(options).sort()).toEqual(
      ['credentials', 'endpoint', 'keysTableName', 'membershipsTableName', 'pepper', 'region'].sort(),
    );
    expect(options.pepper.version).toBe(1);

    const { token, workspaceId } = await devMember(call, 'dev-verifier-user');
    const created = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'server under development', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
    });
    expect(created.status, created.text).toBe(201);

    const verifier = createMcpKeyVerifier(options);
    const result = await verifier.verify(created.json.api_key);
    expect(result).toMatchObject({
      outcome: 'valid',
      kind: 'api_key',
      user_id: 'dev-verifier-user',
      workspaces: [{ id: workspaceId, role: 'editor', scopes: ['svc.forms.read'] }],
    });
    await call('DELETE', `/v1/mcp/api-keys/${created.json.metadata.id}`, { token });
    expect((await verifier.verify(created.json.api_key)).outcome).toBe('revoked');
  });

  it('verifies a key with the local development example of docs/mcp-servers.md, run as written', async () => {
    const page = readFileSync('docs/mcp-servers.md', 'utf8');
    const example = /```ts\n(\/\/ against npm start[\s\S]*?)```/.exec(page)?.[1];
    expect(example).toContain("fetch('http://127.0.0.1:3000/_dev/verifier')");
    const file = join(mkdtempSync(join(tmpdir(), 'svc-dev-verifier-example-')), 'local.ts');
    writeFileSync(
      file,
      (example ?? '')
        .replace('http://127.0.0.1:3000', service.url)
        .replace("'@svc/mcp-api-keys-verifier'", `'${resolve('lib/index.ts')}'`),
    );
    const { verifier } = (await import(file)) as { verifier: ReturnType<typeof createMcpKeyVerifier> };
    const { token, workspaceId } = await devMember(call, 'dev-verifier-example');
    const created = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'example server', workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(await verifier.verify(created.json.api_key)).toMatchObject({
      outcome: 'valid',
      user_id: 'dev-verifier-example',
    });
  });

  it('is printed by npm start without the pepper’s bytes', async () => {
    const banner = service.output();
    const options = (await call('GET', '/_dev/verifier')).json as { pepper: { base64: string } };
    expect(banner).toContain('createMcpKeyVerifier(options)');
    expect(banner).toContain(`"keysTableName"`);
    expect(banner).toContain(`<GET ${service.url}/_dev/verifier>`);
    expect(banner).not.toContain(options.pepper.base64);
  });
});
