import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { assertTerminal, runInspector } from '#test/support/person-programs';
import { SecretLedger } from '#test/support/secrets';
import {
  callHeaders,
  connectClient,
  connectRefusals,
  rawToolCall,
  type ToolClient,
  withClient,
} from '#test/support/tool-clients';

/**
 * How often each AI client may call (contract §19), through `npm start`'s service: a key's own
 * limit of 5 calls a minute, met by the official SDK v2 client and by a script at the key
 * authorizer (a Deny: 403 with JSON-RPC -32003 and the sentence, since API Gateway fixes its
 * status), and the key answered again once the minute is over; a workspace policy's cap of 3 calls
 * a day reaching a key without limits of its own through the fan-out, and what the SDK client and
 * the MCP Inspector CLI show of its refusal; and the refusals in each key's usage. The service's
 * clock is moved (`LOCAL_CLOCK_OFFSET_SECONDS`) so that its UTC minute ends about 15 s after the
 * tests begin, and a new window is a short wait. Usage counts are written with the next
 * verification (`LOCAL_USAGE_WRITE_SECONDS=0`), or by the local timer a second later. At a server
 * that verifies keys itself (429 with `Retry-After`): test/package/limits-clients.test.ts.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-limits-'));
let service: RunningService;
let base: string;
const call = jsonClient(() => base);
const secrets = new SecretLedger();

/** How long the service takes to start and the tests to set up, as measured here (2-5 s), with room. */
const STARTUP_ALLOWANCE_S = 6;
/** Seconds left in the service's minute when the tests begin. */
const LEAD_S = 15;
/** A burst of calls that must all fall in one minute needs at least this much of it left. */
const ROOM_S = 5;
/** How long a policy may take to reach the credentials here (contract §12 allows 60 s for 10,000 keys). */
const FAN_OUT_BOUND_MS = 15_000;

/** Seconds the service's clock runs ahead of this machine's: its minute ends LEAD_S after startup. */
function clockOffsetSeconds(): number {
  const begins = Date.now() + STARTUP_ALLOWANCE_S * 1000 + LEAD_S * 1000;
  return (60 - (Math.floor(begins / 1000) % 60)) % 60;
}
const offsetS = clockOffsetSeconds();
/** The service's clock (the same machine's, moved), in milliseconds. */
const serviceNow = () => Date.now() + offsetS * 1000;
const minuteEndOf = (ms: number) => Math.floor(ms / 60_000) * 60_000 + 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  assertTerminal();
  service = await startService({
    DATA_DIR: dataDir,
    OAUTH: 'off',
    LOCAL_CLOCK_OFFSET_SECONDS: String(offsetS),
    LOCAL_USAGE_WRITE_SECONDS: '0',
  });
  base = service.url;
});
afterAll(async () => {
  await service?.stop();
});

/** A key of a fresh editor (or administrator) of one workspace, holding svc.forms.read. */
async function member(role: 'editor' | 'admin', limits?: { per_minute?: number; per_day?: number }) {
  const { token, workspaceId: ws } = await devMember(call, `${role}-${randomUUID()}`, role);
  const created = await call('POST', '/v1/mcp/api-keys', {
    token,
    body: { name: 'assistant', workspace_ids: [ws], scopes: ['svc.forms.read'], ...(limits && { limits }) },
  });
  expect(created.status, created.text).toBe(201);
  secrets.add(token, created.json.api_key);
  return { token, ws, apiKey: created.json.api_key as string, id: created.json.metadata.id as string };
}

/** The key's `effective_limits` as its owner's list shows them. */
async function effectiveLimits(token: string, id: string) {
  const listed = await call('GET', '/v1/mcp/api-keys', { token });
  expect(listed.status, listed.text).toBe(200);
  return listed.json.data.find((k: { id: string }) => k.id === id)?.effective_limits;
}

/** The key's refusals for a limit in its usage, waiting for them to be written (a second at most here). */
async function expectRateLimitedInUsage(token: string, id: string, refused: number, calls: number) {
  await expect
    .poll(async () => {
      const usage = await call('GET', `/v1/mcp/api-keys/${id}/usage`, { token });
      expect(usage.status, usage.text).toBe(200);
      return { calls: usage.json.total.calls, rate_limited: usage.json.total.refused.rate_limited };
    })
    .toEqual({ calls, rate_limited: refused });
}

