/** The DynamoDB Local, tables and runtime shared by the benchmarks that touch DynamoDB. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type DynamoDbLocal, startDynamoDbLocal } from '#infra/local/emulation/dynamodb-local';
import type { Role } from '#lib/access/scopes';
import { REFERENCE_TOOLS } from '#lib/access/tools';
import type { Config } from '#lib/config';
import { createKey, type IssuedKey } from '#lib/keys/lifecycle';
import { DEFAULT_SETTINGS } from '#lib/limits';
import { createTableInput, KEYS_TABLE, MEMBERSHIPS_TABLE } from '#lib/store/tables';
import {
  buildRuntimeWithAdapters as buildRuntime,
  type RuntimeWithAdapters as Runtime,
  type RuntimeOverrides,
} from '#test/support/runtime-adapters';
import { closedLoop } from './harness.ts';

export interface BenchContext {
  local: DynamoDbLocal;
  config: Config;
  rt: Runtime;
  /** Another runtime on the same tables (its own client and verifier). */
  runtime(overrides?: RuntimeOverrides): Runtime;
  /**
   * A creator (a UUID user id, as identity providers issue) with `memberships` memberships and a
   * key for `workspaces` of them, spread evenly over the creator's workspaces in sort order.
   */
  creatorWithKey(workspaces: number, memberships?: number): Promise<{ userId: string; key: IssuedKey }>;
}

/** Load on DynamoDB Local before any section measures. */
const JVM_WARM_UP_MS = 10_000;

export async function startContext(): Promise<BenchContext> {
  const local = await startDynamoDbLocal({ jvm: 'long-running' });
  try {
    const suffix = randomUUID().slice(0, 8);
    const config: Config = {
      keysTableName: `bench-keys-${suffix}`,
      mcpTools: REFERENCE_TOOLS,
      membershipsTableName: `bench-members-${suffix}`,
      pepper: { kind: 'local', dir: mkdtempSync(join(tmpdir(), 'bench-pepper-')), version: 1 },
      dynamodbEndpoint: local.endpoint,
      region: 'us-east-1',
      settings: { ...DEFAULT_SETTINGS, maxActiveKeys: 10_000 },
      mcpAllowedOrigins: [],
    };
    const rt = buildRuntime(config);
    await rt.doc.send(new CreateTableCommand(createTableInput(KEYS_TABLE, config.keysTableName)));
    await rt.doc.send(
      new CreateTableCommand(createTableInput(MEMBERSHIPS_TABLE, config.membershipsTableName)),
    );
    const creatorWithKey = async (workspaces: number, memberships = workspaces) => {
      const userId = randomUUID();
      const ids = Array.from({ length: memberships }, () => randomUUID()).sort();
      const role: Role = 'editor';
      for (let i = 0; i < ids.length; i += 25) {
        await rt.doc.send(
          new BatchWriteCommand({
            RequestItems: {
              [config.membershipsTableName]: ids
                .slice(i, i + 25)
                .map((sk) => ({ PutRequest: { Item: { pk: userId, sk, role } } })),
            },
          }),
        );
      }
      const step = memberships / workspaces;
      const chosen = Array.from(
        { length: workspaces },
        (_, i) => ids[Math.floor(i * step + step / 2)] as string,
      );
      const key = await createKey(rt.service, {
        userId,
        name: 'bench',
        workspaceIds: chosen,
        scopes: ['svc.forms.read'],
      });
      return { userId, key };
    };
    // DynamoDB Local's JVM (its defaults, `long-running`) compiles its hot paths under load: the
    // first section measured, the cold starts, would otherwise share the two cores with that.
    const { key } = await creatorWithKey(1);
    await closedLoop(() => rt.verify(key.apiKey), 16, JVM_WARM_UP_MS);
    return {
      local,
      config,
      rt,
      runtime: (overrides) => buildRuntime(config, overrides),
      creatorWithKey,
    };
  } catch (err) {
    await local.stop();
    throw err;
  }
}
