/** 7: a GitHub secret scanning report of 1,000 matches, 10 of them real keys, end to end. */
import { generateKeyPairSync, sign } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { httpApiEvent } from '#infra/local/emulation/http-api-event';
import { lambdaContext } from '#infra/local/emulation/lambda-context';
import { makeHandlers } from '#lib/handlers/index';
import { generateKey, parseKey } from '#lib/keys/format';
import { createKey } from '#lib/keys/lifecycle';
import { KEY_SK, keyPk } from '#lib/store/keys-store';
import { countCommands } from '#test/support/count';
import { captureOutput } from '#test/support/logs';
import type { BenchContext } from './context.ts';
import { percentile, record, scaled } from './harness.ts';

const MATCHES = 1000;
const REAL = 10;
const RUNS = scaled(7);

export async function githubReports(ctx: BenchContext, log: (line: string) => void) {
  log(`7. a signed GitHub report of ${MATCHES.toLocaleString('en')} matches, ${REAL} real keys`);
  const { rt, config } = ctx;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const handlers = makeHandlers(rt, {
    githubKeys: async () => [
      { key_identifier: 'bench', key: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    ],
  });
  const { userId, key } = await ctx.creatorWithKey(1);
  const workspaceIds = key.metadata.workspace_ids;

  // A fresh report each run: 990 well-formed keys that are not ours, and 10 active keys.
  const report = async () => {
    const tokens = Array.from({ length: MATCHES }, () => generateKey().apiKey);
    for (let i = 0; i < REAL; i++) {
      const issued = await createKey(rt.service, {
        userId,
        name: `leak-${i}`,
        workspaceIds,
        scopes: ['svc.forms.read'],
      });
      tokens[Math.floor(((i + 0.5) * MATCHES) / REAL)] = issued.apiKey;
    }
    const body = `[${tokens.map((t) => `{"token":"${t}","type":"svc_mcp_api_key","url":"https://github.com/o/r/blob/0123456789abcdef0123456789abcdef01234567/.env","source":"content"}`).join(',')}]`;
    return { tokens, body };
  };
  const send = async (body: string) => {
    const event = httpApiEvent({
      method: 'POST',
      routeKey: 'POST /v1/mcp/secret-scanning/github',
      rawPath: '/v1/mcp/secret-scanning/github',
      headers: {
        'content-type': 'application/json',
        'github-public-key-identifier': 'bench',
        'github-public-key-signature': sign('sha256', Buffer.from(body), privateKey).toString('base64'),
      },
      body,
    });
    const started = performance.now();
    const out = (await handlers['github-secret-scanning'](
      event,
      lambdaContext('github-secret-scanning'),
    )) as APIGatewayProxyStructuredResultV2;
    const ms = performance.now() - started;
    const labels = JSON.parse(out.body ?? '[]') as { label: string }[];
    if (out.statusCode !== 200 || labels.filter((l) => l.label === 'true_positive').length !== REAL)
      throw new Error(`GitHub report answered ${out.statusCode} with the wrong labels`);
    return ms;
  };
  // The read the report used to make: one consistent GetItem per match, all at once.
  const oneByOne = async (tokens: string[]) => {
    const started = performance.now();
    await Promise.all(
      tokens.map((t) => {
        const parsed = parseKey(t);
        const id = parsed.ok ? parsed.id : 'x';
        return rt.doc.send(
          new GetCommand({
            TableName: config.keysTableName,
            Key: { pk: keyPk(id), sk: KEY_SK },
            ConsistentRead: true,
          }),
        );
      }),
    );
    return performance.now() - started;
  };

  // The handler's log lines and metrics would bury the bench's own output.
  const output = captureOutput();
  try {
    await send((await report()).body); // warm-up: pepper, signature key, connections
    const answers: number[] = [];
    const baselines: number[] = [];
    const calls = countCommands(rt.doc);
    for (let i = 0; i < RUNS; i++) {
      const { tokens, body } = await report();
      baselines.push(await oneByOne(tokens));
      calls.reset();
      answers.push(await send(body));
    }
    const perReport = calls.snapshot();
    calls.remove();
    answers.sort((a, b) => a - b);
    baselines.sort((a, b) => a - b);
    record(
      `signed GitHub report, ${MATCHES.toLocaleString('en')} matches with ${REAL} real keys (p50 of ${RUNS})`,
      percentile(answers, 50),
      'ms',
      {
        name: `${MATCHES.toLocaleString('en')} consistent GetItems at once ms`,
        value: percentile(baselines, 50),
      },
      // Twenty calls against a thousand: the whole answer within half the time of the read alone.
      { text: '≤ 0.5x', met: ({ ratio }) => (ratio ?? Infinity) <= 0.5 },
    );
    record(
      `DynamoDB calls per ${MATCHES.toLocaleString('en')}-match report (BatchGetItem, TransactWriteItems)`,
      (perReport.BatchGetItem ?? 0) + (perReport.TransactWriteItems ?? 0),
      'calls',
      undefined,
      {
        text: `= ${MATCHES / 100} reads + ${REAL} revocations`,
        met: () =>
          perReport.BatchGetItem === MATCHES / 100 &&
          perReport.TransactWriteItems === REAL &&
          Object.keys(perReport).length === 2,
      },
    );
  } finally {
    output.restore();
  }
}
