import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

/**
 * The in-process example of docs/mcp-servers.md runs as written: the page's code, with only the
 * package's name resolved to its source entry, answers a request without a key and one with a
 * malformed key as contract §7 says (neither needs AWS).
 */
const page = readFileSync('docs/mcp-servers.md', 'utf8');
const example = /```ts\n(\/\/ in-process[^\n]*\n[\s\S]*?createMcpKeyVerifier\([\s\S]*?)```/.exec(page)?.[1];
const dir = mkdtempSync(join(tmpdir(), 'svc-doc-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Authenticate = (request: Request) => Promise<{ refused?: Response; caller?: unknown }>;

it('runs the in-process example of the MCP server page as written', async () => {
  expect(example).toBeDefined();
  const file = join(dir, 'example.ts');
  writeFileSync(
    file,
    (example ?? '').replace("'@svc/mcp-api-keys-verifier'", `'${resolve('lib/index.ts')}'`),
  );
  const { authenticate } = (await import(file)) as { authenticate: Authenticate };

  const missing = await authenticate(new Request('https://mcp.example.com/mcp', { method: 'POST' }));
  expect(missing.refused?.status).toBe(401);
  expect(missing.refused?.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');

  const malformed = await authenticate(
    new Request('https://mcp.example.com/mcp', {
      method: 'POST',
      headers: { authorization: 'Bearer svc_mcp_v1_not-a-key' },
    }),
  );
  expect(malformed.refused?.status).toBe(401);
  expect(await malformed.refused?.json()).toMatchObject({
    error: { message: 'The API key is malformed; copy it again in full.' },
  });
});
