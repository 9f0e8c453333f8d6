import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { packed } from '#test/support/packed';

/**
 * Contract §19 in a team's project outside this repository: the verifier from the packed tarball,
 * given the team's own catalogue (test/package/fixtures/integrations/catalogue.ts, in the
 * integrations project the run installed and type-checked once: test/support/pack-setup.ts), with
 * keys the local service made. What the team's tools are decides what a key may call there: a
 * tool of theirs its scopes allow passes, with the tools listed; any other is `tool_not_allowed`,
 * and the guard answers 403 with the sentence, from `Mcp-Name` or from the body.
 */

let work: string;
let service: RunningService;
let fixture: string;
const call = jsonClient(() => service.url);
/** What the fixture printed: the guard's and the verifier's decisions. */
// biome-ignore lint/suspicious/noExplicitAny: the fixture's JSON, read as the assertions spell it out
let decided: any;
let ready: Awaited<ReturnType<typeof packed>>;

/** A reader of one workspace with two keys: `all` without a list of its own, `own` limited to list_forms. */
async function makeKeys() {
  const { token, workspaceId } = await devMember(call, 'team-tools-user', 'editor');
  const create = async (tools?: string[]) => {
    const created = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: {
        name: 'team',
        workspace_ids: [workspaceId],
        scopes: ['svc.forms.read'],
        ...(tools && { tools }),
      },
    });
    if (created.status !== 201) throw new Error(`key not created: ${created.status} ${created.text}`);
    return created.json.api_key as string;
  };
  return { all: await create(), own: await create(['list_forms']) };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-tool-catalogue-'));
  const servicePromise = startService({ DATA_DIR: join(work, 'service-data') });
  try {
    ready = await packed();
    fixture = (await ready.installed()).consumer('integrations');
  } finally {
    // Stopped in afterAll even when the packing failed.
    service = await servicePromise;
  }
  const installed = performance.now();
  const keys = await makeKeys();
  // The options the local service hands out (GET /_dev/verifier), passed on as they are.
  const handed = await call('GET', '/_dev/verifier');
  if (handed.status !== 200) throw new Error(`no verifier options: ${handed.status}`);
  // Nothing of the verifier comes from the environment.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(AWS_|KEYS_|MEMBERSHIPS_|PEPPER_|DYNAMODB_)/.test(name),
    ),
  );
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['catalogue.ts', JSON.stringify({ verifier: handed.json, keys })],
    { cwd: fixture, env },
  );
  decided = JSON.parse(stdout.split('\n').find((line) => line.startsWith('{')) ?? '{}');
  console.log(
    `tool catalogue consumer: ${Math.round(performance.now() - installed)} ms once the project was installed`,
  );
}, 600_000);

afterAll(async () => {
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const THEIRS = ['summarize_responses', 'list_forms'];
/** The guard's 403 for a key whose tools are `tools`, calling `tool`. */
const refused = (tool: string, tools: string[]) => ({
  ok: false,
  status: 403,
  challenge: 'Bearer realm="svc-mcp"',
  body: {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32003,
      message: `This key may not call ${tool}: its tools are ${tools.join(', ')}. Its owner can create a key for it.`,
    },
  },
});

describe('the packed verifier with a team’s own catalogue', () => {
  it('takes it as `tools` in the shipped declarations (the project’s type-check)', async () => {
    const typecheck = await ready.typecheck('integrations');
    expect(typecheck.output.split('\n').filter((line) => line.includes('catalogue.ts'))).toEqual([]);
  });

  it('passes a tool of theirs the key’s scopes allow, from Mcp-Name or the body, listing their tools it may call', () => {
    expect(decided.guard.theirs).toEqual({ ok: true, tools: [THEIRS] });
    expect(decided.guard.theirsInBody).toEqual({ ok: true, tools: [THEIRS] });
    expect(decided.verify.theirs).toEqual({ outcome: 'valid', tools: THEIRS });
  });

  it('refuses a tool not in their catalogue: tool_not_allowed, and the guard’s 403 with the sentence', () => {
    expect(decided.verify.notTheirs).toEqual({
      outcome: 'tool_not_allowed',
      by: 'credential',
      tools: THEIRS,
    });
    expect(decided.guard.notTheirs).toEqual(refused('list_workspaces', THEIRS));
    // A 2025 client names the tool in the body only.
    expect(decided.guard.notTheirsInBody).toEqual(refused('list_workspaces', THEIRS));
  });

  it('refuses a tool of theirs that needs a scope the key lacks', () => {
    expect(decided.guard.lackingScope).toEqual(refused('archive_form', THEIRS));
  });

  it('a key limited to list_forms may call only that of their tools', () => {
    expect(decided.guard.ownListAllows).toEqual({ ok: true, tools: [['list_forms']] });
    expect(decided.guard.ownListRefuses).toEqual(refused('summarize_responses', ['list_forms']));
  });

  it('without a catalogue, a key with no list of its own is not checked by tool', () => {
    expect(decided.verify.withoutCatalogue).toEqual({ outcome: 'valid', tools: null });
  });
});
