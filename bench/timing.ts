/**
 * `npm run bench:timing`: how much longer verification takes for an existing key id with a wrong
 * secret than for an unknown id (the timing oracle of docs/security.md). Prints medians of
 * interleaved samples at three levels: the verifier with an in-memory store (CPU only), the
 * verifier against DynamoDB Local, and `POST /mcp` through the local service. A report, not a
 * test: this machine is shared and noisy, so compare the two columns of one run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '#infra/local/emulation/dynamodb-local';
import { REFERENCE_TOOLS } from '#lib/access/tools';
import { assembleKey, generateKey, keyHint, secretField } from '#lib/keys/format';
import { createKey } from '#lib/keys/lifecycle';
import type { KeyRecord } from '#lib/keys/model';
import { digestKey, type PepperSource } from '#lib/keys/pepper';
import { createKeyVerifier } from '#lib/keys/verify';
import { DEFAULT_SETTINGS } from '#lib/limits';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE } from '#lib/store/tables';
import { startService } from '#test/support/local-service';
import { useRunTmp } from '#test/support/run-tmp';
import { buildRuntimeWithAdapters as buildRuntime } from '#test/support/runtime-adapters';

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? NaN;

/** A well-formed key with the id `id` and another key's secret: it parses, its digest differs. */
const wrongSecretFor = (id: string): string => assembleKey(id, secretField(generateKey().apiKey));

/** Interleaves the two cases (alternating which goes first) and returns per-case samples in µs. */
async function compare(unknown: () => Promise<unknown>, wrong: () => Promise<unknown>, n: number) {
  const a: number[] = [];
  const b: number[] = [];
  const time = async (fn: () => Promise<unknown>, into: number[]) => {
    const t = performance.now();
    await fn();
    into.push((performance.now() - t) * 1000);
  };
  for (let i = 0; i < n / 10; i++) {
    await unknown();
    await wrong();
  }
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      await time(unknown, a);
      await time(wrong, b);
    } else {
      await time(wrong, b);
      await time(unknown, a);
    }
  }
  return { unknown: a, wrong: b };
}

function report(level: string, s: { unknown: number[]; wrong: number[] }) {
  const row = (xs: number[]) =>
    `p25 ${quantile(xs, 0.25).toFixed(1)} | median ${quantile(xs, 0.5).toFixed(1)} | p75 ${quantile(xs, 0.75).toFixed(1)}`;
  const diff = quantile(s.wrong, 0.5) - quantile(s.unknown, 0.5);
  console.log(`\n${level} (${s.unknown.length} samples each, µs)`);
  console.log(`  unknown id            ${row(s.unknown)}`);
  console.log(`  known id, wrong secret ${row(s.wrong)}`);
  console.log(`  difference of medians: ${diff.toFixed(1)} µs`);
}

const peppers: PepperSource = { currentVersion: 1, pepper: async () => Buffer.alloc(32, 7) };

async function inMemory() {
  const { id, apiKey } = generateKey();
  const { digest } = await digestKey(peppers, apiKey);
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const record: KeyRecord = {
    id,
    user_id: 'bench',
    lineage_id: id,
    name: 'bench',
    workspace_ids: [randomUUID()],
    scopes: ['svc.forms.read'],
    digest,
    pepper_version: 1,
    key_hint: keyHint(apiKey),
    created_at: new Date().toISOString(),
    expires_at: future,
  };
  const verify = createKeyVerifier({
    keys: {
      get: async (wanted) => (wanted === id ? record : undefined),
      recordUse: async () => false,
    },
    memberships: { rolesFor: async () => new Map() },
    peppers,
    now: () => new Date(),
  });
  const wrong = wrongSecretFor(id);
  const unknown = generateKey().apiKey;
  report(
    'verifier, in-memory store',
    await compare(
      () => verify(unknown),
      () => verify(wrong),
      20_000,
    ),
  );
}

async function dynamoDbLocal() {
  const local = await startDynamoDbLocal({ jvm: 'long-running' });
  try {
    const suffix = randomUUID().slice(0, 8);
    const rt = buildRuntime({
      keysTableName: `timing-keys-${suffix}`,
      mcpTools: REFERENCE_TOOLS,
      membershipsTableName: `timing-members-${suffix}`,
      pepper: { kind: 'local', dir: mkdtempSync(join(tmpdir(), 'timing-pepper-')), version: 1 },
      dynamodbEndpoint: local.endpoint,
      region: 'us-east-1',
      settings: DEFAULT_SETTINGS,
      mcpAllowedOrigins: [],
    });
    await rt.doc.send(new CreateTableCommand(createTableInput(KEYS_TABLE, rt.config.keysTableName)));
    await rt.doc.send(
      new CreateTableCommand(createTableInput(MEMBERSHIPS_TABLE, rt.config.membershipsTableName)),
    );
    const ws = randomUUID();
    await rt.doc.send(
      new PutCommand({
        TableName: rt.config.membershipsTableName,
        Item: { pk: 'bench', sk: ws, role: 'editor' },
      }),
    );
    const { metadata } = await createKey(rt.service, {
      userId: 'bench',
      name: 'bench',
      workspaceIds: [ws],
      scopes: ['svc.forms.read'],
    });
    const wrong = wrongSecretFor(metadata.id);
    const unknown = generateKey().apiKey;
    report(
      'verifier, DynamoDB Local',
      await compare(
        () => rt.verify(unknown),
        () => rt.verify(wrong),
        3000,
      ),
    );
    rt.doc.destroy();
  } finally {
    await local.stop();
  }
}

async function throughMcp() {
  const service = await startService(
    { DATA_DIR: mkdtempSync(join(tmpdir(), 'timing-svc-')), POWERTOOLS_LOG_LEVEL: 'ERROR' },
    ['--in-memory'],
  );
  try {
    const json = { 'content-type': 'application/json' };
    const token = (
      (await (
        await fetch(`${service.url}/_dev/token`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ sub: 'bench', email_verified: true }),
        })
      ).json()) as { token: string }
    ).token;
    const ws = randomUUID();
    await fetch(`${service.url}/_dev/memberships/bench/${ws}`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ role: 'editor' }),
    });
    const created = (await (
      await fetch(`${service.url}/v1/mcp/api-keys`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: 'bench', workspace_ids: [ws], scopes: ['svc.forms.read'] }),
      })
    ).json()) as { metadata: { id: string } };
    const mcp = (key: string) => async () => {
      const r = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { ...json, accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      await r.arrayBuffer();
    };
    const wrong = wrongSecretFor(created.metadata.id);
    const unknown = generateKey().apiKey;
    report('POST /mcp through the local service', await compare(mcp(unknown), mcp(wrong), 2000));
  } finally {
    await service.stop();
  }
}

console.log(`timing oracle: unknown key id vs existing id with a wrong secret (${new Date().toISOString()})`);
useRunTmp(); // its pepper file and the local service's data, removed at exit
await inMemory();
await dynamoDbLocal();
await throughMcp();
