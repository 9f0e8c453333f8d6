import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '#lib/keys/format';
import { devMember, jsonClient, type RunningService, startService } from '#test/support/local-service';
import { packed, type Ran } from '#test/support/packed';
import { runCommand as run } from '#test/support/run-command';

/**
 * Contract §16's framework integrations, from the packed tarball, in a team's project outside this
 * repository: an MCP server on the official SDK v1's `requireBearerAuth` with `mcpSdkTokenVerifier`,
 * a Hono app with `createMcpKeyGuard` and an Express app with `mcpKeyAuth`
 * (test/package/fixtures/integrations), each verifying against the local service's tables. The
 * project is installed from the tarball the run packed once, and type-checked, in the background
 * from the run's start (test/support/pack-setup.ts; `CONSUMERS.integrations` in
 * test/support/packed.ts links the team's own SDK v1, the package's optional peer, Hono, Express
 * and their types from this repository); this file waits for it.
 */
const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** The pages whose framework examples are type-checked and run, and the folder each is written to. */
const EXAMPLE_PAGES = [
  ['packages/verifier/README.md', 'readme-examples'],
  ['docs/mcp-servers.md', 'docs-examples'],
] as const;
const started = Date.now();
const _exec = promisify(execFile);

let work: string;
let fixture: string;
/** The packing's outcome: the fixture's `tsc -p tsconfig.json` is run in the background once installed. */
let ready: Awaited<ReturnType<typeof packed>>;
/** Each page's examples' `tsc -p tsconfig.json`, started in beforeAll (one after the other) while the apps start. */
const examplesChecked = {} as Record<(typeof EXAMPLE_PAGES)[number][1], Promise<Ran>>;
let service: RunningService;
let apps: ChildProcess | undefined;
/** Each framework's three apps: `live`, `later` (a clock 400 days ahead), `down` (DynamoDB unreachable). */
let ports: Record<Framework, Record<'live' | 'later' | 'down', number>>;
const call = jsonClient(() => service.url);

type Framework = 'sdk' | 'hono' | 'express';
const FRAMEWORKS: Framework[] = ['sdk', 'hono', 'express'];

/** The keys of the run, made through the local service's API. */
const keys = {
  valid: '',
  validId: '',
  revoked: '',
  noAccess: '',
  unknown: generateKey().apiKey,
  expiresAt: '',
};
let user = { id: 'team-integrations-user', workspaceId: '' };

async function createKey(token: string, workspaceId: string, name: string) {
  const created = await call('POST', '/v1/mcp/api-keys', {
    token,
    body: { name, workspace_ids: [workspaceId], scopes: ['svc.forms.read'] },
  });
  if (created.status !== 201) throw new Error(`key not created: ${created.status} ${created.text}`);
  return { apiKey: created.json.api_key as string, id: created.json.metadata.id as string, created };
}

/** The keys every case needs: valid, revoked, and one whose creator lost the workspace. */
async function makeKeys(): Promise<void> {
  const member = await devMember(call, user.id);
  user = { ...user, workspaceId: member.workspaceId };
  const valid = await createKey(member.token, member.workspaceId, 'integrations');
  keys.valid = valid.apiKey;
  keys.validId = valid.id;
  keys.expiresAt = valid.created.json.metadata.expires_at as string;
  const revoked = await createKey(member.token, member.workspaceId, 'revoked');
  if ((await call('DELETE', `/v1/mcp/api-keys/${revoked.id}`, { token: member.token })).status !== 200)
    throw new Error('key not revoked');
  keys.revoked = revoked.apiKey;
  const leaver = await devMember(call, 'team-integrations-leaver');
  keys.noAccess = (await createKey(leaver.token, leaver.workspaceId, 'left')).apiKey;
  const removed = await call('DELETE', `/_dev/memberships/team-integrations-leaver/${leaver.workspaceId}`);
  if (removed.status !== 204) throw new Error(`membership not removed: ${removed.status}`);
}

/** Starts the fixture's nine apps with the local service's verifier options, as they are. */
async function startApps(): Promise<void> {
  // The options the local service hands out for this (GET /_dev/verifier), passed on as they are.
  const handed = await call('GET', '/_dev/verifier');
  if (handed.status !== 200) throw new Error(`no verifier options: ${handed.status}`);
  const options = { verifier: handed.json, issuer: service.url };
  // Nothing of the verifier comes from the environment.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(AWS_|KEYS_|MEMBERSHIPS_|PEPPER_|DYNAMODB_)/.test(name),
    ),
  );
  apps = spawn(process.execPath, ['main.ts', JSON.stringify(options)], {
    cwd: fixture,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  ports = await new Promise((resolve, reject) => {
    let out = '';
    apps?.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening (\{.*\})/.exec(out);
      if (match?.[1]) resolve(JSON.parse(match[1]));
    });
    apps?.once('exit', (code) => reject(new Error(`the apps exited with ${code}`)));
  });
}

