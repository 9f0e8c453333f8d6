import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningService, startService } from '#test/support/local-service';

let service: RunningService;

beforeAll(async () => {
  service = await startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-readme-')) });
});
afterAll(() => service?.stop());

/** The README's quickstart block, exactly as written, but for the port. */
function quickstart(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('no quickstart block in README.md');
  return block;
}

it('the README quickstart works verbatim against the local service', async () => {
  const script = quickstart().replace('BASE=http://127.0.0.1:3000', `BASE=${service.url}`);
  expect(script).toContain(`BASE=${service.url}`);
  const { stdout } = await promisify(execFile)('bash', [
    '-euo',
    'pipefail',
    '-c',
    `${script}\nprintf "\\n%s %s\\n" "$KEY_ID" "$NEW_KEY_ID"`,
  ]);
  const lines = stdout.trim().split('\n');
  const [keyId, newKeyId] = (lines.at(-1) ?? '').split(' ');
  expect(keyId).toMatch(/^[0-9a-f-]{36}$/);
  expect(newKeyId).toMatch(/^[0-9a-f-]{36}$/);
  // The membership (step 1), list (step 3), list_workspaces (step 4) and revoke (step 6) printed their JSON.
  expect(stdout).toContain(
    '{"user_id":"alice","workspace_id":"3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61","role":"editor"}',
  );
  expect(stdout).toContain(`"id":"${keyId}"`);
  expect(stdout).toContain(
    '"structuredContent":{"workspaces":[{"workspace_id":"3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61"',
  );
  expect(stdout).toMatch(new RegExp(`"metadata":\\{"id":"${newKeyId}".*"status":"revoked"`));
  // step 7: the lineage's history, newest first.
  const output = lines.at(-2) ?? '';
  const history = JSON.parse(output.slice(output.lastIndexOf('{"data":'))) as {
    data: { type: string; key_id: string }[];
  };
  expect(history.data.map((e) => `${e.type} ${e.key_id === keyId ? 'old' : 'new'}`)).toEqual([
    'key.revoked new',
    ...(history.data[1]?.type === 'key.created'
      ? ['key.created new', 'key.rotated old']
      : ['key.rotated old', 'key.created new']),
    'key.created old',
  ]);
  expect(stdout).not.toMatch(/svc_mcp_v1_[0-9A-Za-z]{71}/);
}, 60_000);
