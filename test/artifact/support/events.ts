import { randomUUID, sign } from 'node:crypto';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { restAuthorizerEvent, restProxyEvent } from '#infra/local/emulation/rest-api-events';
import { localEndpoint } from '#lib/store/client';
import { httpApiAuthorizerEvent } from '#test/support/authorizer-events';
import { ACCOUNT, REGION } from './cloudformation.ts';

// biome-ignore lint/suspicious/noExplicitAny: events and patterns are JSON
type Json = any;

/** A management request as API Gateway delivers it after the JWT authorizer (payload 2.0). */
export function managementEvent(
  routeKey: string,
  userId: string,
  options: { params?: Record<string, string>; body?: unknown; query?: Record<string, string> } = {},
) {
  const [method, path] = routeKey.split(' ') as [string, string];
  const rawPath = path.replace(/\{(\w+)\}/g, (_, name: string) => options.params?.[name] ?? name);
  return httpApiEvent({
    method,
    routeKey,
    rawPath,
    ...(options.params && { pathParameters: options.params }),
    ...(options.query && { query: options.query }),
    headers: { 'content-type': 'application/json', 'user-agent': 'artifact-suite' },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    claims: { sub: userId, email_verified: true, auth_time: Math.floor(Date.now() / 1000) },
  });
}

/** An unauthenticated request to a public route (the leak endpoints), payload 2.0. */
export function publicEvent(routeKey: string, body: string, headers: Record<string, string> = {}) {
  const [method, rawPath] = routeKey.split(' ') as [string, string];
  const event = httpApiEvent({
    method,
    routeKey,
    rawPath,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const { authorizer: _none, ...requestContext } = event.requestContext;
  return { ...event, requestContext };
}

/**
 * A request to an OAuth protocol route (contract §15), payload 2.0 with no authorizer: a form body
 * (token, revocation), a JSON body (registration) or a query (authorization).
 */
export function oauthEvent(
  routeKey: string,
  options: {
    form?: Record<string, string>;
    json?: unknown;
    query?: Record<string, string>;
    /** A security event token (RFC 8935's body). */
    set?: string;
  } = {},
) {
  const [method, rawPath] = routeKey.split(' ') as [string, string];
  const body =
    options.form !== undefined
      ? { type: 'application/x-www-form-urlencoded', text: new URLSearchParams(options.form).toString() }
      : options.json !== undefined
        ? { type: 'application/json', text: JSON.stringify(options.json) }
        : options.set !== undefined
          ? { type: 'application/secevent+jwt', text: options.set }
          : undefined;
  const event = httpApiEvent({
    method,
    routeKey,
    rawPath,
    ...(options.query && { query: options.query }),
    headers: { 'user-agent': 'artifact-suite', ...(body && { 'content-type': body.type }) },
    ...(body && { body: body.text }),
  });
  const { authorizer: _none, ...requestContext } = event.requestContext;
  return { ...event, requestContext };
}

/** GitHub's secret scanning alert for these tokens, signed with its key. */
export function githubAlert(
  tokens: string[],
  keyIdentifier: string,
  privateKey: import('node:crypto').KeyObject,
) {
  const body = JSON.stringify(
    tokens.map((token) => ({
      token,
      type: 'svc_mcp_api_key',
      url: 'https://github.com/o/r/blob/main/.env',
      source: 'content',
    })),
  );
  return {
    body,
    headers: {
      'github-public-key-identifier': keyIdentifier,
      'github-public-key-signature': sign('sha256', Buffer.from(body), privateKey).toString('base64'),
    },
  };
}

const mcpRequest = (apiKey: string, body: unknown) => ({
  method: 'POST',
  resource: '/mcp',
  path: '/mcp',
  rawHeaders: [
    'Authorization', `Bearer ${apiKey}`,
    'Content-Type', 'application/json',
    'Accept', 'application/json, text/event-stream',
  ], // biome-ignore format: header pairs
  query: new URLSearchParams(),
  body: Buffer.from(JSON.stringify(body)),
  sourceIp: '127.0.0.1',
  requestId: randomUUID(),
});

/** The key authorizer's events for one MCP call: REST (payload 1.0) and HTTP API (payload 2.0). */
export function authorizerEvents(apiKey: string) {
  return {
    rest: restAuthorizerEvent(mcpRequest(apiKey, {})),
    http: httpApiAuthorizerEvent(
      httpApiEvent({
        method: 'POST',
        routeKey: 'POST /mcp',
        rawPath: '/mcp',
        headers: { authorization: `Bearer ${apiKey}` },
      }),
    ),
  };
}

/** An MCP JSON-RPC request through the REST API, with the context the authorizer returned. */
export function mcpEvent(
  apiKey: string,
  authorizerContext: Record<string, string | number | boolean>,
  body: unknown,
) {
  return restProxyEvent(mcpRequest(apiKey, body), authorizerContext);
}

/** EventBridge Scheduler's (rule) event for a scheduled target. */
export const scheduleEvent = () => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: ACCOUNT,
  time: new Date().toISOString(),
  region: REGION,
  resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/artifact`],
  detail: {},
});

/** A stream record as Lambda's event source mapping delivers it. */
export function lambdaStreamRecord(record: _Record, eventSourceARN: string) {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: REGION,
    dynamodb: {
      ...d,
      ApproximateCreationDateTime: Math.floor(
        new Date(d.ApproximateCreationDateTime ?? Date.now()).getTime() / 1000,
      ),
    },
    eventSourceARN,
  };
}

/** Whether a record matches an event source mapping filter pattern (equality and `prefix`). */
export function matchesPattern(value: Json, pattern: Json): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((p) =>
      p !== null && typeof p === 'object' && 'prefix' in p
        ? typeof value === 'string' && value.startsWith(p.prefix)
        : value === p,
    );
  }
  if (pattern !== null && typeof pattern === 'object') {
    return Object.entries(pattern).every(([k, p]) => value != null && matchesPattern(value[k], p));
  }
  return value === pattern;
}

/**
 * Every record of a stream, read as an event source mapping reads it: by the stream's ARN
 * (DescribeStream, then GetShardIterator and GetRecords per shard), never listing streams.
 */
export async function readStream(endpoint: string, streamArn: string): Promise<_Record[]> {
  const client = new DynamoDBStreamsClient({ region: REGION, ...localEndpoint(endpoint) });
  try {
    const shards = (await client.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription
      ?.Shards;
    const records: _Record[] = [];
    for (const shard of shards ?? []) {
      let iterator = (
        await client.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shard.ShardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        )
      ).ShardIterator;
      while (iterator) {
        const out = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
        if ((out.Records ?? []).length === 0) break;
        records.push(...(out.Records ?? []));
        iterator = out.NextShardIterator;
      }
    }
    return records;
  } finally {
    client.destroy();
  }
}
