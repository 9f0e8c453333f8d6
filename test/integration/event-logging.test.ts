import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2WithLambdaAuthorizer } from 'aws-lambda';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import type { Handlers } from '#lib/handlers/index';
import type { McpAuthContext } from '#lib/mcp/authorizer';
import { freshCaller } from '#test/support/api';
import { httpApiAuthorizerEvent } from '#test/support/authorizer-events';
import type { TestTables } from '#test/support/dynamo';
import { captureOutput } from '#test/support/logs';
import { SecretLedger } from '#test/support/secrets';

// Powertools reads these when the logger is constructed (at import), as a Lambda cold start does:
// the most verbose settings an operator could turn on. The files of this tier share their workers'
// module cache, so the service's modules are imported afresh here, after the settings, and
// dropped again (with the settings) when the file ends.
vi.stubEnv('POWERTOOLS_LOGGER_LOG_EVENT', 'true');
vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'DEBUG');
vi.resetModules();
const { makeHandlers } = await import('#lib/handlers/index');
const { createKey } = await import('#lib/keys/lifecycle');
const { logger } = await import('#lib/observability');
const { createTestTables } = await import('#test/support/dynamo');

/**
 * POWERTOOLS_LOGGER_LOG_EVENT=true logs each invocation event. Events carry the MCP key
 * (identitySource, headers, authorizationToken), user JWTs (headers, cookies) and bodies: every
 * function must log the event with those redacted, or not at all.
 */
let tables: TestTables;
let handlers: Handlers;
const output = captureOutput();
const secrets = new SecretLedger();
let apiKey: string;
let keyId: string;
let jwt: string;
const BODY_MARKER = `body-marker-${randomUUID()}`;

beforeAll(async () => {
  tables = await createTestTables();
  const rt = tables.runtime();
  handlers = makeHandlers(rt);
  const workspaceId = randomUUID();
  await tables.setRole('alice', workspaceId, 'editor');
  const issued = await createKey(rt.service, {
    userId: 'alice',
    name: 'laptop',
    workspaceIds: [workspaceId],
    scopes: ['svc.forms.read'],
  });
  apiKey = issued.apiKey;
  keyId = issued.metadata.id;
  const { privateKey } = await generateKeyPair('ES256');
  jwt = await new SignJWT({ email_verified: true })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setSubject('alice')
    .setExpirationTime('1h')
    .sign(privateKey);
  secrets.add(apiKey, (await rt.service.keys.get(keyId))?.digest, jwt, BODY_MARKER);
});
afterAll(async () => {
  output.restore();
  await tables.drop();
  vi.unstubAllEnvs();
  vi.resetModules();
});

/** A management API event as API Gateway sends it: the JWT in a header and a cookie, a body. */
function apiEvent(method: string, routeKey: string, rawPath: string, extra: Record<string, unknown> = {}) {
  return httpApiEvent({
    method,
    routeKey,
    rawPath,
    headers: {
      authorization: `Bearer ${jwt}`,
      cookie: `session=${jwt}; theme=dark`,
      'content-type': 'application/json',
      'user-agent': 'vitest',
    },
    body: JSON.stringify({ name: BODY_MARKER, workspace_ids: [randomUUID()], scopes: ['svc.forms.read'] }),
    claims: freshCaller('alice') as Record<string, unknown>,
    ...extra,
  });
}

const mcpHttpEvent = () =>
  httpApiEvent({
    method: 'POST',
    routeKey: 'POST /mcp',
    rawPath: '/mcp',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { note: BODY_MARKER } }),
  });

type Invoke = () => Promise<unknown>;
const context = (name: string) => lambdaContext(name);

const cases: [string, Invoke][] = [
  [
    'create-key',
    () => handlers['create-key'](apiEvent('POST', 'POST /v1/mcp/api-keys', '/v1/mcp/api-keys'), context('c')),
  ],
  [
    'list-keys',
    () =>
      handlers['list-keys'](
        // A key pasted into a query parameter is masked wherever it appears.
        apiEvent('GET', 'GET /v1/mcp/api-keys', '/v1/mcp/api-keys', { query: { cursor: apiKey } }),
        context('l'),
      ),
  ],
  [
    'rotate-key',
    () =>
      handlers['rotate-key'](
        apiEvent('POST', 'POST /v1/mcp/api-keys/{key_id}/rotate', `/v1/mcp/api-keys/${randomUUID()}/rotate`, {
          pathParameters: { key_id: randomUUID() },
        }),
        context('r'),
      ),
  ],
  [
    'revoke-key',
    () =>
      handlers['revoke-key'](
        apiEvent('DELETE', 'DELETE /v1/mcp/api-keys/{key_id}', `/v1/mcp/api-keys/${randomUUID()}`, {
          pathParameters: { key_id: randomUUID() },
        }),
        context('d'),
      ),
  ],
  [
    'mcp-authorizer (HTTP API, payload 2.0)',
    () => handlers['mcp-authorizer'](httpApiAuthorizerEvent(mcpHttpEvent()), context('a')),
  ],
  [
    'mcp-authorizer (REST API, TOKEN)',
    () =>
      handlers['mcp-authorizer'](
        {
          type: 'TOKEN',
          authorizationToken: `Bearer ${apiKey}`,
          methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abc/prod/POST/mcp',
        } as never,
        context('a'),
      ),
  ],
  [
    'mcp-authorizer (REST API, REQUEST)',
    () =>
      handlers['mcp-authorizer'](
        {
          type: 'REQUEST',
          methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abc/prod/POST/mcp',
          headers: { Authorization: `Bearer ${apiKey}`, Cookie: `session=${jwt}` },
          multiValueHeaders: { Authorization: [`Bearer ${apiKey}`], Cookie: [`session=${jwt}`] },
        } as never,
        context('a'),
      ),
  ],
];

describe('with POWERTOOLS_LOGGER_LOG_EVENT=true and DEBUG logs', () => {
  it('the logger was configured to log events (the setting is read at construction)', () => {
    expect(logger.shouldLogEvent()).toBe(true);
  });

  it.each(cases)('%s logs the event without the key, the JWT or the body', async (_name, invoke) => {
    const from = output.lines.length;
    await invoke();
    const logs = output.lines.slice(from).join('');
    const events = logs
      .split('\n')
      .filter((line) => line.includes('Lambda invocation event'))
      .map((line) => JSON.parse(line) as { event: Record<string, unknown> });
    // Logged once, with its shape kept (an operator can still see what came in)...
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]?.event)).toContain('[redacted]');
    // ...and no credential or body in any line of the invocation.
    expect(secrets.leaksIn(logs)).toEqual([]);
    expect(logs).not.toMatch(/svc_mcp_v1_[0-9A-Za-z]{71}/);
    expect(logs).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  });

  it('mcp-server logs no event and no credential', async () => {
    const from = output.lines.length;
    const event = mcpHttpEvent();
    const { authorizer: _jwt, ...requestContext } = event.requestContext;
    const withContext: APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<McpAuthContext>> = {
      ...event,
      requestContext: {
        ...requestContext,
        authorizer: {
          lambda: { user_id: 'alice', key_id: keyId, scopes: 'svc.forms.read', workspaces: '[]' },
        },
      },
    };
    await handlers['mcp-server'](withContext);
    const logs = output.lines.slice(from).join('');
    expect(secrets.leaksIn(logs)).toEqual([]);
    expect(logs).not.toMatch(/svc_mcp_v1_[0-9A-Za-z]{71}/);
  });
});
