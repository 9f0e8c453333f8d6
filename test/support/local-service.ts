import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { freePort } from '#infra/local/emulation/dynamodb-local';
import { recordAnswer } from './route-codes.ts';

export interface RunningService {
  url: string;
  process: ChildProcess;
  output: () => string;
  /**
   * PIDs of the DynamoDB Local JVMs the service started. Not every child: under tsx the service
   * also has esbuild's long-lived transform service (`esbuild --service`) as a child.
   */
  dynamoDbLocal: () => number[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const ENTRY = ['--import', 'tsx', 'infra/local/main.ts'];

/**
 * The run's shared DynamoDB Local (test/support/global-setup.ts), as `DYNAMODB_LOCAL_URL`: each
 * service keeps its tables in a database of its own there (its own access key id) instead of
 * starting a JVM per service. A test of the service's own DynamoDB Local passes
 * `OWN_DYNAMODB_LOCAL` (`DYNAMODB_LOCAL_URL: ''`). Outside vitest (`npm run bench`) there is none,
 * and the service starts its own.
 */
function sharedDynamoDbLocal(): Record<string, string> {
  if (!process.env.VITEST) return {};
  const endpoint = inject('dynamoEndpoint');
  return endpoint ? { DYNAMODB_LOCAL_URL: new URL(endpoint).origin } : {};
}

/** For a test of the service's own DynamoDB Local (its JVM, its port, its shutdown). */
export const OWN_DYNAMODB_LOCAL = { DYNAMODB_LOCAL_URL: '' };

/** Starts `npm start`'s entry point as a child process and waits for its banner. */
export async function startService(
  env: Record<string, string>,
  args: string[] = [],
): Promise<RunningService> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [...ENTRY, ...args], {
    env: { ...process.env, HOST: '127.0.0.1', ...sharedDynamoDbLocal(), ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await Promise.race([
    (async () => {
      const deadline = Date.now() + 150_000;
      while (Date.now() < deadline) {
        if (output.includes('ready in')) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    })(),
    exited.then(() => false),
  ]);
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`service did not start:\n${output}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    dynamoDbLocal: () => childrenOf(child.pid ?? -1).filter(runsDynamoDbLocal),
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs a command expecting it to exit by itself (by default `npm start`'s entry point); resolves
 * with its code and its output, stdout and stderr together.
 */
export function runToExit(
  env: Record<string, string>,
  [command, ...args]: string[] = [process.execPath, ...ENTRY],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command ?? process.execPath, args, {
      env: { ...process.env, HOST: '127.0.0.1', ...env },
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** The process's command line from /proc (empty once it ended). */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Whether the process is a JVM running DynamoDB Local's jar. */
const runsDynamoDbLocal = (pid: number): boolean =>
  commandLine(pid).some((arg) => arg.endsWith('DynamoDBLocal.jar'));

/** Child PIDs from /proc (no procps needed on a bare machine). */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces) start after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export interface JsonReply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the service answered
  json: any;
}

/**
 * JSON over HTTP to a running service: `body` is serialised (or `raw` sent as is) with a JSON
 * content type; `token` becomes the bearer.
 */
export function jsonClient(base: () => string) {
  return async (
    method: string,
    path: string,
    init: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonReply> => {
    const payload = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: {
        ...(init.token && { authorization: `Bearer ${init.token}` }),
        ...(payload !== undefined && { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(payload !== undefined && { body: payload }),
    });
    const text = await response.text();
    const json = text ? JSON.parse(text) : undefined;
    recordAnswer(method, path, response.status, json);
    return { status: response.status, headers: response.headers, text, json };
  };
}

/** A dev-issuer token for `sub` (a fresh, verified login) and a workspace they hold `role` in. */
export async function devMember(call: ReturnType<typeof jsonClient>, sub: string, role = 'editor') {
  const token = (await call('POST', '/_dev/token', { body: { sub, email_verified: true } })).json
    .token as string;
  const workspaceId = randomUUID();
  const granted = await call('PUT', `/_dev/memberships/${sub}/${workspaceId}`, { body: { role } });
  if (granted.status !== 200) throw new Error(`membership not granted: ${granted.status}`);
  return { token, workspaceId };
}

/** A `tools/list`, as a script sends it. */
export const LIST_TOOLS = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
/** A `tools/call` of `list_workspaces`, the reference endpoint's tool. */
export const CALL_LIST_WORKSPACES = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'list_workspaces', arguments: {} },
};

/**
 * One MCP request presenting `bearer` (an API key or an access token) to `base`'s /mcp, with
 * `message` (by default a `tools/list`); its status.
 */
export async function presentKey(
  base: string,
  bearer: string,
  message: object = LIST_TOOLS,
): Promise<number> {
  const reply = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
  await reply.body?.cancel();
  return reply.status;
}
