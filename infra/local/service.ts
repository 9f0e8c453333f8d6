import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { renderOpenApi } from '#lib/api-docs/openapi';
import { type Config, parseConfig } from '#lib/config';
import { makeHandlers } from '#lib/handlers/index';
import type { DenialOptions } from '#lib/mcp/denial';
import { protectedResourceMetadataUrl } from '#lib/oauth/metadata';
import { servedByOAuth } from '#lib/routes/oauth/index';
import { buildRuntime, type RuntimeOverrides } from '#lib/runtime';
import { createDocumentClient } from '#lib/store/client';
import { type McpKeyVerifierOptions, verifierOptionsFromEnv } from '#lib/verifier';
import { MCP_EDGE } from '../api-edge.ts';
import { type LocalData, openData } from './data.ts';
import { DEV_IDP_PATH, type DevIdp, devIdp, servedByDevIdp } from './dev/dev-idp.ts';
import { devRoutes } from './dev/dev-routes.ts';
import { githubDevSigner } from './dev/github-dev.ts';
import { healthCheck } from './dev/health.ts';
import { type LocalIssuer, localIssuer } from './dev/issuer.ts';
import { staticSite } from './dev/static.ts';
import { localCors } from './emulation/cors.ts';
import { type LocalEvents, startLocalEvents } from './emulation/events.ts';
import { guardRequest } from './emulation/guards.ts';
import { readBody, send } from './emulation/http.ts';
import { httpApiGateway, oauthGateway } from './emulation/http-api.ts';
import { remoteVerifier, type TokenVerifier } from './emulation/jwt-authorizer.ts';
import { dropTables, KEYS_TABLE_NAME, MEMBERSHIPS_TABLE_NAME } from './emulation/tables.ts';
import { type LocalRoute, localFront } from './front.ts';

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

/**
 * `LOCAL_CLOCK_OFFSET_SECONDS` (local mode only, for tests of expiry): the functions' clock runs
 * this many seconds ahead of the machine's. Tokens are still checked against the real time.
 */
function localClock(env: NodeJS.ProcessEnv): RuntimeOverrides {
  const raw = env.LOCAL_CLOCK_OFFSET_SECONDS;
  const usage = localUsageInterval(env);
  if (!raw) return usage;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds))
    throw new Error(`LOCAL_CLOCK_OFFSET_SECONDS must be an integer, got ${raw}`);
  return { ...usage, now: () => new Date(Date.now() + seconds * 1000) };
}

/**
 * `LOCAL_USAGE_WRITE_SECONDS` (local mode only, for tests of usage): a credential's usage counts
 * are written after this many seconds instead of a minute (contract §18's interval elsewhere).
 * A timer writes the counts that are due every 10 s (or every such interval, at least a second),
 * since no call may come to carry them.
 */
function localUsageInterval(env: NodeJS.ProcessEnv): RuntimeOverrides {
  const raw = env.LOCAL_USAGE_WRITE_SECONDS;
  if (!raw) return { usageTimerMs: 10_000 };
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 60)
    throw new Error(`LOCAL_USAGE_WRITE_SECONDS must be a whole number from 0 to 60, got ${raw}`);
  return { usageWriteIntervalMs: seconds * 1000, usageTimerMs: Math.min(Math.max(seconds, 1), 10) * 1000 };
}

/** Listens on `host` and `port` (0 picks a free one); the URL the service is reached at. */
async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveListen());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

/** The functions' configuration: the tables and pepper of the data directory; with OAuth on, the service's own URL as issuer and resource. */
function localConfig(env: NodeJS.ProcessEnv, url: string, data: LocalData, oauthOn: boolean): Config {
  const { dataDir, dynamo } = data;
  const mcpResource = `${url}${MCP_EDGE.path}`;
  return parseConfig({
    ...env,
    ...(oauthOn && {
      OAUTH_ISSUER: url,
      OAUTH_CONSENT_PAGE_URL: env.OAUTH_CONSENT_PAGE_URL ?? `${url}/consent`,
      // Its own /mcp first, then the MCP servers a team develops against it (as a deployment's oauthResources).
      OAUTH_RESOURCES: [mcpResource, ...(env.OAUTH_RESOURCES ?? '').split(',').filter(Boolean)].join(','),
      OAUTH_LOOPBACK_METADATA: '1',
      MCP_RESOURCE: mcpResource,
      // The development IdP is trusted by default; IDENTITY_PROVIDERS adds others beside it.
      IDENTITY_PROVIDERS: JSON.stringify([
        { issuer: `${url}${DEV_IDP_PATH}` },
        ...(env.IDENTITY_PROVIDERS ? (JSON.parse(env.IDENTITY_PROVIDERS) as unknown[]) : []),
      ]),
    }),
    KEYS_TABLE_NAME,
    MEMBERSHIPS_TABLE_NAME,
    PEPPER_DIR: join(dataDir, 'pepper'),
    PEPPER_KMS_KEY_ID: undefined,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
  });
}

