import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { assertTerminal, runInspector } from '#test/support/person-programs';
import { SecretLedger } from '#test/support/secrets';
import { soakOnly } from '#test/support/soak';
import { callHeaders, listedNames, rawToolCall, withClient } from '#test/support/tool-clients';

/**
 * A workspace administrator's policy on the tools AI clients may call there (contract §19),
 * through `npm start`'s service: the `PUT` answers at once, the stream's fan-out (local mode runs
 * it from DynamoDB Local's stream) writes `allowed_tools` onto every credential reaching the
 * workspace, and from the next call on the credential obeys it: the reference server's tool
 * refuses it in that workspace (a credential that may still call it elsewhere), the key
 * authorizer from `Mcp-Name` (one that may call it nowhere). Measured: how long the fan-out took.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-tool-policy-'));
let service: RunningService;
let base: string;
const call = jsonClient(() => base);
const secrets = new SecretLedger();

/** How long a policy may take to reach the credentials here (contract §12 allows 60 s for 10,000 keys). */
const FAN_OUT_BOUND_MS = 15_000;
const DEFINITION = { fields: [{ name: 'email', type: 'email', required: true }] };

/** The administrator of workspace A (an editor in B), its keys and a form in each workspace. */
const setUp = { a: '', b: '', token: '', both: '', onlyA: '', formA: '', formB: '' };

async function createKey(workspaceIds: string[]) {
  const created = await call('POST', '/v1/mcp/api-keys', {
    token: setUp.token,
    body: { name: 'assistant', workspace_ids: workspaceIds, scopes: ['svc.forms.read', 'svc.forms.write'] },
  });
  expect(created.status, created.text).toBe(201);
  secrets.add(created.json.api_key);
  return created.json.api_key as string;
}

interface ToolResult {
  isError?: boolean;
  content: { text: string }[];
  // biome-ignore lint/suspicious/noExplicitAny: each tool's structured content, as the test reads it
  structuredContent?: any;
}

/** A tool's answer through the raw endpoint: a 200 with a result, its text and structured content. */
async function tool(apiKey: string, name: string, args: Record<string, unknown>) {
  const answer = await rawToolCall(base, apiKey, name, args, callHeaders(name));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result as ToolResult;
}

const replaceDraft = (apiKey: string, ws: string, formId: string) =>
  tool(apiKey, 'replace_draft', { workspace_id: ws, form_id: formId, definition: DEFINITION });

/** The tools `list_workspaces` says the key may call in `ws`. */
async function toolsIn(apiKey: string, ws: string): Promise<string[]> {
  const { workspaces } = (await tool(apiKey, 'list_workspaces', {})).structuredContent as {
    workspaces: { workspace_id: string; tools: string[] }[];
  };
  return workspaces.find((w) => w.workspace_id === ws)?.tools ?? [];
}

/** PUTs A's policy with `allowedTools`, then waits until both keys show it; the milliseconds that took. */
async function putPolicyAndWait(allowedTools: string[] | null): Promise<number> {
  const put = await call('PUT', `/v1/mcp/workspaces/${setUp.a}/policy`, {
    token: setUp.token,
    body: {
      mcp_access: 'enabled',
      allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
      max_expiry_days: null,
      allowed_tools: allowedTools,
    },
  });
  expect(put.status, put.text).toBe(200);
  expect(put.json.allowed_tools).toEqual(allowedTools);
  const answered = performance.now();
  const allowed = allowedTools === null;
  await expect
    .poll(
      async () =>
        (await Promise.all([toolsIn(setUp.both, setUp.a), toolsIn(setUp.onlyA, setUp.a)])).map((tools) =>
          tools.includes('replace_draft'),
        ),
      { timeout: FAN_OUT_BOUND_MS, interval: 100 },
    )
    .toEqual([allowed, allowed]);
  return Math.round(performance.now() - answered);
}

beforeAll(async () => {
  assertTerminal();
  service = await startService({ DATA_DIR: dataDir, OAUTH: 'off' });
  base = service.url;
  const sub = `admin-${randomUUID()}`;
  const admin = await devMember(call, sub, 'admin');
  setUp.token = admin.token;
  setUp.a = admin.workspaceId;
  setUp.b = randomUUID();
  expect(
    (await call('PUT', `/_dev/memberships/${sub}/${setUp.b}`, { body: { role: 'editor' } })).status,
  ).toBe(200);
  secrets.add(setUp.token);
  setUp.both = await createKey([setUp.a, setUp.b]);
  setUp.onlyA = await createKey([setUp.a]);
  for (const ws of ['a', 'b'] as const) {
    const created = await tool(setUp.both, 'create_form', { workspace_id: setUp[ws], title: 'Intake' });
    setUp[ws === 'a' ? 'formA' : 'formB'] = created.structuredContent.form_id;
  }
});
afterAll(async () => {
  await service?.stop();
});

