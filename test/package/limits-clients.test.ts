import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { packed } from '#test/support/packed';
import { assertTerminal, runInspector } from '#test/support/person-programs';
import { soakOnly } from '#test/support/soak';
import { connectRefusals, sdkClient, shownBy } from '#test/support/tool-clients';

/**
 * What people's MCP clients show for a key over its limit at a team's own MCP server (contract
 * §19). The server (test/package/fixtures/integrations/limits.ts, in the integrations project the
 * run installed from the packed tarball) guards each request with `createMcpKeyGuard`, whose
 * verifier counts each limited key's calls itself and answers a call over the limit with 429,
 * `Retry-After` (the whole seconds to the window's end) and JSON-RPC -32004 with the sentence.
 * The official SDK v2 client, in each of its version negotiation modes, and the MCP Inspector CLI,
 * run as a person runs it, meet that answer: what each shows is asserted word for word, as
 * docs/using-keys.md quotes it. The keys come from the local service, whose tables the server's
 * verifier reads and writes.
 */

let work: string;
let service: RunningService;
let server: ChildProcess | undefined;
/** The team's MCP endpoint. */
let mcpUrl: string;
let ready: Awaited<ReturnType<typeof packed>>;
const call = jsonClient(() => service.url);
const editor = { token: '', ws: '' };

/** Starts the fixture's server with the local service's verifier options, as they are; its URL. */
async function startServer(fixture: string): Promise<string> {
  const handed = await call('GET', '/_dev/verifier');
  if (handed.status !== 200) throw new Error(`no verifier options: ${handed.status}`);
  // Nothing of the verifier comes from the environment.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(AWS_|KEYS_|MEMBERSHIPS_|PEPPER_|DYNAMODB_)/.test(name),
    ),
  );
  server = spawn(process.execPath, ['limits.ts', JSON.stringify(handed.json)], {
    cwd: fixture,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    server?.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening (\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    server?.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

beforeAll(async () => {
  assertTerminal();
  work = mkdtempSync(join(tmpdir(), 'svc-limits-clients-'));
  const servicePromise = startService({ DATA_DIR: join(work, 'service-data'), OAUTH: 'off' });
  let fixture: string;
  try {
    ready = await packed();
    fixture = (await ready.installed()).consumer('integrations');
  } finally {
    // Stopped in afterAll even when the packing failed.
    service = await servicePromise;
  }
  const member = await devMember(call, 'team-limits-user');
  Object.assign(editor, { token: member.token, ws: member.workspaceId });
  mcpUrl = await startServer(fixture);
}, 600_000);

afterAll(async () => {
  server?.kill();
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A key of the editor's with `limits`. */
async function limitedKey(limits: { per_minute?: number; per_day?: number }): Promise<string> {
  const created = await call('POST', '/v1/mcp/api-keys', {
    token: editor.token,
    body: { name: 'team', workspace_ids: [editor.ws], scopes: ['svc.forms.read'], limits },
  });
  if (created.status !== 201) throw new Error(`key not created: ${created.status} ${created.text}`);
  return created.json.api_key as string;
}

/** A script's `tools/list` at the team's server: its status, `Retry-After`, challenge and body. */
async function listTools(apiKey: string) {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    challenge: response.headers.get('www-authenticate'),
    body: JSON.parse(await response.text()),
  };
}

/** A key with a limit of `perDay` calls a day, all made: over its limit until midnight UTC. */
async function spentForToday(perDay: number): Promise<string> {
  const apiKey = await limitedKey({ per_day: perDay });
  for (let i = 0; i < perDay; i++) expect((await listTools(apiKey)).status).toBe(200);
  return apiKey;
}

const daySentence = (limit: number) =>
  `This key made its ${limit} calls for today, the limit its owner set; it can call again at 00:00 UTC.`;
/** The guard's body for a call over a limit. */
const body = (sentence: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32004, message: sentence } });
const nextMidnight = (ms: number) => Math.floor(ms / 86_400_000) * 86_400_000 + 86_400_000;
const minuteEndOf = (ms: number) => Math.floor(ms / 60_000) * 60_000 + 60_000;

/** Waits, when the current UTC minute has less than `seconds` left, for the next one. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = minuteEndOf(Date.now()) - Date.now();
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 100));
}

/** Whole seconds in the Inspector's way of writing a wait (`13h03m`, `2m05s`, `17s`). */
function secondsOf(duration: string): number {
  const [, h, m, s] = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration) ?? [];
  return Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
}

const ENDPOINT_ERROR = 'Error POSTing to endpoint: ';

/**
 * What the MCP Inspector CLI prints for a 429 on its first request, checked whole: one line of
 * JSON, `Rate limited by the server (HTTP 429) on initialize. The server asked to retry after
 * <wait>.` then the SDK's message with the body, and exit code 1; the sentence it carried and the
 * wait in seconds.
 */
async function inspectorOver(apiKey: string) {
  const shown = await runInspector(mcpUrl, apiKey, ['--method', 'tools/list']);
  const printed = shown.output.trim();
  console.log(`limits at a team's server, the Inspector printed (exit ${shown.code}):\n${printed}`);
  const wait = /asked to retry after ([0-9hms]+)\./.exec(printed)?.[1] ?? '';
  const cause = String(JSON.parse(printed).error?.cause);
  const sentence = String(JSON.parse(cause.slice(ENDPOINT_ERROR.length)).error?.message);
  const sdk = `${ENDPOINT_ERROR}${body(sentence)}`;
  expect(printed).toBe(
    JSON.stringify({
      error: {
        code: 'error',
        message: `Rate limited by the server (HTTP 429) on initialize. The server asked to retry after ${wait}. ${sdk}`,
        cause: sdk,
        status: 429,
      },
    }),
  );
  expect(shown.code).toBe(1);
  return { sentence, waitSeconds: secondsOf(wait) };
}

describe('a key over its limit at a team’s server guarded by createMcpKeyGuard', () => {
  it('the server type-checks against the shipped declarations (the project’s type-check)', async () => {
    const typecheck = await ready.typecheck('integrations');
    expect(typecheck.output.split('\n').filter((line) => line.includes('limits.ts'))).toEqual([]);
  });

  it('2 calls a day: the 3rd is 429 with Retry-After, the seconds to midnight UTC, and -32004 with the sentence', async () => {
    const apiKey = await spentForToday(2);
    const before = Date.now();
    const refused = await listTools(apiKey);
    const after = Date.now();
    expect(refused.status).toBe(429);
    expect(JSON.stringify(refused.body)).toBe(body(daySentence(2)));
    // No challenge: the key is valid, and a client must not start signing in again.
    expect(refused.challenge).toBeNull();
    const retryAfter = Number(refused.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((nextMidnight(before) - after) / 1000)));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((nextMidnight(before) - before) / 1000));
    // Refused calls do not count: still refused, not counted further.
    expect((await listTools(apiKey)).status).toBe(429);
  });

  soakOnly(
    '1 call a minute: Retry-After is the sentence’s seconds to the minute’s end, and the Inspector says that wait',
    async () => {
      await roomInMinute(15);
      const apiKey = await limitedKey({ per_minute: 1 });
      expect((await listTools(apiKey)).status).toBe(200);
      const before = Date.now();
      const refused = await listTools(apiKey);
      expect(refused.status).toBe(429);
      const end = minuteEndOf(before);
      const seconds = Number(refused.retryAfter);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(Math.ceil((end - before) / 1000));
      const at = new Date(end).toISOString().slice(11, 16);
      const sentence = `This key made its 1 call for this minute, the limit its owner set; it can call again at ${at} UTC, in ${seconds} s.`;
      expect(JSON.stringify(refused.body)).toBe(body(sentence));
      // The Inspector, a few seconds later: the same sentence, counting down, and the same wait.
      const shown = await inspectorOver(apiKey);
      const later = Number(/, in (\d+) s\.$/.exec(shown.sentence)?.[1]);
      expect(shown.sentence).toBe(sentence.replace(/in \d+ s\.$/, `in ${later} s.`));
      expect(later).toBeLessThanOrEqual(seconds);
      expect(Math.abs(shown.waitSeconds - later)).toBeLessThanOrEqual(1);
    },
  );
});

