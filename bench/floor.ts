/**
 * A cold start's floor: the least a function with the same dependencies and the same first
 * request's I/O could take on this machine, measured in the same run. A floor is a minimal handler
 * that loads the same SDK clients as the function (the DynamoDB document client, KMS, EventBridge:
 * those its bundle holds or imports), constructs them as the function does at module scope, and
 * makes the function's first request's calls: the same DynamoDB operations with the same inputs,
 * the same PutEvents, the same GET of GitHub's keys, in the same order and as concurrently. The
 * MCP server's floor is the MCP SDK's server and transport answering the same `initialize`. The
 * calls are recorded from the function's own first request (a run that is not measured) by
 * proxies in front of DynamoDB Local and the stand-ins, and the floor is bundled with the
 * function's bundling choice.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Metafile } from 'esbuild';

/** One call a function made, as the wire carried it. */
export interface WireCall {
  service: 'dynamodb' | 'events' | 'http';
  /** The operation of `X-Amz-Target` (`GetItem`, `PutEvents`), or the HTTP method. */
  operation: string;
  path: string;
  body: string;
  /** When the request arrived and when its answer was sent (performance.now()). */
  started: number;
  ended: number;
}

/**
 * A proxy in front of `upstream` (DynamoDB Local, a stand-in) that records every call it
 * forwards while `calls` is set. `url` keeps the upstream's user part (DynamoDB Local's database).
 */
