/**
 * 5: bundle sizes and cold starts. Each function is bundled as `ServiceFunction` bundles it (its
 * `FUNCTION_BUNDLING` choice included), then a fresh `node` (with `--enable-source-maps` when the
 * function ships a source map) imports it and serves one request against DynamoDB Local.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BundlingChoice, FUNCTION_BUNDLING } from '#infra/constructs/bundling';
import { httpApiEvent } from '#infra/local/emulation/apigw';
import { httpApiAuthorizerEvent } from '#test/support/authorizer-events';
import { bundleFunction as bundle } from './bundle.ts';
import type { BenchContext } from './context.ts';
import { record } from './harness.ts';

const ROOT = resolve(import.meta.dirname, '..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function coldStarts(ctx: BenchContext, log: (line: string) => void) {
  log('5. bundle sizes and cold start (import + first request)');
  const outDir = join(ROOT, '.tmp', 'bench-bundles');
  mkdirSync(outDir, { recursive: true });
  // A member with a key: create succeeds (memberships, pepper, transaction) and list has a page.
  const { userId, key } = await ctx.creatorWithKey(1);
  const env = {
    KEYS_TABLE_NAME: ctx.config.keysTableName,
    MEMBERSHIPS_TABLE_NAME: ctx.config.membershipsTableName,
    PEPPER_DIR: (ctx.config.pepper as { dir: string }).dir,
    DYNAMODB_ENDPOINT: ctx.config.dynamodbEndpoint as string,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    MAX_ACTIVE_KEYS: '10000',
  };
  const measure = (file: string, event: unknown, sourceMaps: boolean) => {
    const script = `
      const t0 = performance.now();
      const m = await import(${JSON.stringify(pathToFileURL(file).href)});
      const ctx = { functionName: 'bench', awsRequestId: 'r', getRemainingTimeInMillis: () => 10000, invokedFunctionArn: 'arn:aws:lambda:local:0:function:bench', functionVersion: '1', memoryLimitInMB: '256', logGroupName: 'l', logStreamName: 's' };
      const out = await m.handler(JSON.parse(process.env.BENCH_EVENT), ctx);
      process.stdout.write(JSON.stringify({ ms: performance.now() - t0, out }));`;
    const runs = [0, 1, 2].map(() => {
      const flags = sourceMaps ? ['--enable-source-maps'] : [];
      const stdout = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
        env: { ...process.env, ...env, BENCH_EVENT: JSON.stringify(event) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      return JSON.parse(stdout) as { ms: number; out: { statusCode?: number; isAuthorized?: boolean } };
    });
    return { ms: median(runs.map((r) => r.ms)), out: runs[0]?.out };
  };
  const empty = join(outDir, 'empty.mjs');
  writeFileSync(empty, 'export const handler = async () => ({ statusCode: 200 });\n');
  const baseline = { name: 'import empty module ms', value: measure(empty, {}, false).ms };

  const request = (method: string, routeKey: string, rawPath: string, extra: Record<string, unknown> = {}) =>
    httpApiEvent({
      method,
      routeKey,
      rawPath,
      claims: { sub: userId, email_verified: true, auth_time: Math.floor(Date.now() / 1000) },
      ...extra,
    });
  const authorizerEvent = httpApiAuthorizerEvent(
    httpApiEvent({
      method: 'POST',
      routeKey: 'POST /mcp',
      rawPath: '/mcp',
      headers: { authorization: `Bearer ${key.apiKey}` },
    }),
  );
  const events: Record<string, unknown> = {
    'mcp-authorizer': authorizerEvent,
    'list-keys': request('GET', 'GET /v1/mcp/api-keys', '/v1/mcp/api-keys'),
    'create-key': request('POST', 'POST /v1/mcp/api-keys', '/v1/mcp/api-keys', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'cold',
        workspace_ids: key.metadata.workspace_ids,
        scopes: ['svc.forms.read'],
      }),
    }),
    'revoke-key': request('DELETE', 'DELETE /v1/mcp/api-keys/{key_id}', `/v1/mcp/api-keys/${randomUUID()}`, {
      pathParameters: { key_id: randomUUID() },
    }),
    'rotate-key': request(
      'POST',
      'POST /v1/mcp/api-keys/{key_id}/rotate',
      `/v1/mcp/api-keys/${randomUUID()}/rotate`,
      { pathParameters: { key_id: randomUUID() } },
    ),
  };
  for (const [name, choice] of Object.entries(FUNCTION_BUNDLING) as [string, BundlingChoice][]) {
    const outfile = join(outDir, `${name}.mjs`);
    const authorizer = name === 'mcp-authorizer';
    const management = name !== 'mcp-server' && !authorizer;
    const { kb: size } = await bundle(name, choice, outfile);
    const maxKb = 250;
    record(
      `bundle size: ${name}${choice.bundleAwsSdk ? ' (AWS SDK bundled)' : " (the runtime's AWS SDK)"}`,
      size,
      'KB',
      undefined,
      authorizer || management ? { text: `≤ ${maxKb} KB`, met: (m) => m.value <= maxKb } : undefined,
    );
    const event = events[name];
    if (!event) continue;
    const sourceMaps = choice.sourceMap !== false;
    const { ms, out } = measure(outfile, event, sourceMaps);
    if (authorizer && out?.isAuthorized !== true) throw new Error('cold-start verification was not allowed');
    if (management && !out?.statusCode) throw new Error(`cold-start ${name} gave no response`);
    const maxMs = authorizer ? 150 : 250;
    record(
      `cold start: ${name} (import + first request${sourceMaps ? ', source maps on' : ''})`,
      ms,
      'ms',
      baseline,
      { text: `≤ ${maxMs} ms`, met: (m) => m.value <= maxMs },
    );
    if (authorizer) {
      // What the source map costs this function.
      const unmapped = join(outDir, `${name}-without-source-map.mjs`);
      await bundle(name, { ...choice, sourceMap: false }, unmapped);
      record(`cold start: ${name} without a source map`, measure(unmapped, event, false).ms, 'ms', baseline);
    }
    if (name === 'create-key' && !choice.bundleAwsSdk) {
      // The other side of the trade: the AWS SDK bundled instead of the Lambda runtime's copy.
      const bundled = join(outDir, `${name}-sdk-bundled.mjs`);
      const { kb } = await bundle(name, { ...choice, bundleAwsSdk: true }, bundled);
      record(`bundle size: ${name} if it bundled the AWS SDK`, kb, 'KB');
      record(
        `cold start: ${name} if it bundled the AWS SDK`,
        measure(bundled, event, sourceMaps).ms,
        'ms',
        baseline,
      );
    }
  }
}