/** A page's examples written into a folder of the fixture, then type-checked there (after `after`). */
function checkExamples(page: string, folder: string, after: Promise<unknown>): Promise<Ran> {
  const dir = join(fixture, folder);
  mkdirSync(dir, { recursive: true });
  for (const [file, code] of Object.entries(examplesOf(page))) writeFileSync(join(dir, file), code);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../tsconfig.json', include: ['*.ts'] }),
  );
  return after.then(() => run(dir, process.execPath, [TSC, '-p', 'tsconfig.json']));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-integrations-'));
  const servicePromise = startService({ DATA_DIR: join(work, 'service-data') });
  try {
    ready = await packed();
    fixture = (await ready.installed()).consumer('integrations');
  } finally {
    // Stopped in afterAll even when the packing failed.
    service = await servicePromise;
  }
  let previous: Promise<unknown> = Promise.resolve();
  for (const [page, folder] of EXAMPLE_PAGES) {
    previous = examplesChecked[folder] = checkExamples(page, folder, previous);
  }
  await makeKeys();
  await startApps();
}, 600_000);

afterAll(async () => {
  // Nothing of the file may outlive it: a running app or type-check keeps its worker from exiting.
  const appsExited =
    apps && apps.exitCode === null && apps.signalCode === null ? once(apps, 'exit') : undefined;
  apps?.kill();
  await Promise.all([appsExited, Promise.allSettled(Object.values(examplesChecked))]);
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`integration consumer tests: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
});

const url = (framework: Framework, app: 'live' | 'later' | 'down' = 'live', path = '/mcp') =>
  `http://127.0.0.1:${ports[framework][app]}${path}`;

/** A raw MCP request, as a client sends its first one. */
async function mcpPost(target: string, authorization?: string) {
  const response = await fetch(target, {
    method: 'POST',
    headers: {
      ...(authorization && { authorization }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function listWorkspaces(target: string, apiKey: string) {
  const client = new Client({ name: 'team-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  try {
    const answer = await client.callTool({ name: 'list_workspaces', arguments: {} });
    const [content] = answer.content as { type: string; text: string }[];
    return JSON.parse(content?.text ?? '{}');
  } finally {
    await client.close();
  }
}

const INVALID = 'Bearer realm="svc-mcp", error="invalid_token", error_description=';
const jsonRpc = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

/** One denial: the request's credential and app, and what the client must see. */
interface Denial {
  name: string;
  credential: () => string | undefined;
  app?: 'later' | 'down';
  status: number;
  challenge?: (metadataUrl: string) => string | undefined;
  body: unknown;
}

/** Contract §7's answers, as `createMcpKeyGuard` and `mcpKeyAuth` give them with a resource. */
const guardDenials = (): Denial[] => [
  {
    name: 'missing',
    credential: () => undefined,
    status: 401,
    challenge: (m) => `Bearer realm="svc-mcp", resource_metadata="${m}", scope="svc.forms.read"`,
    body: jsonRpc(-32001, 'An MCP API key is required: send Authorization: Bearer svc_mcp_v1_…'),
  },
  {
    name: 'malformed',
    credential: () => 'Bearer svc_mcp_v1_not-a-key',
    status: 401,
    challenge: (m) => `${INVALID}"The API key is malformed", resource_metadata="${m}"`,
    body: jsonRpc(-32001, 'The API key is malformed; copy it again in full.'),
  },
  {
    name: 'not found',
    credential: () => `Bearer ${keys.unknown}`,
    status: 401,
    challenge: (m) => `${INVALID}"The API key is not valid", resource_metadata="${m}"`,
    body: jsonRpc(-32001, 'The API key is not valid.'),
  },
  {
    name: 'revoked',
    credential: () => `Bearer ${keys.revoked}`,
    status: 401,
    challenge: (m) => `${INVALID}"The API key was revoked", resource_metadata="${m}"`,
    body: jsonRpc(-32001, 'The API key was revoked; create or rotate a key.'),
  },
  {
    name: 'expired',
    credential: () => `Bearer ${keys.valid}`,
    app: 'later',
    status: 401,
    challenge: (m) => `${INVALID}"The API key expired on ${keys.expiresAt}", resource_metadata="${m}"`,
    body: jsonRpc(-32001, `The API key expired on ${keys.expiresAt}; create a new key.`),
  },
  {
    name: 'no access',
    credential: () => `Bearer ${keys.noAccess}`,
    status: 403,
    challenge: () => 'Bearer realm="svc-mcp"',
    body: jsonRpc(-32003, "The key's creator no longer has access to any of its workspaces."),
  },
  {
    name: 'unavailable',
    credential: () => `Bearer ${keys.valid}`,
    app: 'down',
    status: 503,
    body: jsonRpc(-32002, 'The key service is unavailable; retry shortly.'),
  },
];

/** What the SDK's `requireBearerAuth` answers with `mcpSdkTokenVerifier`: its own shapes, §7's sentences. */
const sdkDenials = (): Denial[] => {
  const sdk = (error: string, description: string) => ({ error, error_description: description });
  const challenge = (error: string, description: string) => (m: string) =>
    `Bearer error="${error}", error_description="${description}", resource_metadata="${m}"`;
  const expired = `The API key expired on ${keys.expiresAt}; create a new key.`;
  const revoked = 'The API key was revoked; create or rotate a key.';
  const noAccess = "The key's creator no longer has access to any of its workspaces.";
  return [
    // The SDK refuses a request without a key itself, before asking the verifier.
    {
      name: 'missing',
      credential: () => undefined,
      status: 401,
      challenge: challenge('invalid_token', 'Missing Authorization header'),
      body: sdk('invalid_token', 'Missing Authorization header'),
    },
    {
      name: 'malformed',
      credential: () => 'Bearer svc_mcp_v1_not-a-key',
      status: 401,
      challenge: challenge('invalid_token', 'The API key is malformed; copy it again in full.'),
      body: sdk('invalid_token', 'The API key is malformed; copy it again in full.'),
    },
    {
      name: 'not found',
      credential: () => `Bearer ${keys.unknown}`,
      status: 401,
      challenge: challenge('invalid_token', 'The API key is not valid.'),
      body: sdk('invalid_token', 'The API key is not valid.'),
    },
    {
      name: 'revoked',
      credential: () => `Bearer ${keys.revoked}`,
      status: 401,
      challenge: challenge('invalid_token', revoked),
      body: sdk('invalid_token', revoked),
    },
    {
      name: 'expired',
      credential: () => `Bearer ${keys.valid}`,
      app: 'later',
      status: 401,
      challenge: challenge('invalid_token', expired),
      body: sdk('invalid_token', expired),
    },
    {
      name: 'no access',
      credential: () => `Bearer ${keys.noAccess}`,
      status: 403,
      challenge: challenge('insufficient_scope', noAccess),
      body: sdk('insufficient_scope', noAccess),
    },
    // The SDK has no 503: its ServerError is a 500, with the sentence.
    {
      name: 'unavailable',
      credential: () => `Bearer ${keys.valid}`,
      app: 'down',
      status: 500,
      body: sdk('server_error', 'The key service is unavailable; retry shortly.'),
    },
  ];
};

describe('the integrations in a team’s project, from the tarball', () => {
  it('type-check against the shipped declarations (the guard’s AuthInfo is the SDK’s, the middleware Express’s)', async () => {
    const result = await ready.typecheck('integrations');
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('bring no MCP SDK v1 of their own: requireBearerAuth recognizes the verifier’s errors by their class', () => {
    expect(existsSync(join(fixture, 'node_modules/@modelcontextprotocol/sdk/package.json'))).toBe(true);
    expect(
      existsSync(
        join(fixture, 'node_modules/@svc/mcp-api-keys-verifier/node_modules/@modelcontextprotocol/sdk'),
      ),
    ).toBe(false);
  });
});

describe.each(FRAMEWORKS)('the %s app', (framework) => {
  const metadataUrl = (app: 'live' | 'later' | 'down' = 'live') =>
    url(framework, app, '/.well-known/oauth-protected-resource/mcp');

  it('answers the official client’s list_workspaces with the key’s user and workspaces', async () => {
    expect(await listWorkspaces(url(framework), keys.valid)).toEqual({
      kind: 'api_key',
      user_id: user.id,
      client_id: keys.validId,
      scopes: ['svc.forms.read'],
      expires_at: Math.floor(Date.parse(keys.expiresAt) / 1000),
      resource: url(framework),
      workspaces: [{ workspace_id: user.workspaceId, role: 'editor', scopes: ['svc.forms.read'] }],
    });
  });

  it('answers each denial with its status, challenge and message', async () => {
    const denials = framework === 'sdk' ? sdkDenials() : guardDenials();
    const seen = [];
    for (const denial of denials) {
      const answer = await mcpPost(url(framework, denial.app), denial.credential());
      seen.push({
        name: denial.name,
        status: answer.status,
        challenge: answer.headers.get('www-authenticate') ?? undefined,
        retryAfter: answer.headers.get('retry-after') ?? undefined,
        body: answer.body,
      });
    }
    expect(seen).toEqual(
      denials.map((d) => ({
        name: d.name,
        status: d.status,
        challenge: d.challenge?.(metadataUrl(d.app)),
        // Only the guard and the middleware answer a 503; the SDK's 500 names no retry.
        retryAfter: d.status === 503 ? '2' : undefined,
        body: d.body,
      })),
    );
  });

  it('refuses the official client a revoked key with the message a person can act on', async () => {
    await expect(listWorkspaces(url(framework), keys.revoked)).rejects.toThrow(
      'The API key was revoked; create or rotate a key.',
    );
  });

  it('serves its Protected Resource Metadata at its path and the root form', async () => {
    const paths =
      framework === 'sdk'
        ? ['/.well-known/oauth-protected-resource/mcp']
        : ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'];
    for (const path of paths) {
      const response = await fetch(url(framework, 'live', path));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({
        resource: url(framework),
        authorization_servers: [service.url],
        scopes_supported: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
        bearer_methods_supported: ['header'],
      });
    }
  });
});

/**
 * A page's TypeScript blocks that start with `// <file>.ts`, by file name; a README's `example.ts`
 * (the in-process example, which the docs test runs) is not one of the framework examples.
 */
function examplesOf(page: string): Record<string, string> {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/```ts\n(\/\/ ([\w-]+\.ts)\b[^\n]*\n[\s\S]*?)```/g)]
      .map((m) => [m[2], m[1]])
      .filter(([file]) => file !== 'example.ts'),
  );
}

describe.each(EXAMPLE_PAGES)('the framework examples of %s', (page, folder) => {
  const metadataUrl = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
  const metadata = {
    status: 200,
    body: {
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://keys.example.com'],
      scopes_supported: ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate'],
      bearer_methods_supported: ['header'],
    },
  };
  const guarded = {
    missing: {
      status: 401,
      challenge: `Bearer realm="svc-mcp", resource_metadata="${metadataUrl}", scope="svc.forms.read"`,
      body: jsonRpc(-32001, 'An MCP API key is required: send Authorization: Bearer svc_mcp_v1_…'),
    },
    malformed: {
      status: 401,
      challenge: `${INVALID}"The API key is malformed", resource_metadata="${metadataUrl}"`,
      body: jsonRpc(-32001, 'The API key is malformed; copy it again in full.'),
    },
    metadata,
  };
  const sdk = (description: string) => ({
    status: 401,
    challenge: `Bearer error="invalid_token", error_description="${description}", resource_metadata="${metadataUrl}"`,
    body: { error: 'invalid_token', error_description: description },
  });

  it('type-check against the shipped declarations and run as written', async () => {
    const examples = examplesOf(page);
    expect(Object.keys(examples).sort()).toEqual(['express.ts', 'hono.ts', 'mcp.ts', 'sdk.ts']);
    // Written into the fixture and type-checked from beforeAll (checkExamples), while the apps started.
    const typecheck = await examplesChecked[folder];
    expect(typecheck.output).toBe('');
    // Deployed: the public URL and the key service's issuer set (a local run names its own
    // address, which test/docs/mcp-servers-examples.test.ts checks).
    const ran = await run(fixture, process.execPath, ['examples.ts', folder], {
      PORT: '0',
      MCP_SERVER_URL: 'https://mcp.example.com/mcp',
      OAUTH_ISSUER: 'https://keys.example.com',
    });
    expect(ran.code, ran.output).toBe(0);
    // The examples print their own URLs as they listen; the answers are the line of JSON.
    const answers = ran.stdout.split('\n').find((line) => line.startsWith('{')) ?? '';
    expect(JSON.parse(answers)).toEqual({
      hono: guarded,
      express: guarded,
      sdk: {
        missing: sdk('Missing Authorization header'),
        malformed: sdk('The API key is malformed; copy it again in full.'),
        metadata,
      },
    });
  }, 120_000);
});
