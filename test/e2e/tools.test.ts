import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { assertTerminal, printedJson, runInspector } from '#test/support/person-programs';
import { SecretLedger } from '#test/support/secrets';
import { soakOnly } from '#test/support/soak';
import {
  callHeaders,
  ERAS,
  listedNames,
  rawToolCall,
  type ToolClient,
  withClient,
} from '#test/support/tool-clients';

/**
 * What each AI client may call (contract §19), through `npm start`'s service as people's MCP
 * clients reach it: a key limited to two tools, as the official SDK v2 client (in both protocol
 * eras) and the MCP Inspector CLI show it, and a request whose headers lie about its body. The
 * service runs without OAuth (`OAUTH=off`): a refusal then shows as it is, with no sign-in
 * offered. A workspace policy that leaves a tool out is in test/e2e/tool-policy.test.ts.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-tools-'));
let service: RunningService;
let base: string;
const call = jsonClient(() => base);
const secrets = new SecretLedger();

beforeAll(async () => {
  assertTerminal();
  service = await startService({ DATA_DIR: dataDir, OAUTH: 'off' });
  base = service.url;
});
afterAll(async () => {
  await service?.stop();
});

const READ_WRITE = ['svc.forms.read', 'svc.forms.write'];
const TWO_TOOLS = ['list_forms', 'read_draft'];
/** The sentence the person reads (contract §19), word for word. */
const SENTENCE =
  'This key may not call create_form: its tools are list_forms, read_draft. Its owner can create a key for it.';

/** An editor of one workspace with two keys holding read and write: one limited to `TWO_TOOLS`, one not. */
async function editor() {
  const { token, workspaceId: ws } = await devMember(call, `user-${randomUUID()}`);
  const create = async (tools?: string[]) => {
    const created = await call('POST', '/v1/mcp/api-keys', {
      token,
      body: { name: 'assistant', workspace_ids: [ws], scopes: READ_WRITE, ...(tools && { tools }) },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.metadata.tools).toEqual(tools ?? null);
    secrets.add(token, created.json.api_key);
    return created.json.api_key as string;
  };
  return { ws, limited: await create(TWO_TOOLS), unlimited: await create() };
}

/** The forms of `ws`, as the limited key reads them: what a refused create_form must not have changed. */
async function formsOf(apiKey: string, ws: string) {
  const listed = await rawToolCall(base, apiKey, 'list_forms', { workspace_id: ws });
  expect(listed.status).toBe(200);
  return listed.body.result.structuredContent.forms as { form_id: string; title: string }[];
}

/** The SDK client's error for a call that must be refused. */
function refusal({ client }: ToolClient, name: string, args: Record<string, unknown>) {
  return client.callTool({ name, arguments: args }).then(
    (result) => {
      throw new Error(`the call was not refused: ${JSON.stringify(result)}`);
    },
    (err: unknown) => err as Error & { status?: number },
  );
}

describe('a key limited to list_forms and read_draft, in the official SDK v2 client', () => {
  it.each(ERAS)('tools/list shows exactly the two (%s era)', async (era) => {
    const { limited, unlimited } = await editor();
    expect(await withClient(base, limited, era, ({ client }) => listedNames(client))).toEqual(TWO_TOOLS);
    // The same scopes without a list of its own: every tool read and write allow.
    expect(await withClient(base, unlimited, era, ({ client }) => listedNames(client))).toEqual([
      'list_workspaces',
      'list_forms',
      'read_draft',
      'compile_dsl',
      'validate_definition',
      'create_form',
      'replace_draft',
    ]);
  });

  it('calling create_form, with svc.forms.write held: refused with the sentence, from Mcp-Name by the authorizer and from the body by the server', async () => {
    const { ws, limited, unlimited } = await editor();
    const args = { workspace_id: ws, title: 'Intake' };
    const refusedBy = {} as Record<string, { status?: number; message: string; named: string | null }>;
    for (const era of ERAS) {
      await withClient(base, limited, era, async (connected) => {
        const error = await refusal(connected, 'create_form', args);
        refusedBy[era] = {
          status: error.status,
          message: error.message,
          named: connected.sentNames.at(-1) ?? null,
        };
      });
    }
    for (const era of ERAS) {
      expect(refusedBy[era]?.status, era).toBe(403);
      expect(refusedBy[era]?.message, era).toContain(SENTENCE);
    }
    // A 2026-07-28 client names the tool in a header the key authorizer reads; a 2025 client does
    // not, and the server reads the body.
    expect(refusedBy['2026-07-28']?.named).toBe('create_form');
    expect(refusedBy.legacy?.named).toBeNull();
    expect(await formsOf(limited, ws)).toEqual([]);
    // The key without a list of its own creates it: the list refused it, not the scopes.
    const created = await withClient(base, unlimited, '2026-07-28', ({ client }) =>
      client.callTool({ name: 'create_form', arguments: args }),
    );
    expect(created.isError).toBeFalsy();
    expect(await formsOf(limited, ws)).toEqual([expect.objectContaining({ title: 'Intake' })]);
  });

  it('a request whose Mcp-Name or Mcp-Method lies about its body: 400 with -32020, and the tool never runs', async () => {
    const { ws, limited } = await editor();
    const args = { workspace_id: ws, title: 'Smuggled' };
    // The header names a tool the key may call, so the authorizer lets it through.
    const named = await rawToolCall(base, limited, 'create_form', args, callHeaders('list_forms'));
    expect(named.status).toBe(400);
    expect(named.body.error.code).toBe(-32020);
    expect(named.body.error.message).toContain(
      'the Mcp-Name header names list_forms but the body calls create_form',
    );
    // A method the authorizer checks no tool for.
    const method = await rawToolCall(base, limited, 'create_form', args, { 'mcp-method': 'tools/list' });
    expect(method.status).toBe(400);
    expect(method.body.error.code).toBe(-32020);
    // Headers that repeat the body: the authorizer refuses it from Mcp-Name.
    const honest = await rawToolCall(base, limited, 'create_form', args, callHeaders('create_form'));
    expect(honest.status).toBe(403);
    expect(honest.body.error).toEqual({ code: -32003, message: SENTENCE });
    expect(await formsOf(limited, ws)).toEqual([]);
  });
});

describe('a key limited to list_forms and read_draft, in the MCP Inspector CLI', () => {
  it('--method tools/list shows the two', async () => {
    const { limited } = await editor();
    const shown = await runInspector(`${base}/mcp`, limited, ['--method', 'tools/list']);
    expect(shown.code, shown.output).toBe(0);
    const { tools } = printedJson(shown.output) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(TWO_TOOLS);
  });

  soakOnly(
    '--method tools/call --tool-name create_form: the tool is not on the server, and nothing is created',
    async () => {
      const { ws, limited } = await editor();
      const shown = await runInspector(`${base}/mcp`, limited, [
        '--method',
        'tools/call',
        '--tool-name',
        'create_form',
        '--tool-arg',
        `workspace_id=${ws}`,
        '--tool-arg',
        'title=Intake',
      ]);
      // The Inspector looks the tool up in tools/list before it calls: the key's list hid it.
      expect(shown.output).toContain(
        '{"error":{"code":"tool_not_found","message":"Tool \'create_form\' not found on server."}}',
      );
      expect(shown.output).not.toContain('form_id');
      // Its exit code for a tool error.
      expect(shown.code).toBe(5);
      expect(await formsOf(limited, ws)).toEqual([]);
    },
  );
});

describe('secrets', () => {
  it('no key or token reaches the service log', () => {
    expect(secrets.size).toBeGreaterThan(4);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
