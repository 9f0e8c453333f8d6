import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateTableCommand, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { z } from 'zod';
import { ROLES } from '#lib/access/scopes';
import { renderOpenApi } from '#lib/http/openapi';
import { createDocumentClient } from '#lib/store/client';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE, type TableDefinition } from '#lib/store/tables';
import { ROUTES, type RouteDefinition, routeKey } from '../routes.ts';
import { httpApiAuthorizerEvent, httpApiEvent, lambdaContext } from './apigw.ts';
import { localCors } from './cors.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.ts';
import { type LocalIssuer, localIssuer, remoteVerifier, type TokenVerifier } from './jwt.ts';
import { staticSite } from './static.ts';

export interface LocalServiceOptions {
  /** Where DynamoDB data, the pepper and the dev signing key live. @default ./.data */
  dataDir: string;
  /** Keep DynamoDB in memory and everything else in a temporary directory. */
  inMemory?: boolean;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Point the JWT check at a real identity provider instead of the dev issuer. */
  externalJwt?: { issuer: string; audience: string; jwksUrl: string } | undefined;
  log?: (line: string) => void;
}

export interface LocalService {
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

const KEYS_TABLE_NAME = 'svc-mcp-api-keys';
const MEMBERSHIPS_TABLE_NAME = 'svc-workspace-memberships';
const MAX_BODY_BYTES = 10 * 1024 * 1024;

type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

export class LockedError extends Error {}

/** One service per data directory: a second one would corrupt DynamoDB Local's files. */
async function acquireLock(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, 'service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(await readFile(file, 'utf8').catch(() => ''));
      if (pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new LockedError(
          `another local service (pid ${pid}) is using ${dataDir}; stop it or set DATA_DIR to another directory`,
        );
      }
      await rm(file, { force: true }); // stale lock of a process that is gone
    }
  }
  throw new LockedError(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function ensureTables(endpoint: string): Promise<void> {
  const doc = createDocumentClient({ region: 'us-east-1', endpoint });
  const existing = new Set((await doc.send(new ListTablesCommand({}))).TableNames ?? []);
  const wanted: [TableDefinition, string][] = [
    [KEYS_TABLE, KEYS_TABLE_NAME],
    [MEMBERSHIPS_TABLE, MEMBERSHIPS_TABLE_NAME],
  ];
  for (const [def, name] of wanted) {
    if (existing.has(name)) continue;
    await doc.send(new CreateTableCommand(createTableInput(def, name)));
    if (def.timeToLiveAttribute) {
      await doc.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: def.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  }
  doc.destroy();
}

function compile(route: RouteDefinition) {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), names };
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolveBody(size > MAX_BODY_BYTES ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...(text && { 'content-type': 'application/json' }),
    ...headers,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Writes a Lambda proxy result back as HTTP, as API Gateway does (undefined headers dropped). */
function sendResult(res: ServerResponse, result: APIGatewayProxyResultV2): void {
  if (
    typeof result === 'string' ||
    result === null ||
    typeof result !== 'object' ||
    !('statusCode' in result)
  ) {
    send(res, 200, typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
  }
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body
    ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  res.writeHead(result.statusCode ?? 200, { ...headers, 'content-length': body.length });
  res.end(body);
}

const TokenRequest = z.strictObject({
  sub: z.string().min(1).max(256),
  email_verified: z.boolean().optional(),
  auth_age_seconds: z.number().int().min(0).max(31_536_000).optional(),
});
const MembershipRequest = z.strictObject({ role: z.enum(ROLES) });
const Uuid = z.uuid();

/**
 * The whole service on one machine: DynamoDB Local, the tables, and an API Gateway HTTP API
 * emulation around the same handlers that run in Lambda.
 */
export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const log = options.log ?? ((line: string) => console.log(line));
  const cors = localCors(process.env.CORS_ORIGINS, log);
  const site = staticSite(log);
  const dataDir = options.inMemory
    ? await mkdtemp(join(tmpdir(), 'svc-mcp-local-'))
    : resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const releaseLock = await acquireLock(dataDir);
  let dynamo: DynamoDbLocal | undefined;
  try {
    const dynamoDir = join(dataDir, 'dynamodb');
    await mkdir(dynamoDir, { recursive: true });
    dynamo = await startDynamoDbLocal(options.inMemory ? {} : { dataDir: dynamoDir });
    await ensureTables(dynamo.endpoint);
  } catch (err) {
    await dynamo?.stop();
    await releaseLock();
    throw err;
  }

  Object.assign(process.env, {
    KEYS_TABLE_NAME,
    MEMBERSHIPS_TABLE_NAME,
    PEPPER_DIR: join(dataDir, 'pepper'),
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  });
  const issuer: LocalIssuer | undefined = options.externalJwt ? undefined : await localIssuer(dataDir);
  const verifier: TokenVerifier = options.externalJwt
    ? remoteVerifier(options.externalJwt.jwksUrl, options.externalJwt.issuer, options.externalJwt.audience)
    : (issuer as LocalIssuer);

  const handlers = new Map<string, LambdaHandler>();
  for (const name of [...new Set(ROUTES.map((r) => r.handler)), 'mcp-authorizer'] as const) {
    const mod = (await import(`../../functions/${name}.ts`)) as { handler: LambdaHandler };
    handlers.set(name, mod.handler);
  }
  const invoke = async (name: string, event: unknown) => {
    const handler = handlers.get(name);
    if (!handler) throw new Error(`no handler ${name}`);
    return handler(event, lambdaContext(name));
  };
  const routes = ROUTES.map(compile);
  const memberships = createDocumentClient({ region: 'us-east-1', endpoint: dynamo.endpoint });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const body = await readBody(req);
    if (body === 'too_large') return send(res, 413, { message: 'Request Entity Too Large' });

    if (method === 'GET' && path === '/health') return send(res, 200, { status: 'ok' });
    if (method === 'GET' && path === '/openapi.json') return send(res, 200, renderOpenApi());
    if (method === 'GET' && path === '/.well-known/jwks.json' && issuer) return send(res, 200, issuer.jwks);
    if (await site(method, path, res)) return;
    if (path.startsWith('/_dev/')) return devRoute(method, path, body, res);

    const match = routes
      .filter((r) => r.route.method === method)
      .map((r) => ({ r, m: r.pattern.exec(path) }))
      .find((x) => x.m);
    if (!match?.m) return send(res, 404, { message: 'Not Found' });
    const { route, names } = match.r;
    const pathParameters = Object.fromEntries(names.map((n, i) => [n, safeDecode(match.m?.[i + 1] ?? '')]));
    const query: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) query[k] = [...(query[k] ?? []), v];

    const authorization = req.headers.authorization;
    if (!authorization) return send(res, 401, { message: 'Unauthorized' });

    let claims: Record<string, unknown> = {};
    if (route.auth === 'jwt') {
      const token = /^Bearer (.+)$/i.exec(authorization)?.[1];
      const payload = token ? await verifier.verify(token) : undefined;
      if (!payload) return send(res, 401, { message: 'Unauthorized' });
      claims = payload;
    }
    const event = httpApiEvent({
      method,
      routeKey: routeKey(route),
      rawPath: path,
      pathParameters,
      query,
      headers: req.headers as Record<string, string | string[] | undefined>,
      body,
      claims,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      requestId: randomUUID(),
    });

    if (route.auth === 'mcp-key') {
      const decision = (await invoke('mcp-authorizer', httpApiAuthorizerEvent(event))) as {
        isAuthorized?: boolean;
        context?: Record<string, string>;
      };
      if (decision?.isAuthorized !== true) return send(res, 403, { message: 'Forbidden' });
      (event.requestContext as unknown as { authorizer: unknown }).authorizer = {
        lambda: decision.context ?? {},
      };
    }
    sendResult(res, (await invoke(route.handler, event)) as APIGatewayProxyResultV2);
  }

  async function devRoute(method: string, path: string, body: Buffer, res: ServerResponse): Promise<void> {
    const parsed = () => {
      try {
        return JSON.parse(body.toString('utf8') || '{}') as unknown;
      } catch {
        return undefined;
      }
    };
    if (method === 'POST' && path === '/_dev/token') {
      if (!issuer)
        return send(res, 404, { message: 'Not Found: tokens come from the configured identity provider' });
      const input = TokenRequest.safeParse(parsed());
      if (!input.success)
        return send(res, 400, { message: 'invalid token request', errors: input.error.issues });
      return send(res, 200, { token: await issuer.mint(input.data) }, { 'cache-control': 'no-store' });
    }
    const m = /^\/_dev\/memberships\/([^/]+)\/([^/]+)$/.exec(path);
    if (m) {
      const userId = safeDecode(m[1] ?? '');
      const workspaceId = (m[2] ?? '').toLowerCase();
      if (!userId || !Uuid.safeParse(workspaceId).success) {
        return send(res, 400, { message: 'user_id must be non-empty and workspace_id a UUID' });
      }
      const key = { pk: userId, sk: workspaceId };
      if (method === 'PUT') {
        const input = MembershipRequest.safeParse(parsed());
        if (!input.success) return send(res, 400, { message: `role must be one of ${ROLES.join(', ')}` });
        await memberships.send(
          new PutCommand({ TableName: MEMBERSHIPS_TABLE_NAME, Item: { ...key, role: input.data.role } }),
        );
        return send(res, 204, undefined);
      }
      if (method === 'DELETE') {
        await memberships.send(new DeleteCommand({ TableName: MEMBERSHIPS_TABLE_NAME, Key: key }));
        return send(res, 204, undefined);
      }
    }
    return send(res, 404, { message: 'Not Found' });
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    res.on('finish', () => {
      // Path only: keys never travel in URLs, and query strings and headers are not printed.
      log(
        `${req.method} ${new URL(req.url ?? '/', 'http://local').pathname} ${res.statusCode} ${Math.round(performance.now() - started)}ms`,
      );
    });
    if (cors(req, res)) return;
    handle(req, res).catch((err: unknown) => {
      log(`internal error: ${(err as Error).name}`);
      if (!res.headersSent) send(res, 500, { message: 'Internal Server Error' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    dataDir,
    close: () => {
      closing ??= (async () => {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
        memberships.destroy();
        await dynamo?.stop();
        await releaseLock();
        if (options.inMemory) await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