describe('what people’s MCP clients show of it', () => {
  it('the official SDK v2 client, refused at connect: the sentence in its legacy (default) and auto modes, none pinned to 2026-07-28', async () => {
    const apiKey = await spentForToday(2);
    const shown = await connectRefusals(mcpUrl, apiKey);
    console.log(`limits at a team's server, the SDK v2 client's errors: ${JSON.stringify(shown, null, 2)}`);
    const text = body(daySentence(2));
    const sdk = `${ENDPOINT_ERROR}${text}`;
    expect(shown).toEqual({
      legacy: { message: sdk, status: 429, text, statuses: [429] },
      // Its server/discover probe refused, it falls back to initialize, refused too.
      auto: { message: sdk, status: 429, text, statuses: [429, 429] },
      // Its probe's 429 reads as a server without the 2026-07-28 revision: status and sentence are lost.
      'pin 2026-07-28': {
        message:
          'Version negotiation failed: the server did not offer pinned protocol version 2026-07-28 via server/discover (no fallback in pin mode)',
        statuses: [429],
      },
    });
  });

  soakOnly(
    'the official SDK v2 client, refused mid-session: the call rejects with the sentence, not retried',
    async () => {
      const apiKey = await limitedKey({ per_day: 5 });
      const { client, statuses, connected } = sdkClient(mcpUrl, apiKey, 'legacy');
      await connected;
      let refused: unknown;
      for (let i = 0; i < 8 && !refused; i++)
        refused = await client.callTool({ name: 'list_workspaces', arguments: {} }).then(
          () => undefined,
          (err: unknown) => err,
        );
      await client.close();
      const text = body(daySentence(5));
      expect(shownBy(refused)).toEqual({ message: `${ENDPOINT_ERROR}${text}`, status: 429, text });
      // Five requests answered (initialize and its notification, the stream's GET, the calls), one 429.
      expect(statuses.filter((s) => s !== 429)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toEqual([429]);
    },
  );

  it('the MCP Inspector CLI prints the 429, the wait the server asked for and the sentence', async () => {
    const apiKey = await spentForToday(2);
    const before = Date.now();
    const shown = await inspectorOver(apiKey);
    expect(shown.sentence).toBe(daySentence(2));
    // In hours and minutes: the wait to midnight UTC, to the minute.
    expect(Math.abs(shown.waitSeconds - (nextMidnight(before) - before) / 1000)).toBeLessThanOrEqual(90);
  });
});