export async function recordingProxy(upstream: string, service: WireCall['service']) {
  const target = new URL(upstream);
  const recorder = { calls: undefined as WireCall[] | undefined };
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    buffer(req)
      .then(
        (raw) =>
          new Promise<void>((done, fail) => {
            const out = request(
              new URL(req.url ?? '/', `${target.protocol}//${target.host}`),
              { method: req.method, headers: { ...req.headers, host: target.host } },
              (reply) => {
                buffer(reply).then((body) => {
                  res.writeHead(reply.statusCode ?? 500, reply.headers);
                  res.end(body);
                  recorder.calls?.push({
                    service,
                    operation:
                      service === 'http'
                        ? (req.method ?? 'GET')
                        : (String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? ''),
                    path: req.url ?? '/',
                    body: raw.toString(),
                    started,
                    ended: performance.now(),
                  });
                  done();
                }, fail);
              },
            );
            out.on('error', fail);
            out.end(raw);
          }),
      )
      .catch((err) => {
        res.writeHead(502);
        res.end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const user = target.username ? `${target.username}@` : '';
  return {
    url: `http://${user}127.0.0.1:${port}${service === 'http' ? target.pathname : ''}`,
    /** Records the calls forwarded from now until `stop()`, into the array returned. */
    start(): WireCall[] {
      recorder.calls = [];
      return recorder.calls;
    },
    stop() {
      recorder.calls = undefined;
    },
    close: () => server.close(),
  };
}

/** The SDK packages a floor can load, and what it imports from each. */
const SDK_IMPORTS = {
  '@aws-sdk/client-dynamodb': ['DynamoDBClient'],
  '@aws-sdk/lib-dynamodb': ['DynamoDBDocumentClient'],
  '@aws-sdk/client-kms': ['KMSClient', 'GenerateMacCommand'],
  '@aws-sdk/client-eventbridge': ['EventBridgeClient', 'PutEventsCommand'],
} as const;
type SdkPackage = keyof typeof SDK_IMPORTS;

/** The document client's command for each DynamoDB operation. */
const DOCUMENT_COMMANDS: Record<string, string> = {
  GetItem: 'GetCommand',
  PutItem: 'PutCommand',
  UpdateItem: 'UpdateCommand',
  DeleteItem: 'DeleteCommand',
  Query: 'QueryCommand',
  Scan: 'ScanCommand',
  BatchGetItem: 'BatchGetCommand',
  BatchWriteItem: 'BatchWriteCommand',
  TransactGetItems: 'TransactGetCommand',
  TransactWriteItems: 'TransactWriteCommand',
};

/** The MCP SDK's server package a bundle holds: v2's `@modelcontextprotocol/server`, or v1's. */
type McpPackage = '@modelcontextprotocol/server' | '@modelcontextprotocol/sdk';

/** What a bundle loads: the SDK packages it holds or imports, and which MCP SDK server it holds. */
export function dependenciesOf(metafile: Metafile): { sdk: SdkPackage[]; mcp: McpPackage | undefined } {
  const inputs = Object.keys(metafile.inputs);
  const imports = Object.values(metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  const loads = (pkg: string) =>
    inputs.some((f) => f.includes(`node_modules/${pkg}/`)) || imports.some((i) => i === pkg);
  const clients = [...inputs, ...imports]
    .map((f) => /@aws-sdk\/(client-[a-z0-9-]+)/.exec(f)?.[1])
    .filter((c): c is string => c !== undefined);
  const unknown = clients.filter((c) => !(`@aws-sdk/${c}` in SDK_IMPORTS));
  if (unknown.length > 0) throw new Error(`bench/floor.ts has no floor for @aws-sdk/${unknown[0]}`);
  return {
    sdk: (Object.keys(SDK_IMPORTS) as SdkPackage[]).filter(loads),
    mcp: (['@modelcontextprotocol/server', '@modelcontextprotocol/sdk'] as const).find(loads),
  };
}

/** A JavaScript literal of a value (sets and byte arrays included: DynamoDB inputs hold both). */
function literal(value: unknown): string {
  if (value instanceof Set) return `new Set(${literal([...value])})`;
  if (value instanceof Uint8Array) return `new Uint8Array(${JSON.stringify([...value])})`;
  if (Array.isArray(value)) return `[${value.map(literal).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${literal(v)}`)
      .join(',')}}`;
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

/** A DynamoDB request body as the document client takes it: attribute values unmarshalled. */
function documentInput(value: unknown, key?: string): unknown {
  if (Array.isArray(value))
    return key === 'Keys' ? value.map((v) => unmarshall(v)) : value.map((v) => documentInput(v));
  if (!value || typeof value !== 'object') return value;
  if (key === 'Key' || key === 'Item' || key === 'ExclusiveStartKey' || key === 'ExpressionAttributeValues')
    return unmarshall(value as Parameters<typeof unmarshall>[0]);
  return Object.fromEntries(
    Object.entries(value)
      // The SDK fills in a transaction's idempotency token; the floor's fills in its own.
      .filter(([k]) => k !== 'ClientRequestToken')
      .map(([k, v]) => [k, documentInput(v, k)]),
  );
}

/** The calls in rounds: a call that started before the first answer of the round joins it. */
function rounds(calls: WireCall[]): WireCall[][] {
  const groups: WireCall[][] = [];
  let firstEnd = -Infinity;
  for (const call of [...calls].sort((a, b) => a.started - b.started)) {
    const last = groups.at(-1);
    if (last && call.started < firstEnd) {
      last.push(call);
      firstEnd = Math.min(firstEnd, call.ended);
    } else {
      groups.push([call]);
      firstEnd = call.ended;
    }
  }
  return groups;
}

/** One recorded call as a statement of the floor's handler (a promise that never rejects). */
function callOf(call: WireCall): string {
  if (call.service === 'dynamodb') {
    const command = DOCUMENT_COMMANDS[call.operation];
    if (!command) throw new Error(`bench/floor.ts has no document command for ${call.operation}`);
    return `doc.send(new ${command}(${literal(documentInput(JSON.parse(call.body)))})).catch(() => {})`;
  }
  if (call.service === 'events') {
    if (call.operation !== 'PutEvents') throw new Error(`bench/floor.ts cannot replay ${call.operation}`);
    const input = JSON.parse(call.body) as { Entries: { Time?: number }[] };
    const entries = input.Entries.map((e) => ({ ...e, Time: e.Time === undefined ? undefined : '@TIME' }));
    const times = input.Entries.map((e) => e.Time);
    let i = 0;
    const source = literal({ ...input, Entries: entries }).replace(
      /"@TIME"/g,
      () => `new Date(${(times[i++] ?? 0) * 1000})`,
    );
    return `events.send(new PutEventsCommand(${source})).catch(() => {})`;
  }
  return `get(${JSON.stringify(call.path)})`;
}

/**
 * The floor's source for a function that loads `deps` and whose first request made `calls`.
 * `urls.http` is where its plain HTTP calls went (GitHub's keys).
 */
export function floorSource(
  deps: { sdk: SdkPackage[]; mcp: McpPackage | undefined },
  calls: WireCall[],
  urls: { http?: string },
): string {
  const lines: string[] = [];
  const uses = (pkg: SdkPackage) => deps.sdk.includes(pkg);
  const commands = [
    ...new Set(
      calls
        .filter((c) => c.service === 'dynamodb')
        .map((c) => DOCUMENT_COMMANDS[c.operation])
        .filter((c) => c !== undefined),
    ),
  ];
  if (calls.some((c) => c.service === 'dynamodb') && !uses('@aws-sdk/lib-dynamodb'))
    throw new Error('a DynamoDB call from a bundle without the document client');
  for (const pkg of deps.sdk) {
    const names = pkg === '@aws-sdk/lib-dynamodb' ? [...SDK_IMPORTS[pkg], ...commands] : SDK_IMPORTS[pkg];
    lines.push(`import { ${names.join(', ')} } from '${pkg}';`);
  }
  if (deps.mcp === '@modelcontextprotocol/server')
    lines.push(
      "import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';",
    );
  else if (deps.mcp)
    lines.push(
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';",
    );
  // Constructed at module scope, as the functions do (lib/store/client.ts, functions/publish-events.ts).
  if (uses('@aws-sdk/lib-dynamodb')) {
    lines.push(
      'const local = new URL(process.env.DYNAMODB_ENDPOINT);',
      'const doc = DynamoDBDocumentClient.from(',
      "  new DynamoDBClient({ region: process.env.AWS_REGION, maxAttempts: 3, endpoint: local.protocol + '//' + local.host,",
      "    credentials: { accessKeyId: decodeURIComponent(local.username), secretAccessKey: 'local' } }),",
      '  { marshallOptions: { removeUndefinedValues: true } },',
      ');',
    );
  }
  if (uses('@aws-sdk/client-eventbridge'))
    lines.push('const events = new EventBridgeClient({ region: process.env.AWS_REGION, maxAttempts: 3 });');
  // KMS is constructed on first use (the pepper's first derivation), which DynamoDB Local's bench
  // does not make (its pepper is a local file): the client is loaded, not built.
  if (uses('@aws-sdk/client-kms')) lines.push('export const kms = [KMSClient, GenerateMacCommand];');
  if (calls.some((c) => c.service === 'http')) {
    if (!urls.http) throw new Error('a plain HTTP call without its address');
    // As the GitHub route reaches `node:http`: not through an ES import (whose facade loads undici).
    lines.push(
      `const origin = new URL(${JSON.stringify(urls.http)}).origin;`,
      'const get = (path) => new Promise((done) => {',
      "  process.getBuiltinModule('node:http').get(origin + path, (res) => {",
      "    res.on('data', () => {}); res.on('end', done); }).on('error', done);",
      '});',
    );
  }
  lines.push('export const handler = async (event) => {');
  for (const group of rounds(calls)) lines.push(`  await Promise.all([${group.map(callOf).join(', ')}]);`);
  if (deps.mcp) {
    // The same answer as lib/mcp/server.ts: stateless, JSON response mode, no Ajv built per request.
    lines.push(
      "  const server = new McpServer({ name: 'floor', version: '1' }, { jsonSchemaValidator: { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'no' }) } });",
      '  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });',
      '  await server.connect(transport);',
      "  const response = await transport.handleRequest(new Request('http://localhost' + event.path,",
      '    { method: event.httpMethod, headers: event.headers, body: event.body }));',
      '  const body = await response.text();',
      '  await server.close();',
      '  return { statusCode: response.status, body };',
    );
  } else {
    lines.push('  return { statusCode: 200 };');
  }
  lines.push('};', '');
  return lines.join('\n');
}
