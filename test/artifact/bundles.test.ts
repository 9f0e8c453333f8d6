/**
 * What ships is what is tested (contract §14): the app is synthesized once, and every Lambda
 * function of both templates is loaded from its bundle in cdk.out as Lambda loads it (handler
 * string, module format as bundled, Node 24, the template's environment) and invoked with real
 * events against DynamoDB Local and stand-ins for KMS and EventBridge. Every AWS call it makes is
 * then checked against its role's policy from the template (test/artifact/iam.test.ts). The bundles
 * are the published CDK package's prebuilt ones, built first (`bundleEveryFunction`): a synth from
 * the repository bundles the same bytes (test/infra/bundles.test.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Deployment } from './support/deployment.ts';
import {
  authorizerEvents,
  githubAlert,
  lambdaStreamRecord,
  managementEvent,
  matchesPattern,
  mcpEvent,
  oauthEvent,
  publicEvent,
  readStream,
  scheduleEvent,
} from './support/events.ts';
import type { Trigger } from './support/functions.ts';
import { exerciseIam, type IamReport } from './support/iam-report.ts';

/** Where the bundles go: the app takes its functions from there, as the published package does. */
const prebuilt = vi.hoisted(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  return mkdtempSync(join(tmpdir(), 'svc-artifact-functions-'));
});
vi.mock('#infra/constructs/prebuilt', async () => ({ PREBUILT_FUNCTIONS_DIR: await prebuilt }));

const prebuiltDir = await prebuilt;
let d: Deployment;
const invoked = new Set<string>();
const routesRun = new Set<string>();

beforeAll(async () => {
  // The tier's files share their workers' modules: the app's constructs are loaded afresh, with
  // the bundles' directory above, whatever another file loaded before.
  vi.resetModules();
  const { bundleEveryFunction, deploy } = await import('./support/deployment.ts');
  await bundleEveryFunction(prebuiltDir);
  d = await deploy(inject('dynamoEndpoint'));
}, 240_000);
afterAll(async () => {
  await d?.stop();
  rmSync(prebuiltDir, { recursive: true, force: true });
  // The next file of this worker loads the constructs as they are, without the directory.
  vi.doUnmock('#infra/constructs/prebuilt');
  vi.resetModules();
});

it('runs the prebuilt bundles: every function’s code is one of them, byte for byte', () => {
  const bundles = new Set(
    readdirSync(prebuiltDir).map((name) => readFileSync(join(prebuiltDir, name, 'index.mjs'), 'utf8')),
  );
  expect(d.functions.length).toBe(bundles.size);
  for (const fn of d.functions)
    expect(bundles.has(readFileSync(join(fn.codeDir, 'index.mjs'), 'utf8')), fn.logicalId).toBe(true);
});

const triggered = (match: (t: Trigger) => boolean) => {
  const fns = d.functions.filter((f) => f.triggers.some(match));
  expect(fns, 'functions with this trigger in the templates').toHaveLength(1);
  return fns[0] as Deployment['functions'][number];
};

/** Invokes a function's environment; a thrown error or an init failure fails the test. */
async function invoke(match: (t: Trigger) => boolean, event: unknown) {
  const fn = triggered(match);
  const env = d.environments.get(fn.logicalId);
  if (!env) throw new Error(`no environment for ${fn.logicalId}`);
  const out = await env.invoke(event);
  invoked.add(fn.logicalId);
  if (out.error)
    throw new Error(`${fn.logicalId}: ${out.error.errorType}: ${out.error.errorMessage}\n${env.output()}`);
  return out.result;
}

/** A stream consumer: the publisher (key events and more) or the policy fan-out (no key events). */
const isStream = (consumer: 'publisher' | 'fan-out') => (t: Trigger) =>
  t.kind === 'stream' && JSON.stringify(t.filters).includes('"LINEAGE#"') === (consumer === 'publisher');

/**
 * Invokes a stream consumer with every record of the keys table's stream its filters pass, read
 * as its event source mapping reads it: by the mapping's stream ARN, signed as the function.
 */
