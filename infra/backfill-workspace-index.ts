/**
 * Upgrading a deployment made before workspace governance (contract §12): writes the workspace
 * index entries of the keys stored before it, then applies the stored policy of every workspace
 * the keys reach, as the policy fan-out would have. Until it has run, administrators do not see
 * those keys, cannot cut them off, and a policy that disables MCP access leaves them working.
 * Idempotent and safe beside live traffic: a second run writes only what is still missing and
 * applies the policies again. It prints counts and workspace ids, never a key or a digest (it
 * does not read digests), and exits 0 (done), 1 (stopped part-way: run it again) or 2 (bad
 * arguments).
 *
 *   npm run backfill:workspace-index -- --table <KeysTableName> --region <region> [--retention-days <n>] [--endpoint <url>]
 *
 * Credentials come from the AWS SDK's default chain (environment, profile, SSO); the actions they
 * need on the keys table are listed in docs/deploying.md.
 */
import { resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lifecycleSetting } from '#lib/config-rules';
import { LIFECYCLE_SETTINGS } from '#lib/limits';
import { createDocumentClient } from '#lib/store/client';
import { DynamoKeyStore } from '#lib/store/keys-store';
import { type BackfillOptions, backfillWorkspaceIndex } from '#lib/store/workspace-backfill';
import { DynamoWorkspaceStore } from '#lib/store/workspace-store';
import { applyWorkspacePolicy } from '#lib/workspaces/policy';
import { stringFlags } from './cli-flags.ts';

const USAGE = `usage: npm run backfill:workspace-index -- --table <name> --region <region> [--retention-days <n>] [--endpoint <url>]
  --table           the keys table (the stateful stack's KeysTableName output)
  --region          the table's region (or set AWS_REGION)
  --retention-days  the deployment's retentionDays setting (default ${LIFECYCLE_SETTINGS.retentionDays.default}), for the events and
                    revocations of policy cut-offs; entries take their key's own retention
  --endpoint        a DynamoDB Local endpoint instead of AWS (local mode, tests)`;

interface Options {
  table: string;
  region: string;
  retentionDays: number;
  endpoint: string | undefined;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | string {
  const values = stringFlags(argv, ['table', 'region', 'retention-days', 'endpoint']);
  if (typeof values === 'string') return values;
  const problems: string[] = [];
  const table = values.table ?? '';
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(table)) problems.push('--table must be a DynamoDB table name');
  const region = values.region ?? env.AWS_REGION ?? '';
  if (!region) problems.push('--region (or AWS_REGION) is required');
  // The rule RETENTION_DAYS and the CDK setting follow (bounds and default in lib/limits.ts).
  const { min, max } = LIFECYCLE_SETTINGS.retentionDays;
  const retention = lifecycleSetting(LIFECYCLE_SETTINGS.retentionDays).safeParse(values['retention-days']);
  if (!retention.success) problems.push(`--retention-days must be a whole number from ${min} to ${max}`);
  return problems.length > 0 || !retention.success
    ? problems.join('\n')
    : { table, region, retentionDays: retention.data, endpoint: values.endpoint };
}

/** The backfill, then each reached workspace's policy; the exit code. */
export async function backfillDeployment(
  doc: DynamoDBDocumentClient,
  deployment: Pick<Options, 'table' | 'retentionDays'> & Pick<BackfillOptions, 'segments' | 'concurrency'>,
  say: (line: string) => void,
): Promise<number> {
  const { table, retentionDays, segments, concurrency } = deployment;
  try {
    const summary = await backfillWorkspaceIndex(doc, {
      tableName: table,
      retentionDays,
      segments,
      concurrency,
    });
    say(
      `index: ${summary.keys} keys read; ${summary.written} entries written, ${summary.present} already present, ${summary.changed} no longer due`,
    );
    const deps = {
      keys: new DynamoKeyStore(doc, table, retentionDays),
      workspaces: new DynamoWorkspaceStore(doc, table, retentionDays),
      now: () => new Date(),
    };
    let cut = 0;
    for (const workspaceId of summary.workspaces) {
      const done = await applyWorkspacePolicy(deps, workspaceId);
      if (done > 0) say(`policy: workspace ${workspaceId}: ${done} keys cut off by its policy`);
      cut += done;
    }
    say(`backfill: done (policies of ${summary.workspaces.size} workspaces applied; ${cut} keys cut off)`);
    return 0;
  } catch (err) {
    say(`backfill: FAILED (${(err as Error).name}: ${(err as Error).message}); it is safe to run again`);
    return 1;
  }
}

async function main(argv: string[], env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<number> {
  const options = parseOptions(argv, env);
  if (typeof options === 'string') {
    say(`${options}\n${USAGE}`);
    return 2;
  }
  const doc = createDocumentClient({ region: options.region, endpoint: options.endpoint });
  try {
    return await backfillDeployment(doc, options, say);
  } finally {
    doc.destroy();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  process.exitCode = await main(process.argv.slice(2), process.env, (line) => console.log(line));
}