/** Waits, when the service's minute has less than ROOM_S left, for the next one; the seconds left. */
async function roomInMinute(): Promise<number> {
  const left = minuteEndOf(serviceNow()) - serviceNow();
  if (left < ROOM_S * 1000) await sleep(left + 100);
  return Math.round((minuteEndOf(serviceNow()) - serviceNow()) / 1000);
}

/** A script's `tools/call` of list_workspaces, with the headers of a 2026-07-28 client. */
const listWorkspaces = (apiKey: string) =>
  rawToolCall(base, apiKey, 'list_workspaces', {}, callHeaders('list_workspaces'));

/** Calls list_workspaces until a call is refused (at most 8 times); the refusal. */
async function callUntilRefused({ client }: ToolClient) {
  for (let i = 0; i < 8; i++) {
    const refused = await client.callTool({ name: 'list_workspaces', arguments: {} }).then(
      (result) => {
        expect(result.isError).toBeFalsy();
        return undefined;
      },
      (err: Error & { status?: number }) => err,
    );
    if (refused) return refused;
  }
  throw new Error('no call was refused');
}

/** Calls until one is answered, every 500 ms; the service's clock when each call was sent, and its status. */
async function pollUntilAnswered(apiKey: string, end: number) {
  const polls: { sent: number; status: number }[] = [];
  await expect
    .poll(
      async () => {
        const sent = serviceNow();
        const { status } = await listWorkspaces(apiKey);
        polls.push({ sent, status });
        return status;
      },
      { timeout: end - serviceNow() + 15_000, interval: 500 },
    )
    .toBe(200);
  return polls;
}

/** The body of the key authorizer's Deny: JSON-RPC -32003 with the sentence. */
const denied = (message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32003, message } });

/**
 * The per-minute sentence of a refusal made between `before` and `after` (the service's clock):
 * the minute's end, and the seconds to it as the service counted them, read from `shown` (what a
 * client shows of it).
 */
function minuteSentence(shown: string, before: number, after: number): string {
  const end = minuteEndOf(before);
  expect(minuteEndOf(after), 'the refusal fell in one minute').toBe(end);
  const seconds = Number(/, in (\d+) s\./.exec(shown)?.[1]);
  expect(seconds).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((end - after) / 1000)));
  expect(seconds).toBeLessThanOrEqual(Math.ceil((end - before) / 1000));
  const at = new Date(end).toISOString().slice(11, 16);
  return `This key made its 5 calls for this minute, the limit its owner set; it can call again at ${at} UTC, in ${seconds} s.`;
}

/**
 * What a person's clients show when their first request is refused with `body`: the SDK v2
 * client's default mode sends initialize first, and its message carries the body; in its other
 * modes the first request is a version probe, whose refusal it words itself, keeping the body in
 * `data.text`. The MCP Inspector CLI prints the body.
 */
async function expectClientsShow(apiKey: string, body: string) {
  const probeRefused = {
    message: 'Version negotiation failed: the server denied access (HTTP 403)',
    status: 403,
    text: body,
    statuses: [403],
  };
  const shownAtConnect = await connectRefusals(`${base}/mcp`, apiKey);
  console.log(`limits: the SDK v2 client at connect: ${JSON.stringify(shownAtConnect, null, 2)}`);
  expect(shownAtConnect).toEqual({
    legacy: { message: `Error POSTing to endpoint: ${body}`, status: 403, text: body, statuses: [403] },
    auto: probeRefused,
    'pin 2026-07-28': probeRefused,
  });
  const shown = await runInspector(`${base}/mcp`, apiKey, ['--method', 'tools/list']);
  console.log(`limits: the Inspector printed (exit ${shown.code}):\n${shown.output.trim()}`);
  // A 403 is `auth_required` to the Inspector, whatever its reason: the sentence follows.
  expect(shown.output.trim()).toBe(
    JSON.stringify({
      error: { code: 'auth_required', message: `Error POSTing to endpoint: ${body}`, status: 403 },
    }),
  );
  expect(shown.code).toBe(3);
}