async function streamBatch(consumer: 'publisher' | 'fan-out') {
  const fn = triggered(isStream(consumer));
  const env = d.environments.get(fn.logicalId);
  const trigger = fn.triggers.find(isStream(consumer)) as Extract<Trigger, { kind: 'stream' }>;
  const stack = d.templates.find((t) => Object.keys(t.Resources).includes(fn.logicalId));
  const mapping = Object.values(stack?.Resources ?? {}).find(
    (r) =>
      r.Type === 'AWS::Lambda::EventSourceMapping' &&
      JSON.stringify(r.Properties.FunctionName).includes(fn.logicalId),
  );
  const streamArn = d.resolver.resolve(stack as never, mapping?.Properties.EventSourceArn) as string;
  const tableName = /table\/([^/]+)\/stream/.exec(streamArn)?.[1] as string;
  // Signed as the function, through the recorder, at DynamoDB Local's name for that stream.
  const local = (await d.db.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn;
  const batch = await readStream(d.proxyEndpoint(env?.accessKeyId as string), local as string);
  const records = batch
    .map((r) => lambdaStreamRecord(r, streamArn))
    .filter((r) => trigger.filters.length === 0 || trigger.filters.some((f) => matchesPattern(r, f)));
  const out = await invoke(isStream(consumer), { Records: records });
  return { records, out };
}

async function route(routeKey: string, event: unknown) {
  routesRun.add(routeKey);
  const reply = await invoke((t) => t.kind === 'http-route' && t.routeKey === routeKey, event);
  return { status: reply.statusCode as number, body: reply.body ? JSON.parse(reply.body) : undefined, reply };
}

const user = `user-${crypto.randomUUID()}`;
// Three workspaces: the key authorizer reads a key with this many by Query (lib/keys/rules.ts).
const workspaces = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
type Issued = { api_key: string; metadata: { id: string } };
let key: Issued;
/** The key PATCHed to a limit: its verifications write its counters. */
let limited: Issued;
let authorizerContext: Record<string, string>;
/** The OAuth tokens the suite was issued: no log may hold them. */
const oauthSecrets: string[] = [];

/** A new key of the suite's user, through the create function. */
async function createKey(body: Record<string, unknown> = {}): Promise<Issued> {
  const created = await route(
    'POST /v1/mcp/api-keys',
    managementEvent('POST /v1/mcp/api-keys', user, {
      body: { name: 'artifact', workspace_ids: workspaces, scopes: ['svc.forms.read'], ...body },
    }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe('the bundles in cdk.out, invoked as Lambda invokes them', () => {
  it('every function of both templates is on Node 24, has a trigger, and loaded from its bundle', () => {
    expect(d.functions.length).toBeGreaterThanOrEqual(2);
    for (const fn of d.functions) {
      expect(fn.runtime, fn.logicalId).toBe('nodejs24.x');
      expect(fn.triggers.length, `${fn.logicalId} has no trigger in the template`).toBeGreaterThan(0);
      expect(d.environments.get(fn.logicalId)?.initMs, fn.logicalId).toBeGreaterThan(0);
    }
  });

  it('creates, lists and rotates a key through the management functions (payload 2.0)', async () => {
    const create = d.functions.find((f) =>
      f.triggers.some((t) => t.kind === 'http-route' && t.routeKey === 'POST /v1/mcp/api-keys'),
    );
    for (const workspace of workspaces) {
      await d.db.send(
        new PutItemCommand({
          TableName: create?.environment.MEMBERSHIPS_TABLE_NAME,
          Item: { pk: { S: user }, sk: { S: workspace }, role: { S: 'editor' } },
        }),
      );
    }
    const created = { body: await createKey() };
    // Two keys, one per page: the second page's cursor is MAC'd with a key derived from the pepper.
    const second = await createKey();
    const page = (cursor?: string) =>
      route(
        'GET /v1/mcp/api-keys',
        managementEvent('GET /v1/mcp/api-keys', user, { query: { limit: '1', ...(cursor && { cursor }) } }),
      );
    const first = await page();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const next = await page(first.body.next_cursor);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect([...first.body.data, ...next.body.data].map((k: { id: string }) => k.id).sort()).toEqual(
      [created.body.metadata.id, second.metadata.id].sort(),
    );
    // The catalogue, and a PATCH that limits the second key to one tool and 1,000 calls a day (contract §19).
    const catalogue = await route('GET /v1/mcp/tools', managementEvent('GET /v1/mcp/tools', user));
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    expect(catalogue.body.data.map((t: { name: string }) => t.name)).toContain('list_forms');
    const narrowed = await route(
      'PATCH /v1/mcp/api-keys/{key_id}',
      managementEvent('PATCH /v1/mcp/api-keys/{key_id}', user, {
        params: { key_id: second.metadata.id },
        body: { tools: ['list_workspaces', 'list_forms'], limits: { per_day: 1000 } },
      }),
    );
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    expect(narrowed.body.metadata).toMatchObject({
      tools: ['list_workspaces', 'list_forms'],
      limits: { per_day: 1000 },
    });
    limited = second;
    const rotated = await route(
      'POST /v1/mcp/api-keys/{key_id}/rotate',
      managementEvent('POST /v1/mcp/api-keys/{key_id}/rotate', user, {
        params: { key_id: created.body.metadata.id },
      }),
    );
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
    key = rotated.body;
    const history = (cursor?: string) =>
      route(
        'GET /v1/mcp/api-keys/{key_id}/events',
        managementEvent('GET /v1/mcp/api-keys/{key_id}/events', user, {
          params: { key_id: key.metadata.id },
          query: { limit: '1', ...(cursor && { cursor }) },
        }),
      );
    const newest = await history();
    expect(newest.status, JSON.stringify(newest.body)).toBe(200);
    const older = await history(newest.body.next_cursor);
    expect(older.status, JSON.stringify(older.body)).toBe(200);
    expect([...newest.body.data, ...older.body.data].map((e: { type: string }) => e.type)).toContain(
      'key.created',
    );
    // Its usage (contract §18): every day bucket of the default range, none counted yet.
    const usage = await route(
      'GET /v1/mcp/api-keys/{key_id}/usage',
      managementEvent('GET /v1/mcp/api-keys/{key_id}/usage', user, { params: { key_id: key.metadata.id } }),
    );
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body).toMatchObject({ credential_id: key.metadata.id, granularity: 'day' });
    expect(usage.body.buckets.length).toBeGreaterThanOrEqual(30);
  });

  it('the key authorizer allows the rotated key from REST and HTTP API events', async () => {
    const events = authorizerEvents(key.api_key);
    const rest = await invoke((t) => t.kind === 'rest-authorizer', events.rest);
    expect(rest.policyDocument.Statement[0].Effect).toBe('Allow');
    authorizerContext = rest.context;
    const http = await invoke(
      (t) => t.kind === 'http-authorizer' || t.kind === 'rest-authorizer',
      events.http,
    );
    expect(http.isAuthorized).toBe(true);
    // A limited key: its second verification adds the first's call to its counters (contract §19).
    for (let i = 0; i < 2; i++) {
      const counted = await invoke(
        (t) => t.kind === 'rest-authorizer',
        authorizerEvents(limited.api_key).rest,
      );
      expect(counted.policyDocument.Statement[0].Effect).toBe('Allow');
    }
    // A key with one workspace, verified again while warm: its state and memberships are read in
    // one BatchGetItem across both tables.
    const single = await createKey({ workspace_ids: [workspaces[0]] });
    for (let i = 0; i < 2; i++) {
      const batch = await invoke((t) => t.kind === 'rest-authorizer', authorizerEvents(single.api_key).rest);
      expect(batch.policyDocument.Statement[0].Effect).toBe('Allow');
    }
  });

  it('the MCP server answers initialize and tools/list behind the authorizer', async () => {
    const mcp = (body: unknown) =>
      invoke(
        (t) => t.kind === 'rest-method' && t.method === 'POST',
        mcpEvent(key.api_key, authorizerContext, body),
      );
    const init = await mcp({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'artifact', version: '1' },
      },
    });
    expect(init.statusCode, init.body).toBe(200);
    expect(JSON.parse(init.body).result.serverInfo.name).toBeTruthy();
    const tools = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect(JSON.parse(tools.body).result.tools.length).toBeGreaterThan(0);
  });

  it('the public leak report and GitHub secret scanning each revoke a key they are given', async () => {
    const reportedKey = await createKey();
    const reported = await route(
      'POST /v1/mcp/leaked-keys',
      publicEvent('POST /v1/mcp/leaked-keys', JSON.stringify({ keys: [reportedKey.api_key] })),
    );
    expect(reported.status).toBe(202);
    expect(reported.body).toEqual({ received: 1 });
    const alert = githubAlert([key.api_key], d.github.keyIdentifier, d.github.privateKey);
    const scanned = await route(
      'POST /v1/mcp/secret-scanning/github',
      publicEvent('POST /v1/mcp/secret-scanning/github', alert.body, alert.headers),
    );
    expect(scanned.status, JSON.stringify(scanned.body)).toBe(200);
    expect(scanned.body[0].label).toBe('true_positive');
    for (const leaked of [reportedKey, key]) {
      const denied = await invoke(
        (t) => t.kind === 'http-authorizer' || t.kind === 'rest-authorizer',
        authorizerEvents(leaked.api_key).http,
      );
      expect(denied.isAuthorized).toBe(false);
    }
  });

  it('revoke answers 404 to another user and revokes the key for its creator', async () => {
    const doomed = await createKey();
    const revoked = await route(
      'DELETE /v1/mcp/api-keys/{key_id}',
      managementEvent('DELETE /v1/mcp/api-keys/{key_id}', `user-${crypto.randomUUID()}`, {
        params: { key_id: doomed.metadata.id },
      }),
    );
    expect(revoked.status).toBe(404);
    const own = await route(
      'DELETE /v1/mcp/api-keys/{key_id}',
      managementEvent('DELETE /v1/mcp/api-keys/{key_id}', user, { params: { key_id: doomed.metadata.id } }),
    );
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it('an OAuth client registers, is approved on the consent routes, redeems its code and refreshes; the key authorizer accepts its access token; revocation cuts it off', async () => {
    const oauth = (routeKey: string, options: Parameters<typeof oauthEvent>[1] = {}) =>
      route(routeKey, oauthEvent(routeKey, options));
    const consent = (routeKey: string, requestId: string, body?: unknown) =>
      route(
        routeKey,
        managementEvent(routeKey, user, {
          params: { request_id: requestId },
          ...(body !== undefined && { body }),
        }),
      );
    // Discovery, and the preflights browser-based clients send (the function answers CORS itself).
    const metadata = await oauth('GET /.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expect(metadata.body.registration_endpoint).toBe(`${metadata.body.issuer}/oauth/register`);
    // The deployment leaves `oauthClientMetadataDocuments` unset: documents are on.
    expect(metadata.body.client_id_metadata_document_supported).toBe(true);
    expect((await oauth('GET /.well-known/openid-configuration')).status).toBe(404);
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
    ]) {
      const preflight = await oauth(`OPTIONS ${path}`);
      expect(preflight.status, path).toBe(204);
      expect(preflight.reply.headers['access-control-allow-origin'], path).toBe('*');
    }
    // The reference endpoint is the resource the authorizer guards (and the first OAuth resource).
    const authorizerFn = triggered((t) => t.kind === 'rest-authorizer');
    const resource = authorizerFn.environment.MCP_RESOURCE as string;
    expect(resource).toMatch(/^https:\/\/.+\/v1\/mcp$/);
    const redirectUri = 'http://127.0.0.1:8765/callback';
    const registered = await oauth('POST /oauth/register', {
      json: {
        client_name: 'Artifact client',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const clientId = registered.body.client_id as string;
    const verifier = 'v'.repeat(50);
    const authorize = async (state: string) => {
      const answer = await oauth('GET /oauth/authorize', {
        query: {
          client_id: clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          state,
          resource,
          scope: 'svc.forms.read',
        },
      });
      expect(answer.status, answer.reply.body).toBe(302);
      const location = new URL(answer.reply.headers.location);
      expect(`${location.origin}${location.pathname}`).toBe('https://dashboard.example.com/mcp/consent');
      return location.searchParams.get('request') as string;
    };
    const requestId = await authorize('s1');
    const shown = await consent('GET /v1/mcp/oauth/requests/{request_id}', requestId);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body).toMatchObject({ resource, requested_scopes: ['svc.forms.read'] });
    // The page reloaded: the request is its user's already, and read again.
    expect((await consent('GET /v1/mcp/oauth/requests/{request_id}', requestId)).body).toEqual(shown.body);
    const approved = await consent('POST /v1/mcp/oauth/requests/{request_id}/approve', requestId, {
      workspace_ids: [workspaces[0]],
      scopes: ['svc.forms.read'],
      expires_in_days: 30,
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const back = new URL(approved.body.redirect_to);
    expect(back.searchParams.get('state')).toBe('s1');
    const tokens = await oauth('POST /oauth/token', {
      form: {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') as string,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
        resource,
      },
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const allowed = await invoke(
      (t) => t.kind === 'rest-authorizer',
      authorizerEvents(tokens.body.access_token).rest,
    );
    expect(allowed.policyDocument.Statement[0].Effect).toBe('Allow');
    const refreshed = await oauth('POST /oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId },
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    oauthSecrets.push(tokens.body.access_token, tokens.body.refresh_token, refreshed.body.refresh_token);
    const revoked = await oauth('POST /oauth/revoke', {
      form: { token: refreshed.body.refresh_token, client_id: clientId },
    });
    expect(revoked.status).toBe(200);
    const refused = await invoke(
      (t) => t.kind === 'rest-authorizer',
      authorizerEvents(refreshed.body.access_token).rest,
    ).catch((err: Error) => err);
    expect(String(refused)).toMatch(/Unauthorized/);
    // A request the person reads and turns down goes back to the client as access_denied.
    const declined = await authorize('s2');
    expect((await consent('GET /v1/mcp/oauth/requests/{request_id}', declined)).status).toBe(200);
    const denied = await consent('POST /v1/mcp/oauth/requests/{request_id}/deny', declined);
    expect(denied.status, JSON.stringify(denied.body)).toBe(200);
    expect(new URL(denied.body.redirect_to).searchParams.get('error')).toBe('access_denied');
  });

  it('enterprise-managed authorization and identity signals answer from the OAuth bundle (contract §17)', async () => {
    // The deployment trusts its jwtIssuer, whose keys the OAuth function fetches from a public
    // https address only, which this suite cannot serve: the bundle answers what needs no key, a
    // token from an issuer it does not trust (jose and the rules loaded and run).
    const { privateKey } = await generateKeyPair('ES256');
    const signed = (typ: string, claims: Record<string, unknown>) =>
      new SignJWT({
        iss: 'https://untrusted-idp.example',
        iat: Math.floor(Date.now() / 1000),
        jti: crypto.randomUUID(),
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', typ, kid: 'k1' })
        .sign(privateKey);
    const oauth = (routeKey: string, options: Parameters<typeof oauthEvent>[1]) =>
      route(routeKey, oauthEvent(routeKey, options));
    const metadata = await oauth('GET /.well-known/oauth-authorization-server', {});
    expect(metadata.body.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const registered = await oauth('POST /oauth/register', {
      json: { client_name: 'Enterprise app', redirect_uris: ['http://127.0.0.1:8080/cb'] },
    });
    const exchange = await oauth('POST /oauth/token', {
      form: {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        client_id: registered.body.client_id,
        assertion: await signed('oauth-id-jag+jwt', {
          aud: metadata.body.issuer,
          sub: user,
          exp: Math.floor(Date.now() / 1000) + 300,
        }),
      },
    });
    expect(exchange.status, JSON.stringify(exchange.body)).toBe(400);
    expect(exchange.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The token was not issued by an identity provider this service trusts.',
    });
    const signal = await oauth('POST /v1/identity-signals', {
      set: await signed('secevent+jwt', { aud: metadata.body.issuer, events: {} }),
    });
    expect(signal.status).toBe(400);
    expect(signal.body).toEqual({
      err: 'invalid_issuer',
      description: 'The token was not issued by an identity provider this service trusts.',
    });
  });

  it('the sweep, on its schedule event, writes the expiring notice of a key due one', async () => {
    // Eight days to live: the 7-day notice falls due tomorrow. A day passes: the key's times move
    // back one day in the table (test setup, not a call of any function).
    const due = await createKey({ expires_in_days: 8 });
    const create = triggered((t) => t.kind === 'http-route' && t.routeKey === 'POST /v1/mcp/api-keys');
    const dayBefore = (iso: string) => new Date(Date.parse(iso) - 86_400_000 - 60_000).toISOString();
    const item = (
      await d.db.send(
        new GetItemCommand({
          TableName: create.environment.KEYS_TABLE_NAME,
          Key: { pk: { S: `KEY#${due.metadata.id}` }, sk: { S: 'KEY' } },
          ConsistentRead: true,
        }),
      )
    ).Item;
    await d.db.send(
      new UpdateItemCommand({
        TableName: create.environment.KEYS_TABLE_NAME,
        Key: { pk: { S: `KEY#${due.metadata.id}` }, sk: { S: 'KEY' } },
        UpdateExpression: 'SET expires_at = :e, gsi2sk = :n',
        ExpressionAttributeValues: {
          ':e': { S: dayBefore(item?.expires_at?.S as string) },
          ':n': { S: dayBefore(item?.gsi2sk?.S as string) },
        },
      }),
    );
    const summary = await invoke((t) => t.kind === 'schedule', scheduleEvent());
    expect(summary.written, JSON.stringify(summary)).toMatchObject({ expiring_7: 1 });
  });

  it('the stream consumer publishes a real stream batch, read as its event source mapping reads it', async () => {
    const { records, out } = await streamBatch('publisher');
    expect(records.length).toBeGreaterThan(3);
    expect(out.batchItemFailures).toEqual([]);
    expect(d.published.map((e) => e.DetailType)).toEqual(
      expect.arrayContaining(['key.created', 'key.rotated']),
    );
  });

  it('an owner lists, cuts off and sets a policy through the governance functions; the fan-out applies it', async () => {
    // The suite's user is an editor of `workspace`; a colleague owns it (contract §12).
    const [, workspace, other] = workspaces as [string, string, string];
    const owner = `user-${crypto.randomUUID()}`;
    const create = triggered((t) => t.kind === 'http-route' && t.routeKey === 'POST /v1/mcp/api-keys');
    await d.db.send(
      new PutItemCommand({
        TableName: create.environment.MEMBERSHIPS_TABLE_NAME,
        Item: { pk: { S: owner }, sk: { S: workspace }, role: { S: 'owner' } },
      }),
    );
    const cut = await createKey({ workspace_ids: [workspace, other] });
    const kept = await createKey({ workspace_ids: [workspace] });
    const as = (routeKey: string, options: Parameters<typeof managementEvent>[2] = {}) =>
      route(
        routeKey,
        managementEvent(routeKey, owner, {
          ...options,
          params: { workspace_id: workspace, ...options.params },
        }),
      );
    const keys = '/v1/mcp/workspaces/{workspace_id}/api-keys';
    // Two pages: the cursor's MAC key derives from the pepper.
    const first = await as(`GET ${keys}`, { query: { limit: '1' } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const next = await as(`GET ${keys}`, { query: { limit: '1', cursor: first.body.next_cursor } });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.data).toHaveLength(1);
    const removed = await as(`DELETE ${keys}/{key_id}`, { params: { key_id: cut.metadata.id } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.metadata.workspace_access).toBe('removed');
    const policy = '/v1/mcp/workspaces/{workspace_id}/policy';
    const read = await as(`GET ${policy}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const put = await as(`PUT ${policy}`, {
      body: { mcp_access: 'disabled', allowed_scopes: ['svc.forms.read'], max_expiry_days: null },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.affected_keys).toBeGreaterThanOrEqual(1);
    const { records, out } = await streamBatch('fan-out');
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(out.batchItemFailures).toEqual([]);
    const active = await as(`GET ${keys}`, { query: { status: 'active' } });
    expect(active.body.data.map((k: { id: string }) => k.id)).not.toContain(kept.metadata.id);
    const events = '/v1/mcp/workspaces/{workspace_id}/events';
    const newest = await as(`GET ${events}`, { query: { limit: '1' } });
    expect(newest.status, JSON.stringify(newest.body)).toBe(200);
    const older = await as(`GET ${events}`, { query: { cursor: newest.body.next_cursor } });
    expect(older.status, JSON.stringify(older.body)).toBe(200);
    expect([...newest.body.data, ...older.body.data].map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['workspace.policy_changed', 'key.workspace_removed']),
    );
    const usage = await as('GET /v1/mcp/workspaces/{workspace_id}/usage', { query: { group_by: 'client' } });
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body).toMatchObject({ workspace_id: workspace, group_by: 'client' });
    // The revoked keys this suite presented to the authorizer: a refusal is written at once.
    expect(usage.body.revoked_still_presented.length).toBeGreaterThan(0);
    for (const entry of usage.body.revoked_still_presented)
      expect(entry).toMatchObject({ presented: expect.any(Number), revoked_at: expect.any(String) });
  });

  it('every function of both templates and every HTTP route was invoked from its bundle', () => {
    const all = d.functions.map((f) => f.logicalId).sort();
    expect([...invoked].sort()).toEqual(all);
    const routes = d.functions.flatMap((f) =>
      f.triggers.flatMap((t) => (t.kind === 'http-route' ? [t.routeKey] : [])),
    );
    expect([...routesRun].sort()).toEqual([...new Set(routes)].sort());
  });

  it('no function but the MCP server loads undici, at init or in a request (15-25 ms of a cold start)', () => {
    // The MCP SDK's web-standard transport takes a Request and answers a Response: undici's own.
    const mcpServer = triggered((t) => t.kind === 'rest-method' && t.method === 'POST').logicalId;
    const loaded = [...d.environments.values()]
      .filter((env) => env.loadedUndici())
      .map((env) => env.fn.logicalId);
    expect(loaded).toEqual([mcpServer]);
  });

  it('no function wrote a key, a digest or a token to its logs', () => {
    const secrets = [key.api_key, ...oauthSecrets].map((s) => s.slice(s.lastIndexOf('_') + 1));
    expect(secrets.length).toBeGreaterThan(1);
    for (const env of d.environments.values())
      for (const secret of secrets) expect(env.output(), env.fn.logicalId).not.toContain(secret);
  });
});

describe('IAM: every call the bundles made, against their roles in the template', () => {
  let report: IamReport;
  beforeAll(async () => {
    report = await exerciseIam(d);
    console.log(report.text);
  }, 120_000);

  it('every AWS call each function made is allowed by its role policy', () => {
    expect(report.calls).toBeGreaterThan(10);
    expect(report.denied).toEqual([]);
  });

  it('every grant no call exercised is listed with its reason', () => {
    expect(report.unexplained).toEqual([]);
  });

  it('removing any exercised grant from its role denies a call the function made', () => {
    expect(report.necessary.length).toBeGreaterThan(5);
    for (const grant of report.necessary) expect(grant.deniedWithout, grant.grant).toBeGreaterThan(0);
  });
});
