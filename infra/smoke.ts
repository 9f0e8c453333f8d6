/**
 * Post-deployment smoke test: the seed's flow against a running service (a deployment or
 * `npm start`), with the official MCP SDK client. It creates a key, calls `list_workspaces` with
 * it, rotates it, checks that the old key is refused and the new one works, revokes the new key
 * and checks that it is refused. Whatever happens, it revokes every key it created before it
 * exits. It prints each step, never a key or a token, and exits 0 (passed), 1 (a step failed)
 * or 2 (bad arguments).
 *
 *   SMOKE_TOKEN=<user JWT> npm run smoke -- --base-url <url> --workspace <uuid> [--mcp-url <url>]
 *   npm run smoke -- --base-url <url> --token <user JWT> --workspace <uuid>
 *
 * The user JWT must be fresh (login within 15 minutes, verified email: create and rotate need
 * step-up) and its user a member of the workspace with at least the viewer role.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { stringFlags } from './cli-flags.ts';

const USAGE = `usage: npm run smoke -- --base-url <url> --token <user JWT> --workspace <uuid> [--mcp-url <url>]
  --base-url   the management API, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com
  --token      a fresh user JWT (login within 15 minutes, verified email); or set SMOKE_TOKEN
               instead, which keeps it out of the process list and of npm's echo of the command
  --workspace  a workspace the token's user belongs to (viewer or above)
  --mcp-url    the MCP endpoint (default: <base-url>/mcp)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY = /^svc_mcp_v1_[0-9A-Za-z]+$/;
const STEPS = [
  'create a key',
  'list_workspaces over MCP with the key',
  'rotate the key',
  'the old key is refused',
  'the new key works',
  'revoke the new key',
  'the revoked key is refused',
] as const;
const REQUEST_TIMEOUT_MS = 15_000;

interface Options {
  baseUrl: string;
  mcpUrl: string;
  token: string;
  workspace: string;
}

class StepFailure extends Error {}

/** Anything printed goes through here: a key shows as its hint, the token not at all. */
function redactor(token: string) {
  // A token too short to be real is left alone rather than blanking every match in the output.
  return (text: string) =>
    (token.length >= 16 ? text.replaceAll(token, '<token>') : text).replace(
      /svc_mcp_v1_[0-9A-Za-z]+/g,
      (key) => `svc_mcp_v1_…${key.slice(-4)}`,
    );
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | string {
  const values = stringFlags(argv, ['base-url', 'mcp-url', 'token', 'workspace']);
  if (typeof values === 'string') return values;
  const problems: string[] = [];
  const url = (name: string, value: string | undefined): string => {
    let parsed: URL | undefined;
    try {
      parsed = value ? new URL(value) : undefined;
    } catch {
      // reported below
    }
    if (!value) problems.push(`--${name} is required`);
    else if (parsed?.protocol !== 'https:' && parsed?.protocol !== 'http:') {
      problems.push(`--${name} must be an http(s) URL`);
    }
    return (value ?? '').replace(/\/+$/, '');
  };
  const baseUrl = url('base-url', values['base-url']);
  const mcpUrl = values['mcp-url'] ? url('mcp-url', values['mcp-url']) : `${baseUrl}/mcp`;
  const token = values.token ?? env.SMOKE_TOKEN ?? '';
  if (!token) problems.push('--token (or SMOKE_TOKEN) is required');
  const workspace = values.workspace ?? '';
  if (!UUID.test(workspace)) problems.push('--workspace must be a workspace id (a UUID)');
  return problems.length > 0 ? problems.join('\n') : { baseUrl, mcpUrl, token, workspace };
}

/** One call to the management API; `expect` is the status that means success. */
async function callApi(
  options: Options,
  method: string,
  path: string,
  expect: number,
  body?: unknown,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${options.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    throw new StepFailure(`${method} ${path} could not reach the service: ${(err as Error).message}`);
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // not JSON: reported by status below
  }
  if (response.status !== expect) {
    const what = [json.code, json.detail ?? json.message].filter(Boolean).join(': ');
    throw new StepFailure(
      `${method} ${path} answered ${response.status}${what ? ` (${what})` : ''}, expected ${expect}${hint(response.status, json)}`,
    );
  }
  return json;
}

function hint(status: number, body: Record<string, unknown>): string {
  if (body.code === 'reauthentication_required')
    return '; the token is too old for create/rotate: log in again';
  if (body.code === 'email_not_verified') return '; the token’s user must have a verified email';
  if (body.code === 'workspace_access_denied') return '; the token’s user must be a member of --workspace';
  if (status === 401)
    return '; the user token was refused: check --token (expired, wrong issuer or audience)';
  return '';
}

type Workspace = { workspace_id: string; role: string; scopes: string[] };

/** Calls list_workspaces with a key over Streamable HTTP; resolves with the workspaces or the HTTP status that refused it. */
async function listWorkspaces(
  options: Options,
  apiKey: string,
): Promise<{ workspaces: Workspace[] } | { refused: number }> {
  const client = new Client({ name: 'svc-mcp-api-keys-smoke', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
    requestInit: {
      headers: { Authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    },
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
    const workspaces = (result.structuredContent as { workspaces?: Workspace[] } | undefined)?.workspaces;
    if (!Array.isArray(workspaces)) throw new StepFailure('list_workspaces returned no workspaces list');
    return { workspaces };
  } catch (err) {
    // A refused key is 401 (invalid_token) or, where the gateway decides, 403; the SDK carries the status as `code`.
    const code = (err as { code?: unknown }).code;
    if (code === 401 || code === 403) return { refused: code };
    if (err instanceof StepFailure) throw err;
    throw new StepFailure(`MCP call to ${options.mcpUrl} failed: ${(err as Error).message}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Runs the flow; returns the exit code. `print` receives every line (already redacted). */
async function smoke(argv: string[], env: NodeJS.ProcessEnv, print: (line: string) => void) {
  const options = parseOptions(argv, env);
  if (typeof options === 'string') {
    print(`smoke: ${options}\n${USAGE}`);
    return 2;
  }
  const redact = redactor(options.token);
  const say = (line: string) => print(redact(line));
  const started = performance.now();
  /** Keys this run created that may still be active: revoked on the way out, whatever happens. */
  const active = new Set<string>();
  const steps = new Steps(say);

  say(`smoke: ${options.baseUrl} (MCP ${options.mcpUrl})`);
  // Interrupted: still revoke what was created.
  process.once('SIGINT', () => {
    say('smoke: interrupted');
    void revokeAll(options, active, say).finally(() => process.exit(130));
  });
  let code = 0;
  try {
    await flow(options, active, steps);
    say(`smoke: passed (${STEPS.length} steps in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (err) {
    const reason = err instanceof StepFailure ? err.message : `unexpected error: ${(err as Error).message}`;
    say(`${steps.step}/${STEPS.length} ${STEPS[steps.step - 1] ?? ''} FAILED: ${reason}`);
    code = 1;
  }
  code = (await revokeAll(options, active, say)) ? code : 1;
  if (code !== 0) say(`smoke: FAILED at step ${steps.step} (${STEPS[steps.step - 1] ?? 'start'})`);
  return code;
}

/** Runs one step at a time, printing each that passes; `step` is the one running (1-based, 0 before the first). */
class Steps {
  step = 0;

  constructor(private readonly say: (line: string) => void) {}

  async run<T>(name: (typeof STEPS)[number], body: () => Promise<[T, string]>): Promise<T> {
    this.step = STEPS.indexOf(name) + 1;
    const label = `${this.step}/${STEPS.length} ${name}`;
    const [value, detail] = await body();
    this.say(`${label.padEnd(46, ' ')} ok${detail ? `  ${detail}` : ''}`);
    return value;
  }
}

/** The seed's flow, step by step; every key it creates is in `active` until it is revoked or rotated. */
async function flow(options: Options, active: Set<string>, steps: Steps): Promise<void> {
  const first = await steps.run('create a key', async () => {
    const json = await callApi(options, 'POST', '/v1/mcp/api-keys', 201, {
      name: `smoke test ${new Date().toISOString()}`,
      workspace_ids: [options.workspace],
      scopes: ['svc.forms.read'],
      expires_in_days: 1, // should the clean-up fail, the key dies within a day anyway
    });
    const key = created(json);
    active.add(key.id);
    return [key, `id ${key.id}, ${key.key}`];
  });
  await steps.run('list_workspaces over MCP with the key', async () => [
    null,
    await works(options, first.key),
  ]);
  const second = await steps.run('rotate the key', async () => {
    const json = await callApi(options, 'POST', `/v1/mcp/api-keys/${first.id}/rotate`, 201);
    const key = created(json);
    active.add(key.id);
    active.delete(first.id);
    return [key, `id ${key.id}, ${key.key}`];
  });
  await steps.run('the old key is refused', async () => [
    null,
    `answered ${await refused(options, first.key)}`,
  ]);
  await steps.run('the new key works', async () => [null, await works(options, second.key)]);
  await steps.run('revoke the new key', async () => {
    await callApi(options, 'DELETE', `/v1/mcp/api-keys/${second.id}`, 200);
    active.delete(second.id);
    return [null, `id ${second.id}`];
  });
  await steps.run('the revoked key is refused', async () => [
    null,
    `answered ${await refused(options, second.key)}`,
  ]);
}

/** The key and its id from a create or rotate answer. */
function created(json: Record<string, unknown>): { key: string; id: string } {
  const key = json.api_key;
  const id = (json.metadata as { id?: unknown } | undefined)?.id;
  if (typeof key !== 'string' || !KEY.test(key) || typeof id !== 'string') {
    throw new StepFailure('the response has no api_key and metadata.id');
  }
  return { key, id };
}

/** Checks that `key` lists the workspace with svc.forms.read; returns what the step prints. */
async function works(options: Options, key: string): Promise<string> {
  const out = await listWorkspaces(options, key);
  if ('refused' in out) throw new StepFailure(`the key was refused (${out.refused})`);
  const mine = out.workspaces.find((w) => w.workspace_id === options.workspace);
  if (!mine?.scopes.includes('svc.forms.read')) {
    throw new StepFailure(`list_workspaces did not list ${options.workspace} with svc.forms.read`);
  }
  return `${out.workspaces.length} workspace(s), ${options.workspace} as ${mine.role}`;
}

/** Checks that `key` is refused; returns the status that refused it. */
async function refused(options: Options, key: string): Promise<string> {
  const out = await listWorkspaces(options, key);
  if (!('refused' in out)) throw new StepFailure('the key still works');
  return `${out.refused}`;
}

/** Revokes each key (revoke is idempotent); false if one could not be revoked. */
async function revokeAll(options: Options, ids: Set<string>, say: (line: string) => void): Promise<boolean> {
  let ok = true;
  for (const id of [...ids]) {
    try {
      await callApi(options, 'DELETE', `/v1/mcp/api-keys/${id}`, 200);
      ids.delete(id);
      say(`cleanup: revoked key ${id}`);
    } catch (err) {
      say(`cleanup: could not revoke key ${id} (${(err as Error).message}); revoke it by hand`);
      ok = false;
    }
  }
  return ok;
}

process.exitCode = await smoke(process.argv.slice(2), process.env, (line) => console.log(line));
