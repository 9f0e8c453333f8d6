import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { ACCOUNT, REGION } from './cloudformation.ts';

/** One AWS API call as the wire carried it: who signed it, and the request body. */
export interface WireCall {
  /** The access key id of the signature: which function's credentials made the call. */
  accessKeyId: string;
  service: 'dynamodb' | 'streams' | 'kms' | 'events';
  /** The operation from `X-Amz-Target`, e.g. `GetItem`, `GenerateMac`, `PutEvents`. */
  operation: string;
  // biome-ignore lint/suspicious/noExplicitAny: the request's JSON body, read by the IAM mapping
  body: any;
  /** The stream a `GetRecords` iterator belongs to (iterators do not name it). */
  streamArn?: string;
}

interface JsonService {
  url: string;
  server: Server;
}

/** The access key id in a SigV4 `Authorization` header. */
export const signer = (authorization: string | undefined): string =>
  /Credential=([^/]+)\//.exec(authorization ?? '')?.[1] ?? '(unsigned)';

const target = (req: IncomingMessage): string =>
  String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  const server = createServer((req, res) => {
    handler(req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'InternalFailure', message: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server } satisfies JsonService;
}

const answer = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  res.end(JSON.stringify(body));
};

/**
 * KMS's JSON protocol for `GenerateMac` (HMAC_SHA_256 keys only): the MAC of the message under a
 * secret held per key id, so one key always gives the same MAC and two keys differ.
 */
export async function kmsStandIn(calls: WireCall[]) {
  const secrets = new Map<string, Buffer>();
  return listen(async (req, res) => {
    const operation = target(req);
    const body = JSON.parse((await buffer(req)).toString() || '{}');
    calls.push({ accessKeyId: signer(req.headers.authorization), service: 'kms', operation, body });
    if (operation !== 'GenerateMac') return answer(res, 400, { __type: 'UnsupportedOperationException' });
    if (body.MacAlgorithm !== 'HMAC_SHA_256') return answer(res, 400, { __type: 'InvalidKeyUsageException' });
    const keyId = String(body.KeyId);
    const secret = secrets.get(keyId) ?? randomBytes(32);
    secrets.set(keyId, secret);
    const mac = createHmac('sha256', secret).update(Buffer.from(body.Message, 'base64')).digest('base64');
    answer(res, 200, { KeyId: keyArn(keyId), Mac: mac, MacAlgorithm: body.MacAlgorithm });
  });
}

const keyArn = (keyId: string) =>
  keyId.startsWith('arn:') ? keyId : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${keyId}`;

/** EventBridge's JSON protocol for `PutEvents`: every entry accepted and kept in `published`. */
export async function eventBridgeStandIn(calls: WireCall[]) {
  // biome-ignore lint/suspicious/noExplicitAny: entries as the SDK sent them
  const published: any[] = [];
  const service = await listen(async (req, res) => {
    const operation = target(req);
    const body = JSON.parse((await buffer(req)).toString() || '{}');
    calls.push({ accessKeyId: signer(req.headers.authorization), service: 'events', operation, body });
    if (operation !== 'PutEvents') return answer(res, 400, { __type: 'UnsupportedOperationException' });
    published.push(...body.Entries);
    answer(res, 200, {
      FailedEntryCount: 0,
      Entries: body.Entries.map(() => ({ EventId: randomUUID() })),
    });
  });
  return { ...service, published };
}

/**
 * GitHub's published secret scanning keys (`GET /meta/public_keys/secret_scanning`): one P-256
 * key, whose private half signs alerts (`githubAlert` in ./events.ts). Over HTTPS when given a
 * certificate (a deployment's setting must be an https URL), plain HTTP otherwise.
 */
export async function githubKeysStandIn(tls?: { key: Buffer; cert: Buffer }) {
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyIdentifier = randomUUID().replaceAll('-', '');
  const document = JSON.stringify({
    public_keys: [
      {
        key_identifier: keyIdentifier,
        key: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        is_current: true,
      },
    ],
  });
  const serve = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(document);
  };
  const server: Server = tls ? createTlsServer(tls, serve) : createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/meta/public_keys/secret_scanning`,
    server,
    keyIdentifier,
    privateKey: signing.privateKey,
  };
}

/**
 * A recording proxy in front of DynamoDB Local (DynamoDB and DynamoDB Streams). DynamoDB Local
 * keeps one database per access key id; each function signs with its own key id so its calls
 * can be told apart, and the proxy forwards them under `databaseKeyId` so every function sees the
 * same tables (DynamoDB Local does not check signatures).
 */
export async function dynamoDbProxy(calls: WireCall[], upstream: string, databaseKeyId: string) {
  const iterators = new Map<string, string>();
  return listen(async (req, res) => {
    const raw = await buffer(req);
    const header = String(req.headers['x-amz-target'] ?? '');
    const operation = target(req);
    const body = JSON.parse(raw.toString() || '{}');
    const accessKeyId = signer(req.headers.authorization);
    const service = header.startsWith('DynamoDBStreams') ? 'streams' : 'dynamodb';
    calls.push({
      accessKeyId,
      service,
      operation,
      body,
      ...(operation === 'GetRecords' && { streamArn: iterators.get(body.ShardIterator) }),
    });
    const headers = { ...req.headers };
    headers.authorization = String(headers.authorization ?? '').replace(
      /Credential=[^/]+\//,
      `Credential=${databaseKeyId}/`,
    );
    const reply = await forward(upstream, req.method ?? 'POST', req.url ?? '/', headers, raw);
    if (service === 'streams' && reply.status === 200) {
      const out = JSON.parse(reply.body.toString() || '{}');
      const stream = operation === 'GetShardIterator' ? body.StreamArn : iterators.get(body.ShardIterator);
      for (const it of [out.ShardIterator, out.NextShardIterator])
        if (it && stream) iterators.set(it, stream);
    }
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
  });
}

function forward(
  upstream: string,
  method: string,
  path: string,
  headers: IncomingMessage['headers'],
  body: Buffer,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, upstream);
    const req = request(url, { method, headers: { ...headers, host: url.host } }, (res) => {
      buffer(res).then(
        (b) => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: b }),
        reject,
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}
