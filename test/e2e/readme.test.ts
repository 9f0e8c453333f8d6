import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REST_GATEWAY_RESPONSES } from '#lib/mcp/gateway-responses';
import { type RunningService, startService } from '#test/support/local-service';

/**
 * The pages' runnable command blocks, run with bash exactly as written (but for the port) against
 * `npm start`: the README's quickstart and the Enterprise how-to of docs/oauth.md.
 */
let service: RunningService;

beforeAll(async () => {
  service = await startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-readme-')) });
});
afterAll(() => service?.stop());

/** The first `sh` block of the section of `page` that starts with `heading`. */
function commands(page: string, heading: string): string {
  const text = readFileSync(page, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no "${heading}" in ${page}`);
  const end = text.indexOf('\n## ', start + heading.length + 2);
  const section = text.slice(start, end < 0 ? undefined : end);
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`no sh block under "${heading}" in ${page}`);
  return block;
}

/** Runs a block with bash (`-euo pipefail`) against the local service, then `after`; its stdout. */
async function run(block: string, after = ''): Promise<string> {
  const script = block.replace('BASE=http://127.0.0.1:3000', `BASE=${service.url}`);
  expect(script).toContain(`BASE=${service.url}`);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `${script}\n${after}`]);
  return stdout;
}

it('the README quickstart works verbatim against the local service', async () => {
  const stdout = await run(
    commands('README.md', '## Quickstart'),
    'printf "\\n%s %s\\n" "$KEY_ID" "$NEW_KEY_ID"',
  );
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

it('the Enterprise how-to of docs/oauth.md works verbatim against the local service', async () => {
  const stdout = await run(
    commands('docs/oauth.md', '## Enterprise: the identity provider decides'),
    'printf "\\n%s\\n" "$CLIENT_ID"',
  );
  const clientId = stdout.trim().split('\n').at(-1) ?? '';
  expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
  // Its grant reached Alice's workspace: the access token called list_workspaces.
  expect(stdout).toContain(
    '"structuredContent":{"workspaces":[{"workspace_id":"3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61","role":"editor","scopes":["svc.forms.read"],' +
      '"tools":["list_workspaces","list_forms","read_draft","compile_dsl","validate_definition"]}]}',
  );
  // The IdP disabled Alice: the same access token is refused with the one 401 sentence, which
  // fits an access token as well as a key; her dashboard token can create no key; the IdP
  // issues her no ID token; and enabling her is acknowledged.
  const [before, after] = stdout.split('{"status":202}');
  expect(before).toContain('"structuredContent"');
  expect(after).toContain(`${REST_GATEWAY_RESPONSES.UNAUTHORIZED.body}\n401`);
  expect(JSON.parse(REST_GATEWAY_RESPONSES.UNAUTHORIZED.body).error.message).toMatch(
    /^The API key or access token is missing, malformed, not valid, revoked or expired/,
  );
  expect(after).toMatch(
    /"status":403,"detail":"Your identity provider \(127\.0\.0\.1:\d+\) disabled your account at [^"]*","code":"account_disabled"/,
  );
  expect(after).toContain('{"message":"The IdP disabled this person."}');
  expect(stdout.split('{"status":202}')).toHaveLength(3);
  // No credential is printed: the tokens stay in the shell's variables.
  expect(stdout).not.toMatch(/svc_mcp_(v1|at_v1|rt_v1)_[0-9A-Za-z]{20}/);
  expect(stdout).not.toMatch(/eyJ[\w-]+\.eyJ/);
  // The client registered with the body shown was Alice's app through her organisation's sign-in,
  // revoked with everything else of hers.
  const token = await devToken('alice');
  const listed = await fetch(`${service.url}/v1/mcp/api-keys?status=revoked`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(((await listed.json()) as { data: unknown[] }).data).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        kind: 'enterprise_grant',
        name: 'Enterprise assistant',
        client: expect.objectContaining({ id: clientId }),
        identity_provider: new URL(service.url).host,
      }),
    ]),
  );
}, 60_000);

async function devToken(sub: string): Promise<string> {
  const answer = await fetch(`${service.url}/_dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub, email_verified: true }),
  });
  return ((await answer.json()) as { token: string }).token;
}
