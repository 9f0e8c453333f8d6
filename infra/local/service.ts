import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderOpenApi } from '#lib/api-docs/openapi';
import { parseConfig } from '#lib/config';
import { makeHandlers } from '#lib/handlers/index';
import { protectedResourceMetadataUrl } from '#lib/oauth/metadata';
import { servedByOAuth } from '#lib/routes/oauth/index';
import { buildRuntime, type RuntimeOverrides } from '#lib/runtime';
import { createDocumentClient } from '#lib/store/client';
import { type McpKeyVerifierOptions, verifierOptionsFromEnv } from '#lib/verifier';
import { MCP_EDGE, servedByRestApi } from '../api-edge.ts';
import { devRoutes } from './dev/dev-routes.ts';
import { githubDevSigner } from './dev/github-dev.ts';
import { healthCheck } from './dev/health.ts';
import { type LocalIssuer, localIssuer } from './dev/issuer.ts';
import { staticSite } from './dev/static.ts';
import { localCors } from './emulation/cors.ts';
import { attachDynamoDbLocal, type DynamoDbLocal, startDynamoDbLocal } from './emulation/dynamodb-local.ts';
import { startLocalEvents } from './emulation/events.ts';
import { guardHost, guardRequest } from './emulation/guards.ts';
import { readBody, send } from './emulation/http.ts';
import { httpApiGateway, oauthGateway } from './emulation/http-api.ts';
import { remoteVerifier, type TokenVerifier } from './emulation/jwt-authorizer.ts';
import { dropTables, ensureTables, KEYS_TABLE_NAME, MEMBERSHIPS_TABLE_NAME } from './emulation/tables.ts';
import { acquireLock } from './lock.ts';

export { LockedError } from './lock.ts';