describe('a policy on workspace A without replace_draft', () => {
  const sentence = () => `Workspace ${setUp.a} does not allow replace_draft for AI clients.`;

  it('before it, each key replaces A’s draft', async () => {
    for (const key of [setUp.both, setUp.onlyA]) {
      const replaced = await replaceDraft(key, setUp.a, setUp.formA);
      expect(replaced.isError).toBeFalsy();
      expect(replaced.structuredContent).toEqual({ form_id: setUp.formA, fields: 1 });
    }
  });

  it('reaches both keys after the fan-out, within the bound (measured)', async () => {
    const catalogue = await call('GET', '/v1/mcp/tools', { token: setUp.token });
    expect(catalogue.status).toBe(200);
    const allowed = (catalogue.json.data as { name: string }[])
      .map((t) => t.name)
      .filter((name) => name !== 'replace_draft');
    const took = await putPolicyAndWait(allowed);
    console.log(`tool policy fan-out: replace_draft gone from both keys ${took} ms after the PUT answered`);
    expect(took).toBeLessThan(FAN_OUT_BOUND_MS);
  });

  it('a key reaching A and B, in the official SDK client: the policy’s sentence in A, the draft replaced in B', async () => {
    await withClient(base, setUp.both, '2026-07-28', async ({ client }) => {
      // It may still call replace_draft in B, so the tool is listed and the authorizer lets it through.
      expect(await listedNames(client)).toContain('replace_draft');
      const refused = await client.callTool({
        name: 'replace_draft',
        arguments: { workspace_id: setUp.a, form_id: setUp.formA, definition: { fields: [] } },
      });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([{ type: 'text', text: sentence() }]);
      const replaced = await client.callTool({
        name: 'replace_draft',
        arguments: { workspace_id: setUp.b, form_id: setUp.formB, definition: DEFINITION },
      });
      expect(replaced.isError).toBeFalsy();
      expect(replaced.structuredContent).toEqual({ form_id: setUp.formB, fields: 1 });
    });
    // A's draft kept the field the refused call would have removed.
    const draft = await tool(setUp.both, 'read_draft', { workspace_id: setUp.a, form_id: setUp.formA });
    expect(draft.structuredContent.definition.fields).toHaveLength(1);
  });

  it('the same key in the MCP Inspector CLI: it prints the policy’s sentence', async () => {
    const shown = await runInspector(`${base}/mcp`, setUp.both, [
      '--method',
      'tools/call',
      '--tool-name',
      'replace_draft',
      '--tool-arg',
      `workspace_id=${setUp.a}`,
      '--tool-arg',
      `form_id=${setUp.formA}`,
      '--tool-arg',
      'definition={"fields":[]}',
    ]);
    expect(shown.output).toContain(`"text": "${sentence()}"`);
    expect(shown.output).toContain('"isError": true');
    expect(shown.code).toBe(5);
  });

  it('a key reaching only A: the authorizer refuses Mcp-Name: replace_draft with 403 and the sentence', async () => {
    const args = { workspace_id: setUp.a, form_id: setUp.formA, definition: { fields: [] } };
    const refused = await rawToolCall(base, setUp.onlyA, 'replace_draft', args, callHeaders('replace_draft'));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32003, message: sentence() } });
    // A 2025 client sends no Mcp-Name: the server refuses it from the body.
    const unnamed = await rawToolCall(base, setUp.onlyA, 'replace_draft', args);
    expect(unnamed.status).toBe(403);
    expect(unnamed.body.error.code).toBe(-32003);
    expect(unnamed.body.error.message).toContain('replace_draft');
    expect(
      await withClient(base, setUp.onlyA, '2026-07-28', ({ client }) => listedNames(client)),
    ).not.toContain('replace_draft');
  });

  soakOnly('allowed again (allowed_tools null): callable again after the fan-out (measured)', async () => {
    const took = await putPolicyAndWait(null);
    console.log(`tool policy fan-out: replace_draft back on both keys ${took} ms after the PUT answered`);
    const replaced = await replaceDraft(setUp.onlyA, setUp.a, setUp.formA);
    expect(replaced.isError).toBeFalsy();
    expect(replaced.structuredContent).toEqual({ form_id: setUp.formA, fields: 1 });
  });
});

describe('secrets', () => {
  it('no key or token reaches the service log', () => {
    expect(secrets.size).toBe(3);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