describe('a key limited to 5 calls a minute', () => {
  it('answers 5 requests of the official SDK v2 client, refuses the 6th with 403, -32003 and the sentence, and answers again in the next minute', async () => {
    const key = await member('editor', { per_minute: 5 });
    expect(await effectiveLimits(key.token, key.id)).toEqual([
      { window: 'minute', limit: 5, by: 'credential', calls: 0 },
    ]);
    console.log(`limits: ${await roomInMinute()} s left in the service's minute (clock offset ${offsetS} s)`);
    const before = serviceNow();
    // Connecting is a request too (a 2026-07-28 client's server/discover): every request counts.
    const connected = await connectClient(base, key.apiKey, '2026-07-28');
    const error = await callUntilRefused(connected);
    await connected.client.close();
    // A script's request, over the limit too.
    const raw = await listWorkspaces(key.apiKey);
    const after = serviceNow();

    expect(connected.statuses).toEqual([200, 200, 200, 200, 200, 403]);
    const sentence = minuteSentence(raw.body?.error?.message ?? '', before, after);
    expect(raw.status).toBe(403);
    expect(raw.body).toEqual(denied(sentence));
    // API Gateway's ACCESS_DENIED: its own challenge, and no Retry-After (the sentence says when).
    expect(raw.headers.get('www-authenticate')).toBe('Bearer realm="svc-mcp"');
    expect(raw.headers.get('retry-after')).toBeNull();
    expect(error.status).toBe(403);
    const sdkSentence = minuteSentence(error.message, before, after);
    expect(error.message).toBe(`Error POSTing to endpoint: ${JSON.stringify(denied(sdkSentence))}`);

    // Refused until the service's minute is over, answered from its first moment on.
    const end = minuteEndOf(before);
    const polls = await pollUntilAnswered(key.apiKey, end);
    const refusedPolls = polls.filter((p) => p.status === 403);
    expect(refusedPolls.every((p) => p.sent < end)).toBe(true);
    expect(serviceNow()).toBeGreaterThanOrEqual(end);
    console.log(`limits: answered again ${serviceNow() - end} ms after the minute ended`);
    const again = await withClient(base, key.apiKey, '2026-07-28', ({ client }) =>
      client.callTool({ name: 'list_workspaces', arguments: {} }),
    );
    expect(again.isError).toBeFalsy();
    expect(JSON.stringify(again.structuredContent)).toContain(key.ws);

    // Usage: the SDK client's refusal, the script's and the polls', none counted against the limit.
    const refusals = 2 + refusedPolls.length;
    await expectRateLimitedInUsage(key.token, key.id, refusals, 5 + refusals + 1 + 2);
  }, 120_000);
});

describe('a workspace policy of 3 calls a day', () => {
  it('caps a key without limits of its own once the fan-out wrote it: its 4th call is refused with the policy’s sentence', async () => {
    const key = await member('admin');
    expect(await effectiveLimits(key.token, key.id)).toEqual([]);
    const put = await call('PUT', `/v1/mcp/workspaces/${key.ws}/policy`, {
      token: key.token,
      body: {
        mcp_access: 'enabled',
        allowed_scopes: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
        max_expiry_days: null,
        max_calls_per_day: 3,
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.max_calls_per_day).toBe(3);
    const answered = performance.now();
    await expect
      .poll(() => effectiveLimits(key.token, key.id), { timeout: FAN_OUT_BOUND_MS, interval: 100 })
      .toEqual([{ window: 'day', limit: 3, by: 'policy', workspace_id: key.ws, calls: 0 }]);
    console.log(
      `limits: the day cap reached the key ${Math.round(performance.now() - answered)} ms after the PUT answered`,
    );

    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await listWorkspaces(key.apiKey)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const fourth = await listWorkspaces(key.apiKey);
    const sentence = `This key made its 3 calls for today, the limit the policy of workspace ${key.ws} sets; it can call again at 00:00 UTC.`;
    expect(fourth.status).toBe(403);
    expect(fourth.body).toEqual(denied(sentence));
    expect(fourth.headers.get('retry-after')).toBeNull();
    await expectRateLimitedInUsage(key.token, key.id, 1, 4);

    await expectClientsShow(key.apiKey, JSON.stringify(denied(sentence)));
  }, 60_000);
});

describe('secrets', () => {
  it('no key or token reaches the service log', () => {
    expect(secrets.size).toBe(4);
    expect(secrets.leaksIn(service.output())).toEqual([]);
  });
});