export interface LocalServiceOptions {
  /** Where DynamoDB data, the pepper and the dev signing key live. @default ./.data */
  dataDir: string;
  /** Keep DynamoDB in memory and everything else in a temporary directory. */
  inMemory?: boolean;
  /**
   * A DynamoDB Local already running (`http://127.0.0.1:<port>`) to use instead of starting one;
   * the service's data lives there, in the database of the access key id kept in `dataDir`.
   */
  dynamoDbLocalUrl?: string | undefined;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Point the JWT check at a real identity provider instead of the dev issuer. */
  externalJwt?: { issuer: string; audience: string; jwksUrl: string } | undefined;
  /** The functions' environment: lifecycle settings (MAX_EXPIRY_DAYS, ...). @default process.env */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface LocalService {
  url: string;
  dataDir: string;
  /** The options another process passes to `createMcpKeyVerifier` to verify against this service (contract §16). */
  verifierOptions(): McpKeyVerifierOptions;
  close(): Promise<void>;
}

/** DynamoDB Local with the tables, in the data directory (or in memory). */
async function startStorage(dataDir: string, inMemory: boolean, running?: string): Promise<DynamoDbLocal> {
  const dynamoDir = join(dataDir, 'dynamodb');
  await mkdir(dynamoDir, { recursive: true });
  const options = inMemory ? {} : { dataDir: dynamoDir };
  const dynamo = running ? await attachDynamoDbLocal(running, options) : await startDynamoDbLocal(options);
  const doc = createDocumentClient({ region: 'us-east-1', endpoint: dynamo.endpoint });
  try {
    await ensureTables(doc);
    return dynamo;
  } catch (err) {
    await dynamo.stop();
    throw err;
  } finally {
    doc.destroy();
  }
}

/**
 * `LOCAL_CLOCK_OFFSET_SECONDS` (local mode only, for tests of expiry): the functions' clock runs
 * this many seconds ahead of the machine's. Tokens are still checked against the real time.
 */
function localClock(env: NodeJS.ProcessEnv): RuntimeOverrides {
  const raw = env.LOCAL_CLOCK_OFFSET_SECONDS;
  if (!raw) return {};
  const seconds = Number(raw);
  if (!Number.isInteger(seconds))
    throw new Error(`LOCAL_CLOCK_OFFSET_SECONDS must be an integer, got ${raw}`);
  return { now: () => new Date(Date.now() + seconds * 1000) };
}

/**
 * The whole service on one machine: DynamoDB Local, the tables, and an API Gateway HTTP API
 * emulation around the same handlers that run in Lambda, built from one runtime.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const log = options.log ?? ((line: string) => console.log(line));
  const cors = localCors((options.env ?? process.env).CORS_ORIGINS, log);
  const site = staticSite(log);
  const clock = localClock(options.env ?? process.env);
  if (clock.now) log(`clock: ${clock.now().toISOString()} (LOCAL_CLOCK_OFFSET_SECONDS)`);
  const dataDir = options.inMemory
    ? await mkdtemp(join(tmpdir(), 'svc-mcp-local-'))
    : resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const releaseLock = await acquireLock(dataDir);
  let dynamo: DynamoDbLocal;
  try {
    dynamo = await startStorage(dataDir, options.inMemory ?? false, options.dynamoDbLocalUrl);
  } catch (err) {
    await releaseLock();
    throw err;
  }

  const env = options.env ?? process.env;
  const oauthOn = env.OAUTH !== 'off';
  // Until everything below is built, a request (on a fixed port, someone may be early) is 503.
  let ready = false;
  const server = createServer((req, res) => {
    if (!ready) return send(res, 503, { message: 'Starting; retry shortly' }, { 'retry-after': '1' });
    const started = performance.now();
    res.on('finish', () => {
      // Path only: keys never travel in URLs, and query strings and headers are not printed.
      const path = new URL(req.url ?? '/', 'http://local').pathname;
      log(`${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)}ms`);
    });
    // The Host comes first: a foreign or repeated Host gets no CORS headers, preflights included.
    if (guardHost(req, res, options.host)) return;
    // The MCP endpoint is on the REST API, which has no CORS configuration.
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    // The OAuth endpoints answer CORS themselves (any origin, no credentials).
    if (!(servedByRestApi(path) && !MCP_EDGE.cors) && !(oauthOn && servedByOAuth(path)) && cors(req, res))
      return;
    handle(req, res).catch((err: unknown) => {
      log(`internal error: ${(err as Error).name}`);
      if (!res.headersSent) send(res, 500, { message: 'Internal Server Error' });
      else res.destroy();
    });
  });

  // Listening first: the service's own URL is its OAuth issuer and its MCP resource (contract §15).
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolveListen());
    });
  } catch (err) {
    await dynamo.stop();
    await releaseLock();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const mcpResource = `${url}${MCP_EDGE.path}`;

  const config = parseConfig({
    ...env,
    ...(oauthOn && {
      OAUTH_ISSUER: url,
      OAUTH_CONSENT_PAGE_URL: env.OAUTH_CONSENT_PAGE_URL ?? `${url}/consent`,
      // Its own /mcp first, then the MCP servers a team develops against it (as a deployment's oauthResources).
      OAUTH_RESOURCES: [mcpResource, ...(env.OAUTH_RESOURCES ?? '').split(',').filter(Boolean)].join(','),
      OAUTH_LOOPBACK_METADATA: '1',
      MCP_RESOURCE: mcpResource,
    }),
    KEYS_TABLE_NAME,
    MEMBERSHIPS_TABLE_NAME,
    PEPPER_DIR: join(dataDir, 'pepper'),
    PEPPER_KMS_KEY_ID: undefined,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
  });
  // One client: the runtime's stores share it, and the dev routes and the health check, which
  // reach the tables directly, get it here (the runtime hands out only ports).
  const doc = createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint });
  const runtime = buildRuntime(config, { ...clock, doc });
  const issuer: LocalIssuer | undefined = options.externalJwt ? undefined : await localIssuer(dataDir);
  const verifier: TokenVerifier = options.externalJwt
    ? remoteVerifier(options.externalJwt.jwksUrl, options.externalJwt.issuer, options.externalJwt.audience)
    : (issuer as LocalIssuer);
  // GitHub's secret scanning keys are replaced by a dev key kept in the data directory.
  const github = await githubDevSigner(dataDir);
  // The key page is this service's own `/` unless KEYS_PAGE_URL names another.
  const handlers = makeHandlers(runtime, { githubKeys: async () => github.publicKeys() });
  const restOptions = oauthOn ? { resourceMetadataUrl: protectedResourceMetadataUrl(mcpResource) } : {};
  const gateway = httpApiGateway(handlers, verifier, {
    keysPageUrl: () => config.keysPageUrl ?? `${url}/`,
    ...restOptions,
  });
  const oauth = oauthOn ? oauthGateway(handlers) : undefined;
  const events = startLocalEvents({ endpoint: dynamo.endpoint, dataDir, runtime, log });
  // The pepper exists from the start, so the verifier options can name it before the first key.
  await runtime.service.peppers.pepper(runtime.service.peppers.currentVersion);
  const verifierOptions = () =>
    verifierOptionsFromEnv({
      KEYS_TABLE_NAME,
      MEMBERSHIPS_TABLE_NAME,
      PEPPER_DIR: join(dataDir, 'pepper'),
      PEPPER_VERSION: env.PEPPER_VERSION,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: config.region,
    });
  const dev = devRoutes({ issuer, doc, events, github, verifierOptions });
  const health = healthCheck(doc, [KEYS_TABLE_NAME, MEMBERSHIPS_TABLE_NAME]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (guardRequest(req, res, restOptions)) return;
    const url = new URL(req.url ?? '/', 'http://local');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const body = await readBody(req);
    if (body === 'too_large') return send(res, 413, { message: 'Request Entity Too Large' });

    if (method === 'GET' && path === '/health') {
      const answer = await health();
      return send(res, answer.status, answer.body, answer.headers);
    }
    if (method === 'GET' && path === '/openapi.json') return send(res, 200, renderOpenApi());
    if (method === 'GET' && path === '/.well-known/jwks.json' && issuer) return send(res, 200, issuer.jwks);
    if (await site(method, path, res)) return;
    if (path.startsWith('/_dev/')) return dev(method, path, body, res);
    if (oauth && servedByOAuth(path)) return oauth(req, res, url, body);
    if (!(await gateway(req, res, url, body))) send(res, 404, { message: 'Not Found' });
  }

  ready = true;
  let closing: Promise<void> | undefined;
  return {
    url,
    dataDir,
    verifierOptions,
    close: () => {
      closing ??= (async () => {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
        await events.close();
        // In a DynamoDB Local this service did not start, a throwaway run's tables would outlive
        // it under an access key id nobody knows any more: they go with it.
        if (options.inMemory && options.dynamoDbLocalUrl) await dropTables(doc);
        doc.destroy();
        await dynamo.stop();
        await releaseLock();
        if (options.inMemory) await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