/** What the wiring needs beyond the data: the environment, the service's URL, and what was built before listening. */
interface WiringInputs {
  env: NodeJS.ProcessEnv;
  url: string;
  oauthOn: boolean;
  clock: RuntimeOverrides;
  site: ReturnType<typeof staticSite>;
  externalJwt: LocalServiceOptions['externalJwt'];
  log: (line: string) => void;
}

/** The service built from one runtime, with what closing it must stop. */
interface Wired {
  route: LocalRoute;
  verifierOptions: () => McpKeyVerifierOptions;
  events: LocalEvents;
  doc: ReturnType<typeof createDocumentClient>;
  /** Stops the usage timer and writes the counts still waiting. */
  endUsage: () => Promise<void>;
}

/**
 * The handlers of one runtime behind the emulated gateways, the JWT check (the dev issuer's or a
 * real identity provider's), the event poller, the dev routes and the health check.
 */
async function wire(data: LocalData, inputs: WiringInputs): Promise<Wired> {
  const { dataDir, dynamo } = data;
  const { env, url, oauthOn, externalJwt } = inputs;
  const mcpResource = `${url}${MCP_EDGE.path}`;
  const config = localConfig(env, url, data, oauthOn);
  // One client: the runtime's stores share it, and the dev routes and the health check, which
  // reach the tables directly, get it here (the runtime hands out only ports).
  const doc = createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint });
  const runtime = buildRuntime(config, { ...inputs.clock, doc });
  const issuer: LocalIssuer | undefined = externalJwt ? undefined : await localIssuer(dataDir);
  const verifier: TokenVerifier = externalJwt
    ? remoteVerifier(externalJwt.jwksUrl, externalJwt.issuer, externalJwt.audience)
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
  const events = startLocalEvents({ endpoint: dynamo.endpoint, dataDir, runtime, log: inputs.log });
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
  const idp = oauthOn ? await devIdp(dataDir, url, inputs.clock.now) : undefined;
  const health = healthCheck(doc, [KEYS_TABLE_NAME, MEMBERSHIPS_TABLE_NAME]);
  const route = dispatch({ restOptions, health, issuer, site: inputs.site, dev, idp, oauth, gateway });
  return { route, verifierOptions, events, doc, endUsage: () => runtime.endUsage() };
}

/** Who answers which path: the local-only paths first, then the OAuth API, then the HTTP and REST APIs. */
function dispatch(parts: {
  restOptions: DenialOptions;
  health: ReturnType<typeof healthCheck>;
  issuer: LocalIssuer | undefined;
  site: ReturnType<typeof staticSite>;
  dev: ReturnType<typeof devRoutes>;
  idp: DevIdp | undefined;
  oauth: ReturnType<typeof oauthGateway> | undefined;
  gateway: ReturnType<typeof httpApiGateway>;
}): LocalRoute {
  const { restOptions, health, issuer, site, dev, idp, oauth, gateway } = parts;
  return async (req, res) => {
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
    if (servedByDevIdp(path) && (await idp?.route(method, path, body, res))) return;
    if (path.startsWith('/_dev/')) return dev(method, path, body, res);
    if (oauth && servedByOAuth(path)) return oauth(req, res, url, body);
    if (!(await gateway(req, res, url, body))) send(res, 404, { message: 'Not Found' });
  };
}

/**
 * The whole service on one machine: DynamoDB Local, the tables, and an API Gateway HTTP API
 * emulation around the same handlers that run in Lambda, built from one runtime.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const log = options.log ?? ((line: string) => console.log(line));
  const env = options.env ?? process.env;
  const cors = localCors(env.CORS_ORIGINS, log);
  const site = staticSite(log);
  const clock = localClock(env);
  if (clock.now) log(`clock: ${clock.now().toISOString()} (LOCAL_CLOCK_OFFSET_SECONDS)`);
  const data = await openData(options);
  const oauthOn = env.OAUTH !== 'off';
  let route: LocalRoute | undefined;
  const server = createServer(localFront({ host: options.host, oauthOn, cors, log, route: () => route }));
  // Listening first: the service's own URL is its OAuth issuer and its MCP resource (contract §15).
  let url: string;
  try {
    url = await listen(server, options.host, options.port);
  } catch (err) {
    await data.dynamo.stop();
    await data.releaseLock();
    throw err;
  }
  const wired = await wire(data, { env, url, oauthOn, clock, site, externalJwt: options.externalJwt, log });
  route = wired.route;
  let closing: Promise<void> | undefined;
  return {
    url,
    dataDir: data.dataDir,
    verifierOptions: wired.verifierOptions,
    close: () => {
      closing ??= stop(server, data, wired, options);
      return closing;
    },
  };
}

/** Stops everything the service started, the last started first. */
async function stop(
  server: Server,
  data: LocalData,
  wired: Wired,
  options: LocalServiceOptions,
): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await wired.events.close();
  await wired.endUsage();
  // In a DynamoDB Local this service did not start, a throwaway run's tables would outlive
  // it under an access key id nobody knows any more: they go with it.
  if (options.inMemory && options.dynamoDbLocalUrl) await dropTables(wired.doc);
  wired.doc.destroy();
  await data.dynamo.stop();
  await data.releaseLock();
  if (options.inMemory) await rm(data.dataDir, { recursive: true, force: true });
}
